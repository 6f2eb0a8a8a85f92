//! The built-in commands, with the flags agents use most. Each takes a [`Call`] and returns its
//! exit status; output and messages follow GNU coreutils so that they read as the model expects.
//!
//! | command | options |
//! |---|---|
//! | `cat` | `-n`; files and `-` (standard input) |
//! | `ls` | `-a -A -l -1 -R -t -S -r -h -d -F`; several paths (one name per line, as when piped) |
//! | `mkdir` `rm` `rmdir` | `mkdir -p`; `rm -r -R -f -d` |
//! | `mv` `cp` `touch` `tee` | `mv -n`; `cp -r -R -a -p -n`; `touch -c`; `tee -a` |
//! | `echo` `printf` | `echo -n -e -E`; `printf` `%s %b %c %d %i %u %x %X %o %f` with flags, width, precision |
//! | `head` `tail` | `-n N`, `-N`, `-c N`, `head -n -N`, `tail -n +N`, `-q -v` |
//! | `wc` `sort` `uniq` | `wc -l -w -c -m`; `sort -r -n -u -f -b -s -k N[,M] -t C -o FILE`; `uniq -c -d -u -i` |
//! | `cut` `tr` | `cut -d C -f LIST`, `-c LIST`, `-s`; `tr SET1 SET2`, `-d -s -c`, ranges and `[:class:]` |
//! | `grep` | `-i -v -c -n -l -L -r -R -H -h -q -s -E -F -G -w -x -o -e -m -A -B -C`, `--include`, `--exclude`, `--exclude-dir` |
//! | `find` | paths, `-name -iname -path -ipath -type f/d -maxdepth -mindepth -empty ! -not -o -print` |
//! | `sed` | `-n -e -E -r -i[SUFFIX]`; addresses `N`, `$`, `/re/`, ranges, `!`; `p d s q = a i c` |
//! | `basename` `dirname` | `basename -a -s` |
//! | `cd` `pwd` `test`/`[` | `cd -`; `test -e -f -d -s -r -w -x -z -n = == != -eq -ne -lt -le -gt -ge !` |
//! | `env` `export` `unset` `set` | `env NAME=value cmd`; `set -e`, `-o pipefail` (`-u`, `-x` accepted, no effect) |
//! | `xargs` `sh` `bash` | `xargs -n N -I R -r -0`; `sh -c CMD`, `sh FILE`, or a script on standard input |
//! | `./script.sh` | any path with a `/` runs as a shell script (unless its `#!` names another interpreter) |
//! | `which` `sleep` `true` `false` `:` `exit` | `sleep` takes `s`, `m`, `h`, `d` suffixes and fractions |
//!
//! Beside them run the host's commands ([`HostCommand`](crate::HostCommand), in `host`).

mod control;
mod files;
mod find;
mod grep;
mod host;
mod pattern;
mod print;
mod sed;
mod text;

use futures::future::LocalBoxFuture;

use super::{describe, Output, Shell};

/// A builtin that finishes without waiting: most of them, as the in-memory files are synchronous.
type Builtin = fn(&mut Call) -> i32;

/// Every builtin, sorted by name as the "command not available" message lists them. `None`
/// marks the few that wait, on the runtime's timer or on commands they run, which [`run`]
/// awaits; the rest are plain functions, called through this table.
const BUILTINS: &[(&str, Option<Builtin>)] = &[
    ("[", Some(control::test)),
    ("basename", Some(text::basename)),
    ("bash", None),
    ("cat", Some(files::cat)),
    ("cd", Some(control::cd)),
    ("cp", Some(files::cp)),
    ("cut", Some(text::cut)),
    ("dirname", Some(text::dirname)),
    ("echo", Some(print::echo)),
    ("env", None),
    ("exit", Some(control::exit)),
    ("export", Some(control::export)),
    ("false", Some(|_| 1)),
    ("find", Some(find::find)),
    ("grep", Some(grep::grep)),
    ("head", Some(text::head)),
    ("ls", Some(files::ls)),
    ("mkdir", Some(files::mkdir)),
    ("mv", Some(files::mv)),
    ("printf", Some(print::printf)),
    ("pwd", Some(control::pwd)),
    ("rm", Some(files::rm)),
    ("rmdir", Some(files::rmdir)),
    ("sed", Some(sed::sed)),
    ("set", Some(control::set)),
    ("sh", None),
    ("sleep", None),
    ("sort", Some(text::sort)),
    ("tail", Some(text::tail)),
    ("tee", Some(files::tee)),
    ("test", Some(control::test)),
    ("touch", Some(files::touch)),
    ("tr", Some(text::tr)),
    ("true", Some(|_| 0)),
    ("uniq", Some(text::uniq)),
    ("unset", Some(control::unset)),
    ("wc", Some(text::wc)),
    ("which", Some(control::which)),
    ("xargs", None),
];

