//! Builtins about the shell itself: directories, variables, options, tests, waiting, and
//! running other commands (`xargs`, `sh -c`, `env cmd`).

use super::super::parse::{parse, List};
use super::super::{describe, Shell, TIMED_OUT};
use super::{run, Call, NAMES};
use openagent_core::env::EnvError;

pub(super) fn pwd(c: &mut Call) -> i32 {
    let line = format!("{}\n", c.shell.cwd);
    c.out.out(line);
    0
}

pub(super) fn cd(c: &mut Call) -> i32 {
    let target = match c.args {
        [] => c.shell.var("HOME"),
        [dash] if dash == "-" => c.shell.var("OLDPWD"),
        [dir] => dir.clone(),
        _ => return c.fail("too many arguments"),
    };
    let path = match c.shell.resolve(&target) {
        Ok(path) => path,
        Err(err) => return c.fail(format!("{target}: {}", describe(&err))),
    };
    let is_dir = c.shell.tree().get(&path).map(|node| node.is_dir());
    match is_dir {
        Ok(true) => {}
        Ok(false) => return c.fail(format!("{target}: Not a directory")),
        Err(err) => return c.fail(format!("{target}: {}", describe(&err))),
    }
    if c.args.first().is_some_and(|arg| arg == "-") {
        c.out.out(format!("{path}\n"));
    }
    let old = std::mem::replace(&mut c.shell.cwd, path.clone());
    c.shell.vars.insert("OLDPWD".into(), old);
    c.shell.vars.insert("PWD".into(), path);
    0
}

pub(super) fn exit(c: &mut Call) -> i32 {
    let status = match c.args {
        [] => c.shell.status,
        [code] => match code.parse::<i64>() {
            Ok(code) => code.rem_euclid(256) as i32,
            Err(_) => c.fail_with(2, format!("{code}: numeric argument required")),
        },
        _ => return c.fail("too many arguments"),
    };
    c.shell.exit = Some(status);
    status
}

pub(super) fn export(c: &mut Call) -> i32 {
    if c.args.is_empty() || c.args.iter().all(|arg| arg == "-p") {
        list_vars(c, true);
        return 0;
    }
    for arg in c.args {
        match arg.split_once('=') {
            Some((name, value)) => {
                c.shell.vars.insert(name.to_owned(), value.to_owned());
            }
            // Every variable is exported already; naming one changes nothing.
            None if !arg.starts_with('-') => {}
            None => return c.fail_with(2, format!("{arg}: invalid option")),
        }
    }
    0
}

/// Writes the variables one a line: `NAME=value`, or `declare -x NAME="value"` for `export`.
fn list_vars(c: &mut Call, export: bool) {
    let mut listing = String::new();
    for (name, value) in c.shell.vars.iter() {
        listing += &if export { format!("declare -x {name}=\"{value}\"\n") } else { format!("{name}={value}\n") };
    }
    c.out.out(listing);
}

pub(super) fn unset(c: &mut Call) -> i32 {
    for name in c.args.iter().filter(|arg| !matches!(arg.as_str(), "-v" | "-f")) {
        c.shell.vars.remove(name);
    }
    0
}

/// `set -e`, `set -o pipefail`; `-u` and `-x` are accepted and have no effect.
pub(super) fn set(c: &mut Call) -> i32 {
    if c.args.is_empty() {
        list_vars(c, false);
        return 0;
    }
    let mut args = c.args.iter();
    while let Some(arg) = args.next() {
        let on = arg.starts_with('-');
        let Some(letters) = arg.strip_prefix(['-', '+']) else {
            return c.fail_with(2, format!("{arg}: positional parameters are not supported"));
        };
        for letter in letters.chars() {
            match letter {
                'e' => c.shell.errexit = on,
                'u' | 'x' => {}
                'o' => match args.next().map(String::as_str) {
                    Some("pipefail") => c.shell.pipefail = on,
                    Some("errexit") => c.shell.errexit = on,
                    Some("nounset" | "xtrace") => {}
                    other => {
                        let option = other.unwrap_or_default();
                        return c.fail_with(2, format!("-o {option}: not supported (supported: -e, -u, -x, -o pipefail)"));
                    }
                },
                other => return c.fail_with(2, format!("-{other}: not supported (supported: -e, -u, -x, -o pipefail)")),
            }
        }
    }
    0
}

