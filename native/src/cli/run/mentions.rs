//! `@path` in a task: `openagent run "look at @shot.png and fix the layout"` attaches the image
//! `shot.png` and keeps the text as typed, so the model reads which image the words refer to.

use std::path::Path;

use openagent_core::session::{ImageInput, UserInput};
use openagent_core::tools::read_file::image_media_type;

/// `task` with the images it mentions as `@path` attached: a path relative to `cwd` (or
/// absolute) whose extension names an image. Other `@words` (`@user`, `@file.rs`) stay text. A
/// mentioned image that is not there is an error naming it; the session reads and checks the
/// rest (a directory, a FIFO, its type and size) before any request.
pub fn with_mentioned_images(task: &str, cwd: &Path) -> Result<UserInput, String> {
    let mut input = UserInput::new(task);
    for word in task.split_whitespace() {
        // Punctuation around a mention belongs to the sentence: "see @a.png, then (@b.png)."
        let Some(path) = word.trim_start_matches(['(', '"', '\'']).strip_prefix('@') else { continue };
        let path = path.trim_end_matches([',', '.', ';', ':', '!', '?', ')', '"', '\'']);
        if image_media_type(path).is_none() {
            continue;
        }
        // `symlink_metadata`: a dangling link or a FIFO is there, and the session says what is wrong with it.
        if cwd.join(path).symlink_metadata().is_err() {
            return Err(format!("the task mentions @{path}, but there is no such file in {}", cwd.display()));
        }
        input = input.with_image(ImageInput::Path(path.to_owned()));
    }
    Ok(input)
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
        let error = with_mentioned_images("see @gone.png", &dir).unwrap_err();
        assert_eq!(error, format!("the task mentions @gone.png, but there is no such file in {}", dir.display()));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
