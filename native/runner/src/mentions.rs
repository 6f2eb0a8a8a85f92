//! `@path` in a task: `openagent run "look at @shot.png and fix the layout"` attaches the image
//! `shot.png` and keeps the text as typed, so the model reads which image the words refer to. A
//! path with a space in it is quoted: `@"my shot.png"` (the interactive screen's Tab completes
//! such paths that way).

use std::path::Path;

use openagent_core::session::{ImageInput, UserInput};
use openagent_core::tools::read_file::image_media_type;

use crate::config_error::ConfigError;

/// `task` with the images it mentions as `@path` attached: a path relative to `cwd` (or
/// absolute) whose extension names an image. Other `@words` (`@user`, `@file.rs`) stay text. A
/// mentioned image that is not there is an error naming it; the session reads and checks the
/// rest (a directory, a FIFO, its type and size) before any request.
pub fn with_mentioned_images(task: &str, cwd: &Path) -> Result<UserInput, ConfigError> {
    let mut input = UserInput::new(task);
    for path in mentioned(task) {
        if image_media_type(&path).is_none() {
            continue;
        }
        // `symlink_metadata`: a dangling link or a FIFO is there, and the session says what is wrong with it.
        if cwd.join(&path).symlink_metadata().is_err() {
            return Err(ConfigError::MissingImage { mention: mention(&path, true), cwd: cwd.to_owned() });
        }
        input = input.with_image(ImageInput::Path(path));
    }
    Ok(input)
}

/// The paths `task` mentions, in order: `@path` at the start of a word, or `@"a path"`.
/// Punctuation around a bare mention belongs to the sentence: "see @a.png, then (@b.png)."
pub fn mentioned(task: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut previous = None;
    let mut chars = task.char_indices();
    while let Some((at, c)) = chars.next() {
        let starts_word = previous.is_none_or(|p: char| p.is_whitespace() || matches!(p, '(' | '"' | '\''));
        previous = Some(c);
        if c != '@' || !starts_word {
            continue;
        }
        let rest = &task[at + 1..];
        let (path, length) = match rest.strip_prefix('"').and_then(|quoted| Some(quoted.split_at(quoted.find('"')?))) {
            Some((path, _)) => (path, path.len() + 2),
            None => {
                let word = &rest[..rest.find(char::is_whitespace).unwrap_or(rest.len())];
                let path = word.trim_start_matches('"').trim_end_matches([',', '.', ';', ':', '!', '?', ')', '"', '\'']);
                (path, word.len())
            }
        };
        if !path.is_empty() {
            paths.push(path.to_owned());
        }
        // On past the mention: an `@` inside it starts nothing.
        let end = at + 1 + length;
        while chars.as_str().len() > task.len() - end {
            previous = chars.next().map(|(_, c)| c);
        }
    }
    paths
}

/// How `path` is written as a mention: `@path`, or in quotes when it has a space (left open when
/// not `closed`, for a directory whose files are still to be completed).
pub fn mention(path: &str, closed: bool) -> String {
    match path.contains(char::is_whitespace) {
        true if closed => format!("@\"{path}\""),
        true => format!("@\"{path}"),
        false => format!("@{path}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_mentions_are_attached_and_other_words_stay_text() {
        let dir = std::env::temp_dir().join(format!("openagent-mentions-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("shots")).unwrap();
        std::fs::write(dir.join("shots/a.PNG"), b"").unwrap();
        std::fs::write(dir.join("b.jpg"), b"").unwrap();
        let task = "compare @shots/a.PNG, and (@b.jpg) with @user's @notes.txt at me@host";
        let input = with_mentioned_images(task, &dir).unwrap();
        assert_eq!(input.text, task);
        let paths = [ImageInput::Path("shots/a.PNG".into()), ImageInput::Path("b.jpg".into())];
        assert_eq!(input.images, paths);
        let input = with_mentioned_images("see @b.jpg.", &dir).unwrap();
        assert_eq!(input.images, [ImageInput::Path("b.jpg".into())]);
        let error = with_mentioned_images("see @gone.png", &dir).unwrap_err().to_string();
        assert_eq!(error, format!("the task mentions @gone.png, but there is no such file in {}", dir.display()));
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A path with a space is quoted, as the screen's Tab completes it; an `@` inside a mention
    /// or a word starts nothing.
    #[test]
    fn quoted_mentions_hold_spaces_and_read_as_they_are_written() {
        let task = "compare @\"my shots/a b.png\" with @c.png, @\"odd@name.jpg\" and me@host (@\"d e.gif\").";
        assert_eq!(mentioned(task), ["my shots/a b.png", "c.png", "odd@name.jpg", "d e.gif"]);
        assert_eq!(mentioned("an open @\"quote and @x.png"), ["quote", "x.png"]);
        for path in ["my shots/a b.png", "c.png"] {
            assert_eq!(mentioned(&format!("see {}", mention(path, true))), [path]);
        }
        assert_eq!(mention("my dir/", false), "@\"my dir/");
    }
}