pub(super) fn which(c: &mut Call) -> i32 {
    let mut status = 0;
    for name in c.args.iter().filter(|arg| !arg.starts_with('-')) {
        if NAMES.contains(&name.as_str()) {
            c.out.out(format!("{name}: shell built-in command\n"));
        } else if c.shell.env.host_command(name).is_some() {
            c.out.out(format!("{name}: host command\n"));
        } else {
            status = c.fail(format!("no {name} in the built-in shell"));
        }
    }
    status
}

pub(super) fn test(c: &mut Call) -> i32 {
    let mut args: Vec<&str> = c.args.iter().map(String::as_str).collect();
    if c.name == "[" && args.pop() != Some("]") {
        return c.fail_with(2, "missing `]'");
    }
    match evaluate(c.shell, &args) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(message) => c.fail_with(2, message),
    }
}

fn evaluate(shell: &Shell, args: &[&str]) -> Result<bool, String> {
    match args {
        [] => Ok(false),
        [left, op, right] if is_binary(op) => binary(left, op, right),
        ["!", rest @ ..] => evaluate(shell, rest).map(|result| !result),
        [one] => Ok(!one.is_empty()),
        [op, operand] => unary(shell, op, operand),
        _ => Err("too many arguments (-a, -o and parentheses are not supported; join tests with && and ||)".into()),
    }
}

fn is_binary(op: &str) -> bool {
    matches!(op, "=" | "==" | "!=" | "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge")
}

fn unary(shell: &Shell, op: &str, operand: &str) -> Result<bool, String> {
    let node = || shell.resolve(operand).ok().and_then(|path| shell.tree().get(&path).ok().map(|n| (n.is_dir(), n.size())));
    Ok(match op {
        "-z" => operand.is_empty(),
        "-n" => !operand.is_empty(),
        "-e" | "-r" | "-w" => node().is_some(),
        "-f" => node().is_some_and(|(dir, _)| !dir),
        "-d" => node().is_some_and(|(dir, _)| dir),
        "-s" => node().is_some_and(|(_, size)| size > 0),
        // In-memory files have no execute bits; directories can be entered.
        "-x" => node().is_some_and(|(dir, _)| dir),
        "-L" | "-h" => false,
        _ => return Err(format!("{op}: unary operator expected")),
    })
}

fn binary(left: &str, op: &str, right: &str) -> Result<bool, String> {
    let number = |text: &str| text.trim().parse::<i64>().map_err(|_| format!("{text}: integer expression expected"));
    Ok(match op {
        "=" | "==" => left == right,
        "!=" => left != right,
        _ => {
            let (a, b) = (number(left)?, number(right)?);
            match op {
                "-eq" => a == b,
                "-ne" => a != b,
                "-lt" => a < b,
                "-le" => a <= b,
                "-gt" => a > b,
                _ => a >= b,
            }
        }
    })
}

/// A decimal number of `unit_ms`-millisecond units in whole milliseconds (`1.5` seconds is
/// 1500), without floating point.
fn millis(number: &str, unit_ms: u64) -> Option<u64> {
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits_only = |text: &str| text.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !digits_only(whole) || !digits_only(fraction) {
        return None;
    }
    let whole = whole.bytes().try_fold(0u64, |value, digit| value.checked_mul(10)?.checked_add(u64::from(digit - b'0')))?;
    let (numerator, denominator) =
        fraction.bytes().take(9).fold((0u64, 1u64), |(value, scale), digit| (value * 10 + u64::from(digit - b'0'), scale * 10));
    whole.checked_mul(unit_ms)?.checked_add(numerator * unit_ms / denominator)
}

/// Waits on the runtime's timer (`sleep 1.5`, `sleep 2m`), up to the command's timeout.
pub(super) async fn sleep(c: &mut Call<'_>) -> i32 {
    match duration(c) {
        Ok(ms) if c.shell.sleep(ms).await => 0,
        Ok(_) => TIMED_OUT,
        Err(status) => status,
    }
}

