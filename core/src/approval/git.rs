//! The git options an `allow` rule never vouches for. `git log*` is written to allow reading
//! history, but `git log --output=FILE` writes any file, `git -c core.fsmonitor=CMD status` runs
//! a program, and `-C`, `--git-dir` or `--bare` point git at a configuration that may run one.

/// Options between `git` and its command that change neither what git reads nor what it runs.
/// Every other one (`-c`, `-C`, `--git-dir`, `--work-tree`, `--exec-path`, `--bare`, ...) is not
/// vouched for: a list of the safe ones cannot miss one that is added later.
const SAFE_GLOBAL: [&str; 9] = [
    "--no-pager",
    "-P",
    "--no-optional-locks",
    "--no-replace-objects",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--version",
];

/// Long options of git's commands that write a file, run a program or change the configuration.
/// Any prefix of one counts: git's option parser takes abbreviations (`--output-d` for
/// `--output-directory`).
const LONG: [&str; 10] = [
    "output",
    "output-directory",
    "exec",
    "extcmd",
    "upload-pack",
    "receive-pack",
    "open-files-in-pager",
    "config",
    "template",
    "separate-git-dir",
];

/// Short options that do the same, with the command they do it in (`-o` is harmless in
/// `git ls-files`, `-c` in `git log`).
const SHORT: [(&str, u8); 8] = [
    ("format-patch", b'o'),
    ("archive", b'o'),
    ("grep", b'O'),
    ("rebase", b'x'),
    ("difftool", b'x'),
    ("clone", b'u'),
    ("clone", b'c'),
    ("ls-remote", b'u'),
];

/// Whether `command` runs git with an option that writes a file or runs a program, or with a
/// word the shell could expand into one (`*`, `?`, `[`, `{`: a file named `--output=x` is one
/// `*` away). Quotes and backslashes are dropped first, as the shell drops them.
pub(super) fn writes_or_runs(command: &str) -> bool {
    let mut words = command.split_ascii_whitespace();
    if words.next().and_then(|program| program.rsplit('/').next()) != Some("git") {
        return false;
    }
    if command.bytes().any(|b| b"*?[{".contains(&b)) {
        return true;
    }
    let mut subcommand = None;
    for word in words {
        let word = word.replace(['\'', '"', '\\'], "");
        let Some(option) = word.strip_prefix('-') else {
            subcommand = subcommand.or(Some(word));
            continue;
        };
        let Some(sub) = &subcommand else {
            if SAFE_GLOBAL.contains(&word.as_str()) {
                continue;
            }
            return true;
        };
        let hit = match option.strip_prefix('-') {
            Some(long) => {
                let name = long.split('=').next().unwrap_or("");
                !name.is_empty() && LONG.iter().any(|known| known.starts_with(name))
            }
            None => SHORT.iter().any(|(command, letter)| command == sub && option.as_bytes().contains(letter)),
        };
        if hit {
            return true;
        }
    }
    false
}
