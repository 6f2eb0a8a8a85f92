//! `LocalEnvironment` on temporary directories: files (and their guards: the workspace boundary,
//! reads of regular files only, within a byte cap), search, commands, variables, timeouts
//! and cancellation.

use std::cell::RefCell;
use std::ffi::CString;
use std::future::Future;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::pin::pin;
use std::rc::Rc;
use std::sync::mpsc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::executor::block_on;
use openagent_core::env::{EnvError, ExecOptions, ExecResult, ExecutionEnvironment, GrepOptions};
use openagent_core::tools::{ReadFileTool, ToolContext, ToolExecutor};
use openagent_host::{EnvPass, EnvPolicy, LocalEnvironment};
use serde_json::json;

use openagent_tests::processes::{assert_no_survivor, sleepers, TempDir};

fn exec(env: &LocalEnvironment, command: &str, timeout_ms: u64) -> ExecResult {
    block_on(env.exec_command(command, &ExecOptions { timeout_ms, ..ExecOptions::default() })).unwrap()
}

#[test]
fn reads_writes_and_reports_errors_like_the_memory_environment() {
    let dir = TempDir::new();
    let env = dir.env();
    assert_eq!(env.working_directory(), dir.0.display().to_string());
    block_on(env.write_file("a/b/c.txt", "one\ntwo\r\nthree\nfour")).unwrap();
    assert!(block_on(env.stat("a/b")).unwrap().is_dir);
    let read = |offset, limit| block_on(env.read_file("a/b/c.txt", offset, limit)).unwrap();
    assert_eq!(read(None, None), "one\ntwo\r\nthree\nfour");
    assert_eq!(read(Some(2), Some(2)), "two\r\nthree\n");
    assert_eq!(read(Some(3), None), "three\nfour");
    let absolute = dir.0.join("a/b/c.txt").display().to_string();
    assert_eq!(block_on(env.read_file(&absolute, None, Some(1))).unwrap(), "one\n");
    assert_eq!(block_on(env.read_file("a/../a/./b/c.txt", Some(4), None)).unwrap(), "four");

    let info = block_on(env.stat("a/b/c.txt")).unwrap();
    assert_eq!((info.is_dir, info.size), (false, 19));
    assert!(info.modified_ms.is_some_and(|ms| ms > 1_600_000_000_000));

    assert!(matches!(block_on(env.read_file("nope", None, None)), Err(EnvError::NotFound(_))));
    assert!(matches!(block_on(env.read_file("a", None, None)), Err(EnvError::IsADirectory(_))));
    assert!(matches!(block_on(env.write_file("a", "x")), Err(EnvError::IsADirectory(_))));
    let through = block_on(env.write_file("a/b/c.txt/d", "x")).unwrap_err();
    assert_eq!(through, EnvError::NotADirectory(absolute.clone()));
    assert!(matches!(block_on(env.read_file("", None, None)), Err(EnvError::InvalidPath { .. })));
    assert!(matches!(block_on(env.remove_file("a")), Err(EnvError::IsADirectory(_))));
    block_on(env.remove_file("a/b/c.txt")).unwrap();
    assert!(!block_on(env.file_exists("a/b/c.txt")));
    assert!(matches!(block_on(env.remove_file("a/b/c.txt")), Err(EnvError::NotFound(_))));
}