/// The total of `sleep`'s operands in milliseconds, or the status after reporting a bad one.
fn duration(c: &mut Call) -> Result<u64, i32> {
    if c.args.is_empty() {
        return Err(c.fail("missing operand"));
    }
    let mut total_ms = 0u64;
    for arg in c.args {
        let (number, unit) = match arg.char_indices().last() {
            Some((i, unit @ ('s' | 'm' | 'h' | 'd'))) => (&arg[..i], unit),
            _ => (arg.as_str(), 's'),
        };
        let unit_ms = match unit {
            'm' => 60_000,
            'h' => 3_600_000,
            'd' => 86_400_000,
            _ => 1_000,
        };
        match millis(number, unit_ms) {
            Some(ms) => total_ms = total_ms.saturating_add(ms),
            None => return Err(c.fail(format!("invalid time interval '{arg}'"))),
        }
    }
    Ok(total_ms)
}

/// `xargs [-n N] [-I REPLACE] [-r] [-0] [command ...]`: runs a builtin with arguments read
/// from standard input.
pub(super) async fn xargs(c: &mut Call<'_>) -> i32 {
    let commands = match xargs_commands(c) {
        Ok(commands) => commands,
        Err(status) => return status,
    };
    let mut status = 0;
    for argv in commands {
        match run(c.shell, &argv, Vec::new(), c.out).await {
            0 => {}
            127 => return 127,
            _ => status = 123,
        }
        if c.shell.stopped() {
            break;
        }
    }
    status
}

/// The commands `xargs` runs, or the status after reporting a bad option.
fn xargs_commands(c: &mut Call) -> Result<Vec<Vec<String>>, i32> {
    let (mut per_call, mut replace, mut skip_empty, mut nul) = (None, None, false, false);
    let mut args = c.args.iter().peekable();
    while let Some(arg) = args.next_if(|arg| arg.starts_with('-') && arg.len() > 1) {
        let mut value = |inline: &str| if inline.is_empty() { args.next().cloned() } else { Some(inline.to_owned()) };
        match arg.as_str() {
            "--" => break,
            "-r" | "--no-run-if-empty" => skip_empty = true,
            "-0" | "--null" => nul = true,
            _ if arg.starts_with("-n") => match value(&arg[2..]).and_then(|n| n.parse::<usize>().ok()).filter(|n| *n > 0) {
                Some(n) => per_call = Some(n),
                None => return Err(c.fail("-n needs a positive number")),
            },
            _ if arg.starts_with("-I") => match value(&arg[2..]) {
                Some(text) => replace = Some(text),
                None => return Err(c.fail("option requires an argument -- 'I'")),
            },
            _ => return Err(c.fail(format!("invalid option '{arg}' (supported: -n N, -I REPLACE, -r, -0)"))),
        }
    }
    let command: Vec<String> = match args.cloned().collect::<Vec<_>>() {
        command if command.is_empty() => vec!["echo".to_owned()],
        command => command,
    };
    let input = String::from_utf8_lossy(&c.stdin).into_owned();
    let items: Vec<String> = match (&replace, nul) {
        (Some(_), _) => input.lines().map(str::trim_start).filter(|line| !line.is_empty()).map(str::to_owned).collect(),
        (None, true) => input.split('\0').filter(|item| !item.is_empty()).map(str::to_owned).collect(),
        (None, false) => words(&input),
    };
    if items.is_empty() && (skip_empty || replace.is_some()) {
        return Ok(Vec::new());
    }
    Ok(match &replace {
        // One command per line, with REPLACE replaced by the line.
        Some(marker) => items.iter().map(|item| command.iter().map(|arg| arg.replace(marker.as_str(), item)).collect()).collect(),
        // The items appended, -n at a time; without items, the command once.
        None if items.is_empty() => vec![command],
        None => items.chunks(per_call.unwrap_or(usize::MAX)).map(|batch| [command.as_slice(), batch].concat()).collect(),
    })
}

