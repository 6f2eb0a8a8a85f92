//! Running a host's command ([`HostCommand`]) as the shell runs a builtin: its output goes to the
//! command's redirections, its status to `&&`, `||` and `$?`, and the shell's deadline holds.

use std::rc::Rc;

use super::super::TIMED_OUT;
use super::Call;
use crate::{HostCall, HostCommand, HOST_GRACE_MS};
use futures::future::Either;

/// Runs `command`; `argv` is the call's name and arguments.
pub(super) async fn run(c: &mut Call<'_>, argv: &[String], command: Rc<dyn HostCommand>) -> i32 {
    let time_left_ms = c.shell.deadline.map(|deadline| deadline.saturating_sub(c.shell.now()));
    let (env, runtime) = (c.shell.env.clone(), c.shell.env.runtime());
    let call = HostCall {
        argv,
        stdin: std::mem::take(&mut c.stdin),
        cwd: &c.shell.cwd,
        env: c.shell.vars.as_slice(),
        time_left_ms,
        files: &env,
        confinement: c.shell.confinement.clone(),
    };
    let limit = match time_left_ms {
        Some(left) => runtime.sleep(left.saturating_add(HOST_GRACE_MS)),
        None => Box::pin(futures::future::pending()),
    };
    // Dropping the command's future is what stops it.
    let Either::Left((done, _)) = futures::future::select(command.run(call), limit).await else {
        c.shell.timed_out = true;
        // HOST_GRACE_MS, written out: a format! costs the browser bundle more than this line.
        return c.fail_with(TIMED_OUT, "stopped: still running 250 ms after the timeout");
    };
    c.out.out(done.stdout);
    c.out.err(done.stderr);
    // A command that used up the time ends the script, as `sleep` does.
    if c.shell.past_deadline() {
        return TIMED_OUT;
    }
    done.exit_code
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    use async_trait::async_trait;
    use futures::executor::block_on;

    use super::super::super::{env_with, run as run_shell, sh};
    use crate::{HostCall, HostCommand, HostOutput, MemoryEnvironment};
    use openagent_core::env::{EnvError, ExecOptions, ExecutionEnvironment};

    /// `up [--fail N] [--hang] [--write FILE]`: upper-cases its arguments and standard input,
    /// and records how it was called.
    #[derive(Default)]
    struct Up {
        seen: RefCell<Vec<Seen>>,
        /// Set when a hanging call was dropped.
        dropped: Rc<Cell<bool>>,
    }

    /// What one call was given.
    struct Seen {
        argv: Vec<String>,
        cwd: String,
        time_left_ms: Option<u64>,
        greeting: Option<String>,
    }

    /// Sets its flag when dropped: stands for the work a host command stops.
    struct Stopped(Rc<Cell<bool>>);

    impl Drop for Stopped {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }

    #[async_trait(?Send)]
    impl HostCommand for Up {
        async fn run(&self, call: HostCall<'_>) -> HostOutput {
            let greeting = call.env.iter().find(|(name, _)| name == "GREETING").map(|(_, value)| value.clone());
            let seen = Seen { argv: call.argv.to_vec(), cwd: call.cwd.to_owned(), time_left_ms: call.time_left_ms, greeting };
            self.seen.borrow_mut().push(seen);
            let args = &call.argv[1..];
            match args.first().map(String::as_str) {
                Some("--hang") => {
                    let _running = Stopped(self.dropped.clone());
                    futures::future::pending::<()>().await;
                    unreachable!("a pending future never ends")
                }
                Some("--fail") => {
                    let code = args.get(1).and_then(|code| code.parse().ok()).unwrap_or(1);
                    HostOutput { stderr: b"up: failing as asked\n".to_vec(), exit_code: code, ..HostOutput::default() }
                }
                Some("--write") => {
                    let text = String::from_utf8_lossy(&call.stdin).to_uppercase();
                    let path = args.get(1).cloned().unwrap_or_default();
                    let written = call.files.write_bytes(&format!("{}/{path}", call.cwd), text.as_bytes());
                    HostOutput { exit_code: i32::from(written.is_err()), ..HostOutput::default() }
                }
                _ => {
                    let mut text = args.join(" ").to_uppercase();
                    text += &String::from_utf8_lossy(&call.stdin).to_uppercase();
                    HostOutput { stdout: text.into_bytes(), ..HostOutput::default() }
                }
            }
        }
    }

    fn env_with_up(files: &[(&str, &str)]) -> (MemoryEnvironment, Rc<Up>) {
        let env = env_with(files);
        let up = Rc::new(Up::default());
        env.add_host_command("up", up.clone()).unwrap();
        (env, up)
    }

    #[test]
    fn pipes_run_into_and_out_of_a_host_command() {
        let (env, up) = env_with_up(&[("notes.txt", "b\na\n")]);
        assert_eq!(sh(&env, "cat notes.txt | up | sort"), ("A\nB\n".into(), String::new(), 0));
        assert_eq!(sh(&env, "up say $HOME"), ("SAY /WORKSPACE".into(), String::new(), 0));
        assert_eq!(up.seen.borrow()[1].argv, ["up", "say", "/workspace"]);
        assert_eq!(sh(&env, "echo x | env GREETING=hi up | wc -c"), ("2\n".into(), String::new(), 0));
        assert_eq!(up.seen.borrow()[2].greeting.as_deref(), Some("hi"), "the shell's variables reach the command");
    }

    #[test]
    fn redirections_and_files_reach_a_host_command() {
        let (env, up) = env_with_up(&[("in.txt", "hello\n"), ("sub/keep.txt", "")]);
        assert_eq!(sh(&env, "up < in.txt > out.txt; cat out.txt"), ("HELLO\n".into(), String::new(), 0));
        assert_eq!(sh(&env, "up --fail 2> err.txt; cat err.txt").0, "up: failing as asked\n");
        assert_eq!(sh(&env, "cd sub && echo quiet | up --write made.txt && cat made.txt").0, "QUIET\n");
        assert_eq!(up.seen.borrow().last().unwrap().cwd, "/workspace/sub", "the command runs in the shell's directory");
    }

    #[test]
    fn the_exit_status_of_a_host_command_drives_and_and_or() {
        let (env, _) = env_with_up(&[]);
        assert_eq!(sh(&env, "up --fail 3 && echo no || echo status $?").0, "status 3\n");
        assert_eq!(sh(&env, "up ok && echo yes").0, "OKyes\n");
        assert_eq!(sh(&env, "set -e; up --fail 5; echo never").2, 5);
    }

    #[test]
    fn a_host_command_past_the_timeout_is_dropped() {
        let (env, up) = env_with_up(&[]);
        let options = ExecOptions { timeout_ms: 2_000, ..ExecOptions::default() };
        let result = block_on(run_shell(&env, "echo before; up --hang; echo after", &options)).unwrap();
        assert_eq!((result.exit_code, result.timed_out), (124, true));
        assert_eq!(result.stdout, "before\n");
        assert_eq!(result.stderr, "up: stopped: still running 250 ms after the timeout\n");
        assert!(up.dropped.get(), "dropping the future stopped the command");
        assert_eq!(up.seen.borrow()[0].time_left_ms, Some(2_000), "the command was told the time left");
        assert_eq!(result.duration_ms, 2_250);
        assert_eq!(sh(&env, "up fast").2, 0);
        assert_eq!(up.seen.borrow()[1].time_left_ms, None, "no timeout, no time limit");
    }

    #[test]
    fn unknown_commands_name_the_host_commands_and_builtins_cannot_be_replaced() {
        let (env, _) = env_with_up(&[]);
        let (out, err, code) = sh(&env, "python3 x.py");
        assert_eq!((out.as_str(), code), ("", 127));
        assert!(err.starts_with("python3: command not available in this environment (built-in shell: [,"), "{err}");
        assert!(err.ends_with("; host commands: up)\n"), "{err}");
        assert_eq!(sh(&env, "which up cat"), ("up: host command\ncat: shell built-in command\n".into(), String::new(), 0));
        for name in ["cat", "sh", ":", "./run", "", "a b", "-x"] {
            assert!(matches!(env.add_host_command(name, Rc::new(Up::default())), Err(EnvError::Unsupported(_))), "{name:?}");
        }
        assert!(env.os_version().ends_with("(built-in shell; host commands: up)"), "the model is told");
        let view = env.view("/tmp").unwrap();
        assert_eq!(sh(&view, "up shared").0, "SHARED", "views and clones share the host commands");
    }
}