#[test]
fn detects_binary_files_lists_directories_and_scopes() {
    let dir = TempDir::new();
    let env = dir.env();
    std::fs::write(dir.0.join("nul.bin"), b"a\0b").unwrap();
    std::fs::write(dir.0.join("latin1.txt"), [b'c', 0xe9]).unwrap();
    for path in ["nul.bin", "latin1.txt"] {
        assert!(matches!(block_on(env.read_file(path, None, None)), Err(EnvError::BinaryFile(_))), "{path}");
    }
    assert_eq!(block_on(env.read_bytes("nul.bin")).unwrap(), b"a\0b");
    block_on(env.write_file("src/util/mod.rs", "")).unwrap();
    let names =
        |depth| -> Vec<String> { block_on(env.list_directory(".", depth)).unwrap().into_iter().map(|e| e.name).collect() };
    assert_eq!(names(1), ["latin1.txt", "nul.bin", "src"]);
    assert_eq!(names(3), ["latin1.txt", "nul.bin", "src", "src/util", "src/util/mod.rs"]);
    let listed = block_on(env.list_directory("src", 0)).unwrap();
    assert_eq!((listed[0].name.as_str(), listed[0].is_dir, listed[0].size), ("util", true, None));
    assert!(matches!(block_on(env.list_directory("nul.bin", 1)), Err(EnvError::NotADirectory(_))));
    assert!(LocalEnvironment::new(dir.0.join("nul.bin")).is_err());

    let scoped = env.scoped("src").unwrap();
    assert_eq!(scoped.working_directory(), dir.0.join("src").display().to_string());
    assert!(block_on(scoped.file_exists("util/mod.rs")));
    assert!(env.scoped("missing").is_err());
    assert_eq!(env.platform(), std::env::consts::OS);
    assert!(env.os_version().starts_with(std::env::consts::OS));
}

#[test]
fn canonical_paths_follow_links_fold_dots_and_resolve_a_missing_tail_through_what_exists() {
    let dir = TempDir::new();
    let env = dir.env();
    let root = std::fs::canonicalize(&dir.0).unwrap().display().to_string();
    std::fs::create_dir_all(dir.0.join("secrets")).unwrap();
    std::fs::write(dir.0.join("secrets/key"), "k").unwrap();
    symlink("secrets", dir.0.join("alias")).unwrap();
    symlink("nowhere", dir.0.join("gone")).unwrap();
    let canonical = |path: &str| block_on(env.canonical_path(path));
    assert_eq!(canonical(".").unwrap(), root);
    assert_eq!(canonical("docs/../alias/key").unwrap(), format!("{root}/secrets/key"));
    assert_eq!(canonical("alias/new/file").unwrap(), format!("{root}/secrets/new/file"), "not there yet");
    assert_eq!(canonical("alias/new/..").unwrap(), format!("{root}/secrets"), "`..` folded by name, then the link");
    let reason = canonical("gone/x").unwrap_err().to_string();
    assert!(reason.contains("symlink to a missing target"), "{reason}");
}

#[test]
fn grep_honours_gitignore_and_skips_binary_files() {
    let dir = TempDir::new();
    let env = dir.env();
    for (path, text) in [
        (".gitignore", "target/\n*.log\n"),
        ("src/main.rs", "fn main() {\n    println!(\"Hello\");\n}\n"),
        ("src/lib.rs", "// hello\n"),
        ("target/out.rs", "hello ignored\n"),
        ("debug.log", "hello ignored\n"),
        ("README.md", "# hello\n"),
    ] {
        block_on(env.write_file(path, text)).unwrap();
    }
    std::fs::write(dir.0.join("bin.dat"), b"hello\0binary").unwrap();
    let grep = |pattern, path, filter: Option<&str>, case_insensitive, max| {
        let options = GrepOptions { glob_filter: filter.map(Into::into), case_insensitive, max_results: max };
        block_on(env.grep(pattern, path, &options)).unwrap()
    };
    assert_eq!(
        grep("hello", ".", None, true, 100),
        "README.md:1:# hello\nsrc/lib.rs:1:// hello\nsrc/main.rs:2:    println!(\"Hello\");"
    );
    assert_eq!(grep("hello", ".", None, false, 100), "README.md:1:# hello\nsrc/lib.rs:1:// hello");
    assert_eq!(grep("hello", ".", Some("*.rs"), true, 1), "src/lib.rs:1:// hello");
    assert_eq!(grep("hello", "src/main.rs", None, true, 9), "src/main.rs:2:    println!(\"Hello\");");
    assert_eq!(grep("nothing", ".", None, false, 9), "");
    let scoped = env.scoped("src").unwrap();
    assert_eq!(block_on(scoped.grep("fn", ".", &GrepOptions::default())).unwrap(), "main.rs:1:fn main() {");
    assert!(matches!(block_on(env.grep("(", ".", &GrepOptions::default())), Err(EnvError::InvalidPattern { .. })));
}