/// Every builtin, as listed in the "command not available" message.
pub(super) const NAMES: [&str; BUILTINS.len()] = {
    let mut names = [""; BUILTINS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = BUILTINS[i].0;
        i += 1;
    }
    names
};

/// One invocation of a builtin.
pub(super) struct Call<'a> {
    pub shell: &'a mut Shell,
    pub name: &'a str,
    pub args: &'a [String],
    pub stdin: Vec<u8>,
    pub out: &'a mut Output,
}

impl Call<'_> {
    /// Reports an error as `name: message` and gives status 1.
    pub fn fail(&mut self, message: impl std::fmt::Display) -> i32 {
        self.fail_with(1, message)
    }

    pub fn fail_with(&mut self, status: i32, message: impl std::fmt::Display) -> i32 {
        self.out.err(format!("{}: {message}\n", self.name));
        status
    }

    /// Parses `args` with [`Flags::parse`], or reports why it cannot (the caller picks the status).
    pub fn flags(&mut self, args: &[String], short: &str, values: &str, long: &[(&str, char)]) -> Option<Flags> {
        Flags::parse(args, short, values, long).map_err(|message| self.fail(message)).ok()
    }

    /// The bytes of an input operand: `-` is standard input, anything else a file.
    pub fn input(&self, operand: &str) -> Result<Vec<u8>, String> {
        if operand == "-" {
            return Ok(self.stdin.clone());
        }
        let path = self.shell.resolve(operand).map_err(|err| format!("{operand}: {}", describe(&err)))?;
        self.shell
            .tree()
            .read(&path)
            .map(|content| content.bytes().to_vec())
            .map_err(|err| format!("{operand}: {}", describe(&err)))
    }

    /// The inputs of a filter: its operands, or standard input when there are none. Unreadable
    /// operands are reported and skipped; the flag says whether any were.
    pub fn inputs(&mut self, operands: &[String]) -> (Vec<(String, Vec<u8>)>, bool) {
        if operands.is_empty() {
            return (vec![("-".to_owned(), std::mem::take(&mut self.stdin))], false);
        }
        let (mut inputs, mut failed) = (Vec::new(), false);
        for operand in operands {
            match self.input(operand) {
                Ok(bytes) => inputs.push((operand.clone(), bytes)),
                Err(message) => {
                    failed = true;
                    self.fail(message);
                }
            }
        }
        (inputs, failed)
    }

    /// The inputs of a filter as one text, each input decoded on its own.
    pub fn text_inputs(&mut self, operands: &[String]) -> (String, bool) {
        let (inputs, failed) = self.inputs(operands);
        (inputs.iter().map(|(_, data)| String::from_utf8_lossy(data)).collect(), failed)
    }
}

/// Runs a builtin; `argv[0]` names it.
pub(super) fn run<'a>(shell: &'a mut Shell, argv: &'a [String], stdin: Vec<u8>, out: &'a mut Output) -> LocalBoxFuture<'a, i32> {
    Box::pin(async move {
        let Some((name, args)) = argv.split_first() else { return 0 };
        let mut call = Call { shell, name, args, stdin, out };
        match name.as_str() {
            "sleep" => control::sleep(&mut call).await,
            "xargs" => control::xargs(&mut call).await,
            "sh" | "bash" => control::sh(&mut call).await,
            "env" => control::env(&mut call).await,
            path if path.contains('/') => control::script(&mut call).await,
            name => match call.shell.env.host_command(name) {
                Some(command) => host::run(&mut call, argv, command).await,
                None => run_now(&mut call),
            },
        }
    })
}

/// Runs a builtin that does not wait, or reports that there is no such command.
fn run_now(c: &mut Call) -> i32 {
    if c.name == ":" {
        return 0;
    }
    match BUILTINS.iter().find(|(name, _)| *name == c.name) {
        Some((_, Some(builtin))) => builtin(c),
        _ => {
            let host = c.shell.env.host_command_names();
            let host = if host.is_empty() { host } else { ["; host commands: ", &host].concat() };
            let message = format!("command not available in this environment (built-in shell: {}{host})", NAMES.join(", "));
            c.fail_with(127, message)
        }
    }
}

