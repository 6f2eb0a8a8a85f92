//! A command line that bash would only exec: plain words, the first naming a program on `PATH`.
//! For such a line `bash -c` parses it, finds the program and execs it in its own place, so the
//! program runs with bash's start-up (loading bash, its locale, its variables) as the whole of
//! its cost on top: on this project's machines, half a millisecond of the millisecond and a half
//! `bash -c true` takes. The agent execs such a program itself, with the environment bash would
//! have given it (`PWD`, `SHLVL`, `_`), as GNU make does for a recipe line with no shell syntax.
//!
//! Anything bash would treat otherwise goes to bash: any character with a meaning to the shell
//! (quotes, `$`, globs, `~`, operators, `#`, braces, `\`), a variable assignment, a keyword, a
//! builtin (except `true`, `false` and `echo`, whose programs do what the builtins do for every
//! line let through here but `--help` and `--version`), a program that is not on `PATH` (bash
//! says it is not found), and an environment that bash itself would act on (`BASH_ENV`, exported
//! functions, `SHELLOPTS`, `BASHOPTS`). A program whose exec fails (a script with no `#!` line,
//! which bash runs itself) is run through bash too.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// A line bash would only exec: the program's path as bash finds it, its arguments, and the
/// variables bash would set for it.
pub(super) struct Plain<'a> {
    pub(super) path: String,
    /// The program as the line names it: its `argv[0]`, as bash passes it.
    pub(super) name: &'a str,
    pub(super) args: Vec<&'a str>,
    pub(super) vars: Vec<(OsString, OsString)>,
}

/// Bash's keywords and builtins: each means something to bash that no program on `PATH` does.
/// `true`, `false` and `echo` are not here (see the module's documentation).
const SHELL_WORDS: &[&str] = &[
    "!",
    ".",
    ":",
    "[",
    "[[",
    "]]",
    "{",
    "}",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "case",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "coproc",
    "declare",
    "dirs",
    "disown",
    "do",
    "done",
    "elif",
    "else",
    "enable",
    "esac",
    "eval",
    "exec",
    "exit",
    "export",
    "fc",
    "fg",
    "fi",
    "for",
    "function",
    "getopts",
    "hash",
    "help",
    "history",
    "if",
    "in",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "select",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "then",
    "time",
    "times",
    "trap",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "until",
    "wait",
    "while",
];

/// Variables bash acts on at start-up: with any of them, bash runs the line.
fn bash_acts_on(name: &OsStr) -> bool {
    let name = name.as_bytes();
    matches!(name, b"BASH_ENV" | b"ENV" | b"SHELLOPTS" | b"BASHOPTS") || name.starts_with(b"BASH_FUNC_")
}

/// How deep bash lets `SHLVL` go before it warns and resets it.
const SHLVL_LIMIT: u64 = 999;

impl<'a> Plain<'a> {
    /// `line` as bash would exec it in `dir` with `vars`, or none when bash would do more.
    pub(super) fn of(line: &'a str, dir: &Path, vars: &[(OsString, OsString)]) -> Option<Self> {
        let plain = |c: char| c.is_ascii_alphanumeric() || "_./:,=@%+- \t".contains(c);
        if !line.chars().all(plain) || vars.iter().any(|(name, _)| bash_acts_on(name)) {
            return None;
        }
        let mut words = line.split([' ', '\t']).filter(|word| !word.is_empty());
        let name = words.next()?;
        let args: Vec<&str> = words.collect();
        let twin = matches!(name, "true" | "false" | "echo");
        if name.contains('=')
            || SHELL_WORDS.contains(&name)
            || twin && args.iter().any(|arg| matches!(*arg, "--help" | "--version"))
        {
            return None;
        }
        let var = |wanted: &str| vars.iter().find(|(name, _)| name == wanted).map(|(_, value)| value);
        let path = if name.contains('/') { executable(dir, name)? } else { on_path(dir, name, var("PATH")?)? };
        // Bash raises SHLVL for itself and lowers it again for the program it execs in its place.
        let shlvl = match var("SHLVL").map(|level| level.to_str().and_then(|level| level.parse::<i64>().ok())) {
            Some(Some(level)) if level > SHLVL_LIMIT as i64 => return None,
            Some(Some(level)) if level >= 0 => level.to_string(),
            _ => "0".to_owned(),
        };
        // An inherited PWD naming this directory stays as it is written; otherwise bash sets the
        // directory's physical path.
        let same_dir = |pwd: &OsString| {
            let (Ok(named), Ok(here)) = (std::fs::metadata(pwd), std::fs::metadata(dir)) else { return false };
            Path::new(pwd).is_absolute() && (named.dev(), named.ino()) == (here.dev(), here.ino())
        };
        let pwd = match var("PWD").filter(|pwd| same_dir(pwd)) {
            Some(pwd) => pwd.clone(),
            None => std::fs::canonicalize(dir).ok()?.into_os_string(),
        };
        let mut vars: Vec<_> =
            vars.iter().filter(|(name, _)| !matches!(name.as_bytes(), b"PWD" | b"SHLVL" | b"_")).cloned().collect();
        vars.extend([("PWD".into(), pwd), ("SHLVL".into(), shlvl.into()), ("_".into(), path.clone().into())]);
        Some(Self { path, name, args, vars })
    }
}