#[test]
fn grep_answers_as_a_search_line_by_line_and_file_by_file_whatever_the_limit() {
    let dir = TempDir::new();
    let env = dir.env();
    // Enough files for every core to search some, in an order that is not the walk's.
    for i in (0..300).rev() {
        block_on(env.write_file(&format!("many/f{i:03}.txt"), &format!("foo {i}\nbar\nfoo again {i}\n"))).unwrap();
    }
    for (path, text) in [("a/b.txt", "foo\n"), ("a.txt", "foo\n"), ("crlf.txt", "foo\r\nbar foo\r\n")] {
        block_on(env.write_file(path, text)).unwrap();
    }
    let grep = |pattern: &str, max_results| {
        block_on(env.grep(pattern, ".", &GrepOptions { max_results, ..GrepOptions::default() })).unwrap()
    };
    let all = grep("foo", usize::MAX);
    let lines: Vec<&str> = all.lines().collect();
    // Component by component: the directory `a` before `a.txt`.
    assert_eq!(lines[..4], ["a/b.txt:1:foo", "a.txt:1:foo", "crlf.txt:1:foo", "crlf.txt:2:bar foo"]);
    assert_eq!((lines.len(), lines[4], lines[603]), (604, "many/f000.txt:1:foo 0", "many/f299.txt:3:foo again 299"));
    for limit in [1, 7, 450] {
        assert_eq!(grep("foo", limit), lines[..limit].join("\n"), "limit {limit}");
    }
    // A line is matched without its ending, whatever the pattern says of line breaks and ends.
    assert_eq!(grep("foo$", 9), "a/b.txt:1:foo\na.txt:1:foo\ncrlf.txt:1:foo\ncrlf.txt:2:bar foo");
    assert_eq!(grep(r"(?-m)foo$", 9), grep("foo$", 9));
    assert_eq!(grep(r"foo\n", 9), "");
    assert_eq!(grep(r"\r", 9), "");
}

#[test]
fn glob_lists_newest_first() {
    let dir = TempDir::new();
    let env = dir.env();
    for path in ["old.rs", "src/mid.rs", "src/new.rs", "notes.md", "target/x.rs"] {
        block_on(env.write_file(path, "x")).unwrap();
    }
    block_on(env.write_file(".gitignore", "target\n")).unwrap();
    let set = |path: &str, secs| {
        let file = std::fs::File::options().write(true).open(dir.0.join(path)).unwrap();
        file.set_modified(std::time::UNIX_EPOCH + Duration::from_secs(secs)).unwrap();
    };
    set("old.rs", 1_000);
    set("src/mid.rs", 2_000);
    set("src/new.rs", 3_000);
    assert_eq!(block_on(env.glob("**/*.rs", ".")).unwrap(), ["src/new.rs", "src/mid.rs", "old.rs"]);
    assert_eq!(block_on(env.glob("*.rs", ".")).unwrap(), ["old.rs"]);
    assert_eq!(block_on(env.glob("*.rs", "src")).unwrap(), ["src/new.rs", "src/mid.rs"]);
    assert!(matches!(block_on(env.glob("", ".")), Err(EnvError::InvalidPattern { .. })));
    assert!(matches!(block_on(env.glob("*", "old.rs")), Err(EnvError::NotADirectory(_))));
}