/// Whether the shell runs `name` itself: a builtin, `:`, or a path (a script).
pub(crate) fn is_builtin(name: &str) -> bool {
    name == ":" || name.contains('/') || NAMES.contains(&name)
}

/// Short and long options split from operands, getopt style: `-abc` is three flags, a flag in
/// `values` takes the rest of its cluster or the next argument, `--` ends the options and
/// options may follow operands (as GNU tools allow).
pub(super) struct Flags {
    pub set: Vec<(char, String)>,
    pub operands: Vec<String>,
}

impl Flags {
    /// `flags` and `values` list the short options; `long` maps long names onto them.
    pub fn parse(args: &[String], flags: &str, values: &str, long: &[(&str, char)]) -> Result<Self, String> {
        let (mut set, mut operands) = (Vec::new(), Vec::new());
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            if arg == "--" {
                operands.extend(args.cloned());
                break;
            }
            if let Some(option) = arg.strip_prefix("--") {
                let (name, inline) = match option.split_once('=') {
                    Some((name, value)) => (name, Some(value.to_owned())),
                    None => (option, None),
                };
                let &(_, flag) = long
                    .iter()
                    .find(|(long_name, _)| *long_name == name)
                    .ok_or_else(|| format!("unrecognized option '--{name}'"))?;
                let value = match (values.contains(flag), inline) {
                    (true, Some(value)) => value,
                    (true, None) => args.next().cloned().ok_or_else(|| format!("option '--{name}' requires an argument"))?,
                    (false, _) => String::new(),
                };
                set.push((flag, value));
                continue;
            }
            match arg.strip_prefix('-') {
                Some(cluster) if !cluster.is_empty() => {
                    for (i, flag) in cluster.char_indices() {
                        if values.contains(flag) {
                            let rest = &cluster[i + flag.len_utf8()..];
                            let value = if rest.is_empty() { args.next().cloned() } else { Some(rest.to_owned()) };
                            set.push((flag, value.ok_or_else(|| format!("option requires an argument -- '{flag}'"))?));
                            break;
                        }
                        if !flags.contains(flag) {
                            return Err(format!("invalid option -- '{flag}'"));
                        }
                        set.push((flag, String::new()));
                    }
                }
                _ => operands.push(arg.clone()),
            }
        }
        Ok(Self { set, operands })
    }

    pub fn has(&self, flag: char) -> bool {
        self.set.iter().any(|(f, _)| *f == flag)
    }

    /// The last value given to a flag.
    pub fn value(&self, flag: char) -> Option<&str> {
        self.set.iter().rev().find(|(f, _)| *f == flag).map(|(_, value)| value.as_str())
    }

    /// Every value given to a flag, in order.
    pub fn values(&self, flag: char) -> impl Iterator<Item = &str> {
        self.set.iter().filter(move |(f, _)| *f == flag).map(|(_, value)| value.as_str())
    }
}

/// Splits text into lines that keep their `\n`.
pub(super) fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split_inclusive(|b| *b == b'\n')
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_flag_clusters_values_and_long_options() {
        let flags = Flags::parse(
            &args(&["-rn", "-e", "x", "pat", "--include=*.rs", "-m3", "--", "-v"]),
            "rnv",
            "emI",
            &[("include", 'I')],
        )
        .unwrap();
        assert!(flags.has('r') && flags.has('n') && !flags.has('v'));
        assert_eq!(flags.value('e'), Some("x"));
        assert_eq!(flags.value('m'), Some("3"));
        assert_eq!(flags.value('I'), Some("*.rs"));
        assert_eq!(flags.operands, ["pat", "-v"]);
        assert_eq!(Flags::parse(&args(&["-z"]), "a", "", &[]).err().unwrap(), "invalid option -- 'z'");
        assert!(Flags::parse(&args(&["--nope"]), "a", "", &[]).is_err());
        assert!(Flags::parse(&args(&["-e"]), "", "e", &[]).is_err());
        assert_eq!(Flags::parse(&args(&["-"]), "", "", &[]).unwrap().operands, ["-"]);
    }

    #[test]
    fn every_listed_builtin_runs() {
        let mut sorted = NAMES.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, NAMES, "NAMES is kept sorted for the error message");
        let env = super::super::env_with(&[]);
        for name in NAMES {
            assert_ne!(super::super::sh(&env, name).2, 127, "{name} is listed but not dispatched");
        }
    }
}