/// Splits xargs input at blanks, honouring quotes and backslashes as xargs does.
fn words(text: &str) -> Vec<String> {
    let (mut words, mut current, mut in_word, mut quote) = (Vec::new(), String::new(), false, None);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c.is_whitespace() => {
                if std::mem::take(&mut in_word) {
                    words.push(std::mem::take(&mut current));
                }
            }
            None => {
                in_word = true;
                match c {
                    '\'' | '"' => quote = Some(c),
                    '\\' => current.extend(chars.next()),
                    _ => current.push(c),
                }
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

/// `sh -c 'commands'`, `sh script.sh`, or commands on standard input, in a subshell.
pub(super) async fn sh(c: &mut Call<'_>) -> i32 {
    match sh_script(c) {
        Ok((list, errexit)) => run_script(c, &list, errexit).await,
        Err(status) => status,
    }
}

/// What `sh` runs and whether with `-e`, or the status after reporting why it cannot.
fn sh_script(c: &mut Call) -> Result<(List, bool), i32> {
    let (mut inline, mut errexit, mut rest) = (false, false, c.args);
    while let Some((flags, tail)) = rest.split_first().and_then(|(arg, tail)| Some((arg.strip_prefix('-')?, tail))) {
        for flag in flags.chars() {
            match flag {
                'c' => inline = true,
                'e' => errexit = true,
                'u' | 'x' => {}
                other => return Err(c.fail_with(2, format!("-{other}: invalid option (supported: -c, -e, -u, -x)"))),
            }
        }
        rest = tail;
    }
    let source = match (inline, rest.first()) {
        (true, Some(command)) => command.clone(),
        (true, None) => return Err(c.fail_with(2, "-c: option requires an argument")),
        (false, Some(script)) => match c.input(script) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(message) => return Err(c.fail_with(127, message)),
        },
        (false, None) => String::from_utf8_lossy(&c.stdin).into_owned(),
    };
    Ok((parse_script(c, &source)?, errexit))
}

/// `./build.sh`: a file run by its path is a shell script (files here have no execute bits).
pub(super) async fn script(c: &mut Call<'_>) -> i32 {
    match path_script(c) {
        Ok(list) => run_script(c, &list, false).await,
        Err(status) => status,
    }
}

/// The script a path names, or the status after reporting why it cannot run: it is missing, or
/// its `#!` line names another interpreter.
fn path_script(c: &mut Call) -> Result<List, i32> {
    let found = c.shell.resolve(c.name).and_then(|path| c.shell.tree().read(&path).map(|content| content.bytes().to_vec()));
    let source = match found {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(err @ EnvError::NotFound(_)) => return Err(c.fail_with(127, describe(&err))),
        Err(err) => return Err(c.fail_with(126, describe(&err))),
    };
    if let Some(interpreter) = source.lines().next().and_then(|line| line.strip_prefix("#!")) {
        let mut words = interpreter.split_whitespace();
        let program = match words.next() {
            Some(env) if env.ends_with("/env") => words.next(),
            program => program,
        };
        let program = program.map_or("sh", |program| program.rsplit('/').next().unwrap_or(program));
        if !matches!(program, "sh" | "bash" | "dash") {
            let message = format!("cannot run a {program} script: only sh and bash scripts run in this environment");
            return Err(c.fail_with(126, message));
        }
    }
    parse_script(c, &source)
}

fn parse_script(c: &mut Call, source: &str) -> Result<List, i32> {
    parse(source).map_err(|message| c.fail_with(2, format!("syntax error: {message}")))
}

/// Runs a script in a subshell.
async fn run_script(c: &mut Call<'_>, list: &List, errexit: bool) -> i32 {
    let saved = c.shell.save();
    c.shell.errexit = errexit;
    c.shell.run_list(list, c.out, None).await;
    c.shell.restore(saved)
}

/// `env` lists the variables; `env NAME=value ... command` runs a builtin with them set.
pub(super) async fn env(c: &mut Call<'_>) -> i32 {
    let split = c.args.iter().position(|arg| !arg.contains('=')).unwrap_or(c.args.len());
    let (assignments, command) = c.args.split_at(split);
    if let Some(option) = command.first().filter(|arg| arg.starts_with('-')) {
        return c.fail(format!("invalid option '{option}'"));
    }
    let previous = c.shell.vars.clone();
    for (name, value) in assignments.iter().filter_map(|arg| arg.split_once('=')) {
        c.shell.vars.insert(name.to_owned(), value.to_owned());
    }
    let status = if command.is_empty() {
        list_vars(c, false);
        0
    } else {
        run(c.shell, command, std::mem::take(&mut c.stdin), c.out).await
    };
    c.shell.vars = previous;
    status
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::super::{env_with, sh};

    #[test]
    fn cd_and_pwd_move_within_a_call() {
        let env = env_with(&[("a/b/f.txt", "")]);
        assert_eq!(
            sh(&env, "cd a/b && pwd && cd .. && pwd && cd - && cd && pwd").0,
            "/workspace/a/b\n/workspace/a\n/workspace/a/b\n/workspace\n"
        );
        assert_eq!(sh(&env, "cd /; ls").0, "tmp\nworkspace\n");
        assert_eq!(sh(&env, "cd nope"), (String::new(), "cd: nope: No such file or directory\n".into(), 1));
        assert_eq!(sh(&env, "cd a/b/f.txt").1, "cd: a/b/f.txt: Not a directory\n");
        assert_eq!(sh(&env, "cd ../..").1, "cd: ../..: it escapes the environment root\n");
        assert_eq!(sh(&env, "cd a && echo $PWD $OLDPWD").0, "/workspace/a /workspace\n");
    }

    #[test]
    fn variables_exit_and_options() {
        let env = env_with(&[]);
        assert_eq!(sh(&env, "export A=1 B; unset C; echo $A; unset A; echo ${A}.").0, "1\n.\n");
        assert!(sh(&env, "export").0.contains("declare -x HOME=\"/workspace\"\n"));
        assert_eq!(sh(&env, "exit nope"), (String::new(), "exit: nope: numeric argument required\n".into(), 2));
        assert_eq!(sh(&env, "false; exit").2, 1);
        assert_eq!(sh(&env, "true; false; :").2, 0);
        assert_eq!(sh(&env, "set -k").1, "set: -k: not supported (supported: -e, -u, -x, -o pipefail)\n");
        assert!(sh(&env, "env").0.contains("USER=agent\n"));
        assert_eq!(sh(&env, "env A=1 B=2 printenv").2, 127);
        assert_eq!(sh(&env, "env GREETING=hi sh -c 'echo $GREETING'; echo ${GREETING}-").0, "hi\n-\n");
    }

    #[test]
    fn which_names_builtins() {
        let env = env_with(&[]);
        assert_eq!(
            sh(&env, "which grep sed"),
            ("grep: shell built-in command\nsed: shell built-in command\n".into(), String::new(), 0)
        );
        assert_eq!(sh(&env, "which python3"), (String::new(), "which: no python3 in the built-in shell\n".into(), 1));
    }

    #[test]
    fn test_checks_files_strings_and_numbers() {
        let env = env_with(&[("f.txt", "x"), ("empty.txt", "")]);
        for (expression, status) in [
            ("-f f.txt", 0),
            ("-f .", 1),
            ("-d .", 0),
            ("-e nope", 1),
            ("-s f.txt", 0),
            ("-s empty.txt", 1),
            ("-z ''", 0),
            ("-n ''", 1),
            ("abc", 0),
            ("''", 1),
            ("a = a", 0),
            ("a != a", 1),
            ("2 -lt 10", 0),
            ("10 -le 2", 1),
            ("3 -eq 3", 0),
            ("! -f nope", 0),
            ("! = !", 0),
            ("", 1),
        ] {
            assert_eq!(sh(&env, &format!("test {expression}")).2, status, "test {expression}");
            assert_eq!(sh(&env, &format!("[ {expression} ]")).2, status, "[ {expression} ]");
        }
        assert_eq!(sh(&env, "[ -f f.txt ] && echo file").0, "file\n");
        assert_eq!(sh(&env, "[ -f f.txt").1, "[: missing `]'\n");
        assert_eq!(sh(&env, "test a -lt 2").1, "test: a: integer expression expected\n");
        assert_eq!(sh(&env, "test -q x").2, 2);
        assert_eq!(sh(&env, "test a = b -o c = c").2, 2);
    }

    #[test]
    fn sleep_reads_decimal_durations() {
        assert_eq!(super::millis("1.5", 1_000), Some(1_500));
        assert_eq!(super::millis(".25", 60_000), Some(15_000));
        assert_eq!(super::millis("2", 1_000), Some(2_000));
        assert_eq!(super::millis("0.0001", 1_000), Some(0));
        for bad in ["", ".", "1.2.3", "-1", "1e3", "99999999999999999999"] {
            assert_eq!(super::millis(bad, 1_000), None, "{bad}");
        }
    }

    #[test]
    fn xargs_runs_builtins_with_arguments_from_input() {
        let env = env_with(&[("a.txt", "needle\n"), ("b.txt", "hay\n"), ("c d.txt", "needle\n")]);
        assert_eq!(sh(&env, "printf 'a.txt\\nb.txt\\n' | xargs grep -l needle").0, "a.txt\n");
        assert_eq!(sh(&env, "echo 'a.txt \"c d.txt\"' | xargs grep -c needle").0, "a.txt:1\nc d.txt:1\n");
        assert_eq!(sh(&env, "echo 1 2 3 | xargs -n 2 echo").0, "1 2\n3\n");
        assert_eq!(sh(&env, "printf 'a.txt\\nb.txt\\n' | xargs -I{} cp {} {}.bak && ls *.bak").0, "a.txt.bak\nb.txt.bak\n");
        assert_eq!(sh(&env, "echo a b | xargs").0, "a b\n");
        assert_eq!(sh(&env, "true | xargs -r echo ran").0, "");
        assert_eq!(sh(&env, "true | xargs echo ran").0, "ran\n");
        assert_eq!(sh(&env, "echo b.txt | xargs grep needle").2, 123);
        assert_eq!(sh(&env, "echo x | xargs nosuch").2, 127);
    }

    #[test]
    fn sh_runs_scripts_in_a_subshell() {
        let env = env_with(&[(
            "build.sh",
            "#!/bin/sh\nset -e\necho building\nmkdir -p out\necho done > out/log\nfalse\necho unreachable\n",
        )]);
        assert_eq!(sh(&env, "bash build.sh; echo status $?; cat out/log").0, "building\nstatus 1\ndone\n");
        assert_eq!(sh(&env, "sh -c 'cd out && exit 4'; echo $? $PWD").0, "4 /workspace\n");
        assert_eq!(sh(&env, "echo 'echo from stdin' | bash").0, "from stdin\n");
        assert_eq!(sh(&env, "bash -c 'if x'").1, "bash: syntax error: `if` is not supported: the built-in shell runs simple commands joined by ;, &&, || and | (no if/for/while/case, functions, subshells or { } groups); run the steps as separate commands or combine them with && and ||\n");
        assert_eq!(sh(&env, "bash missing.sh").2, 127);
    }

    #[test]
    fn scripts_run_by_path() {
        let env = env_with(&[
            ("bin/hello", "#!/usr/bin/env bash\necho hello from $0\n"),
            ("plain.sh", "pwd\n"),
            ("tool.py", "#!/usr/bin/python3\n"),
        ]);
        assert_eq!(sh(&env, "./bin/hello && bin/hello && /workspace/plain.sh").0, "hello from sh\nhello from sh\n/workspace\n");
        assert_eq!(
            sh(&env, "./tool.py"),
            (
                String::new(),
                "./tool.py: cannot run a python3 script: only sh and bash scripts run in this environment\n".into(),
                126
            )
        );
        assert_eq!(sh(&env, "./missing.sh"), (String::new(), "./missing.sh: No such file or directory\n".into(), 127));
        assert_eq!(sh(&env, "./bin").2, 126);
    }
}