#[test]
fn runs_commands_with_separate_streams_and_exit_codes() {
    let dir = TempDir::new();
    let env = dir.env();
    block_on(env.write_file("sub/f.txt", "hi")).unwrap();
    let result = exec(&env, "echo out; echo err >&2; exit 3", 0);
    assert_eq!(
        (result.stdout.as_str(), result.stderr.as_str(), result.exit_code, result.timed_out),
        ("out\n", "err\n", 3, false)
    );
    assert_eq!(exec(&env, "kill -KILL $$", 0).exit_code, 128 + 9, "killed by a signal: 128 + its number");
    let real_dir = std::fs::canonicalize(&dir.0).unwrap().display().to_string();
    assert_eq!(exec(&env, "pwd -P", 10_000).stdout.trim(), real_dir);
    let streamed = Rc::new(RefCell::new(Vec::new()));
    let sink = streamed.clone();
    let options = ExecOptions {
        timeout_ms: 10_000,
        working_dir: Some("sub".into()),
        env_vars: Some([("GREETING".to_owned(), "hello".to_owned())].into_iter().collect()),
        on_output: Some(Rc::new(move |text: &str| sink.borrow_mut().push(text.to_owned()))),
        sandbox: None,
    };
    let result = block_on(env.exec_command("cat f.txt; echo; echo $GREETING", &options)).unwrap();
    assert_eq!(result.stdout, "hi\nhello\n");
    assert_eq!(streamed.borrow().concat(), "hi\nhello\n");
    let missing = ExecOptions { working_dir: Some("missing".into()), ..options };
    assert!(block_on(env.exec_command("true", &missing)).is_err());
}