/// The first `name` in `path`'s directories that is an executable file, as bash's search finds it
/// (an empty entry is the working directory).
fn on_path(dir: &Path, name: &str, path: &OsStr) -> Option<String> {
    path.as_bytes().split(|&byte| byte == b':').find_map(|entry| {
        let entry = std::str::from_utf8(entry).ok()?;
        executable(dir, &format!("{}/{name}", if entry.is_empty() { "." } else { entry }))
    })
}

/// `path` (relative to `dir` unless absolute) when it is a file its user may execute.
fn executable(dir: &Path, path: &str) -> Option<String> {
    let metadata = std::fs::metadata(dir.join(path)).ok()?;
    // Any execute bit: for a file with some bits but not the user's, exec fails, and the line
    // goes to bash, which says so.
    (metadata.is_file() && metadata.permissions().mode() & 0o111 != 0).then(|| path.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs.iter().map(|(name, value)| (name.into(), value.into())).collect()
    }

    fn plain(line: &str, env: &[(&str, &str)]) -> Option<(String, Vec<String>)> {
        let dir = std::env::temp_dir();
        Plain::of(line, &dir, &vars(env)).map(|plain| (plain.path, plain.args.iter().map(|arg| arg.to_string()).collect()))
    }

    const PATH: (&str, &str) = ("PATH", "/usr/bin:/bin");

    #[test]
    fn plain_words_naming_a_program_are_exec_d_as_bash_would() {
        let (path, args) = plain("ls  -la\t/tmp", &[PATH]).expect("a plain line");
        assert_eq!((path.as_str(), args), ("/usr/bin/ls", vec!["-la".to_owned(), "/tmp".to_owned()]));
        assert_eq!(plain("true", &[PATH]).map(|(path, _)| path).as_deref(), Some("/usr/bin/true"));
        assert_eq!(plain("/bin/true", &[]).map(|(path, _)| path).as_deref(), Some("/bin/true"), "a path needs no PATH");
    }

    #[test]
    fn anything_bash_would_do_more_with_goes_to_bash() {
        for line in [
            "ls *.rs",
            "echo $HOME",
            "ls ~",
            "echo 'a'",
            "echo \"a\"",
            "a && b",
            "ls | wc",
            "ls; ls",
            "ls > x",
            "ls # note",
            "echo {a,b}",
            "echo a\\ b",
            "(ls)",
            "ls &",
            "echo `ls`",
            "echo !x",
            "FOO=1 ls",
            "cd /tmp",
            "export A=1",
            "pwd",
            "printf x",
            "kill 1",
            "test -f x",
            "[ -f x ]",
            "exit 3",
            "source x",
            "if",
            "echo --help",
            "true --version",
            "no-such-program-here",
            "",
            "   ",
            "ls\nls",
        ] {
            assert!(plain(line, &[PATH]).is_none(), "{line:?} goes to bash");
        }
        assert!(plain("ls", &[]).is_none(), "no PATH: bash's own default applies");
        for var in ["BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "BASH_FUNC_ls%%"] {
            assert!(plain("ls", &[PATH, (var, "x")]).is_none(), "bash acts on {var}");
        }
        assert!(plain("ls", &[PATH, ("SHLVL", "1000")]).is_none(), "bash resets a SHLVL too deep, and warns");
    }

    #[test]
    fn the_program_gets_the_variables_bash_would_give_it() {
        let dir = std::env::temp_dir();
        let physical = std::fs::canonicalize(&dir).unwrap().into_os_string();
        let get = |plain: &Plain, name: &str| plain.vars.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
        let run = Plain::of("ls", &dir, &vars(&[PATH, ("PWD", "/"), ("SHLVL", "3"), ("_", "x")])).unwrap();
        assert_eq!(get(&run, "PWD"), Some(physical), "an inherited PWD naming another directory is replaced");
        assert_eq!(get(&run, "SHLVL").as_deref(), Some(OsStr::new("3")));
        assert_eq!(get(&run, "_").as_deref(), Some(OsStr::new("/usr/bin/ls")));
        assert_eq!(run.vars.iter().filter(|(key, _)| key == "_").count(), 1);
        let run = Plain::of("ls", &dir, &vars(&[PATH, ("SHLVL", "x")])).unwrap();
        assert_eq!(get(&run, "SHLVL").as_deref(), Some(OsStr::new("0")), "as bash counts a SHLVL that is not a number");
        let named = dir.to_str().unwrap();
        let run = Plain::of("ls", &dir, &vars(&[PATH, ("PWD", named)])).unwrap();
        assert_eq!(get(&run, "PWD").as_deref(), Some(OsStr::new(named)), "an inherited PWD naming this directory is kept");
    }
}