#[test]
fn a_plain_line_run_without_bash_behaves_as_bash_would_run_it() {
    let dir = TempDir::new();
    let env = dir.env();
    // `env` is exec'd directly; quoted, the same line goes through bash, which execs it in its
    // own place: the program must see the same variables either way (but each command's marker).
    let sorted = |text: String| {
        let mut lines: Vec<String> =
            text.lines().filter(|line| !line.starts_with("OPENAGENT_COMMAND_ID=")).map(str::to_owned).collect();
        lines.sort();
        lines
    };
    let direct = exec(&env, "env", 10_000);
    let through_bash = exec(&env, "'env'", 10_000);
    assert_eq!((direct.exit_code, through_bash.exit_code), (0, 0));
    assert_eq!(sorted(direct.stdout), sorted(through_bash.stdout));
    // Under the name the line calls it by, as bash passes it, not the path bash found it at.
    assert_eq!(exec(&env, "cat /proc/self/cmdline", 10_000).stdout, "cat\0/proc/self/cmdline\0");
    assert_eq!(exec(&env, "'cat' /proc/self/cmdline", 10_000).stdout, "cat\0/proc/self/cmdline\0");
    let missing = exec(&env, "no-such-program-anywhere --flag", 10_000);
    assert_eq!(missing.exit_code, 127, "not on PATH: bash says so, as ever");
    assert!(missing.stderr.contains("command not found"), "{}", missing.stderr);
    // A script with no #! line cannot be exec'd; bash runs such a file itself.
    std::fs::write(dir.0.join("script"), "echo from the script\n").unwrap();
    std::fs::set_permissions(dir.0.join("script"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = exec(&env, "./script", 10_000);
    assert_eq!((script.stdout.as_str(), script.exit_code), ("from the script\n", 0));
}

#[test]
fn a_command_exec_cannot_take_is_refused_with_the_reason() {
    let dir = TempDir::new();
    let env = dir.env();
    let options = ExecOptions { timeout_ms: 10_000, ..ExecOptions::default() };
    let error = block_on(env.exec_command("echo a\0b", &options)).unwrap_err();
    assert!(error.to_string().contains("could not start"), "{error}");
    let error = block_on(env.exec_program("no-such-program-anywhere", &[], &options)).unwrap_err();
    assert!(error.to_string().contains("no-such-program-anywhere"), "{error}");
    // The environment still runs commands after both.
    assert_eq!(exec(&env, "echo still", 10_000).stdout, "still\n");
}

#[test]
fn commands_get_core_variables_and_what_is_passed_never_a_secret_by_pattern() {
    // Set for this test binary only; no other test reads them. Every suffix, in any case.
    let secrets = [
        "OPENAGENT_TEST_API_KEY",
        "openagent_test_my_api_key",
        "OPENAGENT_TEST_TOKEN",
        "OpenAgent_Test_Secret",
        "OPENAGENT_TEST_PASSWORD",
        "openagent_test_credential",
    ];
    for name in secrets {
        std::env::set_var(name, "sk-secret");
    }
    std::env::set_var("OPENAGENT_TEST_PLAIN", "visible");
    let dir = TempDir::new();
    // By default only the core variables: no secret, and no other variable either.
    let printed = exec(&dir.env(), "env", 10_000).stdout;
    assert!(!printed.contains("sk-secret") && !printed.contains("OPENAGENT_TEST_PLAIN"), "{printed}");
    for name in ["PATH", "HOME", "USER", "LANG", "TERM", "TMPDIR", "CARGO_HOME", "RUSTUP_HOME"] {
        if let Ok(value) = std::env::var(name) {
            assert!(printed.lines().any(|line| line == format!("{name}={value}")), "{name} is missing:\n{printed}");
        }
    }
    assert!(printed.lines().any(|line| line.starts_with("PATH=")));
    // Inheriting everything still leaves out every secret, whatever its spelling.
    let all = exec(&dir.env().with_env_policy(EnvPolicy::InheritAll), "env", 10_000).stdout;
    assert!(!all.contains("sk-secret"), "{all}");
    for name in secrets {
        assert!(!all.contains(name), "{name} reached the command:\n{all}");
    }
    assert!(all.contains("OPENAGENT_TEST_PLAIN=visible"));
    // A variable passed by name is there, a secret too when named exactly, not by a pattern.
    let pass = EnvPass::new(["OPENAGENT_TEST_*", "OPENAGENT_TEST_TOKEN"]);
    let passed = exec(&dir.env().with_env_pass(pass), "env", 10_000).stdout;
    assert!(passed.contains("OPENAGENT_TEST_PLAIN=visible") && passed.contains("OPENAGENT_TEST_TOKEN=sk-secret"), "{passed}");
    assert!(!passed.contains("OPENAGENT_TEST_API_KEY") && !passed.contains("OPENAGENT_TEST_PASSWORD"), "{passed}");
    let clean = exec(&dir.env().with_env_policy(EnvPolicy::None), "env", 10_000).stdout;
    assert!(!clean.contains("OPENAGENT_TEST_PLAIN") && !clean.contains("HOME="), "{clean}");
}

// Inside its PID namespace a command's pids are its own (`$$` is 2): the processes are found by
// their unique sleep durations instead.

#[test]
fn a_timeout_kills_the_whole_group_and_keeps_partial_output() {
    let dir = TempDir::new();
    let started = Instant::now();
    let result = exec(&dir.env(), "echo started; sleep 30.201 & sleep 30.202", 1_000);
    let elapsed = started.elapsed();
    assert!(result.timed_out && result.exit_code == 124, "{result:?}");
    assert!(elapsed < Duration::from_millis(3_500), "{elapsed:?}");
    assert!(result.duration_ms >= 1_000);
    assert_eq!(result.stdout, "started\n", "{result:?}");
    assert_no_survivor("30.201");
    assert_no_survivor("30.202");
}

#[test]
fn a_command_that_ignores_sigterm_is_killed_after_the_grace_period() {
    let dir = TempDir::new();
    let started = Instant::now();
    let result = exec(&dir.env(), "trap '' TERM; sleep 30.203", 500);
    assert!(result.timed_out);
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(2_400) && elapsed < Duration::from_secs(5), "{elapsed:?}");
    assert_no_survivor("30.203");
}

#[test]
fn dropping_the_future_kills_the_command() {
    let dir = TempDir::new();
    let env = dir.env();
    let options = ExecOptions { timeout_ms: 60_000, ..ExecOptions::default() };
    {
        let mut future = pin!(env.exec_command("exec sleep 30.204", &options));
        let mut cx = Context::from_waker(futures::task::noop_waker_ref());
        let until = Instant::now() + Duration::from_secs(5);
        while sleepers("30.204").is_empty() && Instant::now() < until {
            assert!(matches!(future.as_mut().poll(&mut cx), Poll::Pending));
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(sleepers("30.204").len(), 1, "the command started");
    }
    let until = Instant::now() + Duration::from_secs(3);
    while !sleepers("30.204").is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_no_survivor("30.204");
}

/// A working directory `work/` beside an `outside/` holding `victim.txt`, with `work/link`
/// pointing at `outside/`.
fn workspace() -> (TempDir, LocalEnvironment) {
    let dir = TempDir::new();
    std::fs::create_dir_all(dir.0.join("work")).unwrap();
    std::fs::create_dir_all(dir.0.join("outside")).unwrap();
    std::fs::write(dir.0.join("outside/victim.txt"), "precious\n").unwrap();
    symlink(dir.0.join("outside"), dir.0.join("work/link")).unwrap();
    let env = LocalEnvironment::new(dir.0.join("work")).unwrap();
    (dir, env)
}

fn refused(result: Result<(), EnvError>, path_shown: &str) -> String {
    match result {
        Err(EnvError::InvalidPath { path, reason }) => {
            assert!(path.ends_with(path_shown), "{path} names {path_shown}");
            reason
        }
        other => panic!("{path_shown}: expected a refusal, got {other:?}"),
    }
}

#[test]
fn writes_and_deletes_outside_the_working_directory_are_refused() {
    let (dir, env) = workspace();
    let work = dir.0.join("work").display().to_string();
    let victim = dir.0.join("outside/victim.txt");
    let absolute = dir.0.join("outside/new.txt").display().to_string();

    let reason = refused(block_on(env.write_file("../outside/new.txt", "x")), "outside/new.txt");
    assert!(reason.contains(&format!("outside the working directory {work}")), "{reason}");
    refused(block_on(env.write_file(&absolute, "x")), "outside/new.txt");
    let reason = refused(block_on(env.write_file("link/new.txt", "x")), "work/link/new.txt");
    assert!(reason.contains("it resolves to") && reason.contains("outside/new.txt"), "{reason}");
    refused(block_on(env.write_file("link/victim.txt", "x")), "work/link/victim.txt");
    refused(block_on(env.remove_file("../outside/victim.txt")), "outside/victim.txt");
    refused(block_on(env.remove_file("link/victim.txt")), "work/link/victim.txt");

    // A symlinked file that points out is refused too, and so is a dangling one, whose target
    // would be created.
    symlink(&victim, dir.0.join("work/victim_link.txt")).unwrap();
    refused(block_on(env.write_file("victim_link.txt", "x")), "work/victim_link.txt");
    symlink(dir.0.join("outside/made.txt"), dir.0.join("work/dangling.txt")).unwrap();
    let reason = refused(block_on(env.write_file("dangling.txt", "x")), "work/dangling.txt");
    assert!(reason.contains("symlink to a missing target"), "{reason}");
    assert!(env.scoped("../outside").is_err() && env.scoped("link").is_err());

    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    let outside: Vec<_> = std::fs::read_dir(dir.0.join("outside")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(outside, ["victim.txt"]);

    // Deleting a link inside deletes the link, not what it points to.
    block_on(env.remove_file("victim_link.txt")).unwrap();
    assert!(victim.exists());
}

#[test]
fn writes_inside_follow_inner_symlinks_and_keep_permissions() {
    let (dir, env) = workspace();
    block_on(env.write_file("sub/../a.txt", "a\n")).unwrap();
    symlink(dir.0.join("work/a.txt"), dir.0.join("work/alias.txt")).unwrap();
    block_on(env.write_file("alias.txt", "through the alias\n")).unwrap();
    assert_eq!(std::fs::read_to_string(dir.0.join("work/a.txt")).unwrap(), "through the alias\n");
    assert!(std::fs::symlink_metadata(dir.0.join("work/alias.txt")).unwrap().file_type().is_symlink());

    let script = dir.0.join("work/run.sh");
    std::fs::write(&script, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o750)).unwrap();
    block_on(env.write_file("run.sh", "#!/bin/sh\necho hi\n")).unwrap();
    assert_eq!(std::fs::metadata(&script).unwrap().permissions().mode() & 0o777, 0o750);
    // Staged files never stay behind.
    let names: Vec<_> = std::fs::read_dir(dir.0.join("work")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
}

/// Runs `read` on another thread and waits for it: a read that blocks would otherwise hang the
/// test instead of failing it.
fn returns<T: Send + 'static>(read: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || send.send(read()));
    receive.recv_timeout(Duration::from_secs(60)).expect("the read returned instead of blocking")
}

#[test]
fn fifos_and_devices_are_refused_without_being_opened() {
    let dir = TempDir::new();
    let fifo = dir.0.join("pipe");
    let name = CString::new(fifo.display().to_string()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path it is given.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let root = dir.0.clone();
    let (text, bytes) = returns(move || {
        let env = LocalEnvironment::new(root).unwrap();
        (block_on(env.read_file("pipe", None, None)), block_on(env.read_bytes("pipe")))
    });
    for result in [text.map(|_| ()), bytes.map(|_| ())] {
        let reason = refused(result, "pipe");
        assert!(reason.contains("a FIFO (named pipe)") && reason.contains("only regular files are read"), "{reason}");
    }

    let root = dir.0.clone();
    let grep = returns(move || block_on(LocalEnvironment::new(root).unwrap().grep("x", "pipe", &GrepOptions::default())));
    assert!(refused(grep.map(|_| ()), "pipe").contains("a FIFO (named pipe)"));

    let env = dir.env();
    let zero = returns(|| block_on(LocalEnvironment::new("/").unwrap().read_file("/dev/zero", Some(1), Some(10))));
    assert!(refused(zero.map(|_| ()), "/dev/zero").contains("a character device"));
    assert!(refused(block_on(env.read_bytes("/dev/zero")).map(|_| ()), "/dev/zero").contains("a character device"));
    // `/proc` files claim size 0 and stream: they are regular files, read within the cap.
    assert!(block_on(env.read_file("/proc/self/status", None, None)).unwrap().contains("Pid:"));
}

/// Bytes this thread has read through `read(2)` and kin.
fn bytes_read_by_this_thread() -> u64 {
    let io = std::fs::read_to_string("/proc/thread-self/io").unwrap();
    io.lines().find_map(|line| line.strip_prefix("rchar: ")).unwrap().parse().unwrap()
}

#[test]
fn ten_lines_of_a_huge_file_read_only_what_they_need() {
    let dir = TempDir::new();
    let path = dir.0.join("huge.log");
    let lines: String = (1..=1000).map(|n| format!("line {n}\n")).collect();
    std::fs::write(&path, &lines).unwrap();
    // Sparse: 500 MB that take no disk.
    std::fs::File::options().write(true).open(&path).unwrap().set_len(500 * 1024 * 1024).unwrap();
    let env = dir.env();
    let ctx = ToolContext::new(&env, 0, 0);

    let before = bytes_read_by_this_thread();
    let out = block_on(ReadFileTool.execute(&json!({"file_path": "huge.log", "offset": 990, "limit": 10}), &ctx)).unwrap();
    let read = bytes_read_by_this_thread() - before;
    assert!(out.text.starts_with(" 990 | line 990\n") && out.text.contains("999 | line 999\n"), "{}", out.text);
    assert!(out.text.ends_with("[Showing lines 990-999; the file goes on. Use offset=1000 to read more.]"));
    assert!(read < 1024 * 1024, "a 10-line read read {read} bytes");

    let before = bytes_read_by_this_thread();
    let whole = block_on(env.read_file("huge.log", None, None)).unwrap_err().to_string();
    assert!(whole.contains("huge.log: it has 524288000 bytes, more than the 16 MiB one read may return"), "{whole}");
    assert!(whole.contains("offset and limit"), "{whole}");
    assert!(block_on(env.read_bytes("huge.log")).is_err());
    assert!(bytes_read_by_this_thread() - before < 1024 * 1024);
}

#[test]
fn output_without_end_is_kept_to_a_cap_and_the_rest_counted() {
    let dir = TempDir::new();
    // 40 MB without a newline: before, one line grew without bound and came after the result.
    let result = exec(&dir.env(), "head -c 40000000 /dev/zero | tr '\\0' a", 60_000);
    assert_eq!((result.exit_code, result.timed_out), (0, false));
    let kept = 16 * 1024 * 1024;
    assert!(result.stdout.starts_with(&"a".repeat(kept)), "{} bytes kept", result.stdout.len());
    assert!(
        result.stdout.ends_with(&format!(
            "\n[{} more bytes of output were dropped: the first {kept} bytes are kept]\n",
            40_000_000 - kept
        )),
        "{:?}",
        &result.stdout[kept..]
    );
}

#[test]
fn fast_output_streams_a_piece_per_read_not_a_delta_per_line() {
    let dir = TempDir::new();
    let pieces = Rc::new(RefCell::new(Vec::new()));
    let sink = pieces.clone();
    let options = ExecOptions {
        timeout_ms: 60_000,
        on_output: Some(Rc::new(move |text: &str| sink.borrow_mut().push(text.to_owned()))),
        ..ExecOptions::default()
    };
    let result = block_on(dir.env().exec_command("yes | head -n 200000", &options)).unwrap();
    assert_eq!(result.stdout.len(), 400_000);
    let pieces = pieces.borrow();
    assert_eq!(pieces.concat(), result.stdout);
    assert!(pieces.iter().all(|piece| piece.ends_with('\n')), "every piece ends with a whole line");
    assert!(pieces.len() < 1_000, "{} deltas for 200,000 lines", pieces.len());
}

/// A repository's files are the model's input as much as its code: a `.git/HEAD` that is a FIFO
/// (reading it would block the session) or a `.git` file naming no directory gives no git block,
/// and the session's first call is not held up by either.
#[test]
fn a_hostile_git_directory_gives_no_snapshot_and_does_not_hold_up_the_first_call() {
    use openagent_core::llm::{ScriptStep, ScriptedClient};
    use openagent_core::profiles::GeneralProfile;
    use openagent_core::session::Session;
    use openagent_host::NativeRuntime;

    for hostile in ["fifo", "gitdir"] {
        let dir = TempDir::new();
        match hostile {
            "fifo" => {
                std::fs::create_dir(dir.0.join(".git")).unwrap();
                let name = CString::new(dir.0.join(".git/HEAD").to_str().unwrap()).unwrap();
                // SAFETY: mkfifo reads the NUL-terminated path it is given.
                assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
            }
            _ => std::fs::write(dir.0.join(".git"), "gitdir: /nonexistent/openagent-test\n").unwrap(),
        }
        let runtime = Rc::new(NativeRuntime::new());
        let client = Rc::new(ScriptedClient::new([ScriptStep::text("done")]));
        let session =
            Session::builder(Rc::new(GeneralProfile::new("local")), Rc::new(dir.env()), client.clone(), runtime.clone()).build();
        let started = Instant::now();
        runtime.block_on(session.submit("go")).expect("completed");
        assert!(started.elapsed() < Duration::from_secs(5), "{hostile}: {:?}", started.elapsed());
        let prompt = client.requests()[0].messages[0].text();
        assert!(!prompt.contains("<git>"), "{hostile}: {prompt}");
    }
}
