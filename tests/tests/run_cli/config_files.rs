//! Config files that are not files: a FIFO, `/dev/zero` or a file past the size cap in the place
//! of `mcp.json`, `models.json`, `hooks.json` or an `agent.yml`. `run`, `models` and `agents list`
//! refuse each at once, naming the file, what it is and what to do, instead of blocking in `open`
//! for good or reading without end.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use openagent_tests::cli::{Finished, Running, Sandbox};
use openagent_tests::over_http::serve;

/// What takes a config file's place.
#[derive(Clone, Copy, Debug)]
enum Hostile {
    /// A named pipe no one writes to: `open` blocks for good unless it is non-blocking.
    Fifo,
    /// A link to `/dev/zero`: a read never ends, and grows the process until it is killed.
    DevZero,
    /// A regular file (sparse, so it costs no disk) just past the cap.
    TooLarge,
}

impl Hostile {
    /// Puts this in the place of `file`, relative to the sandbox's working directory.
    fn place(self, sandbox: &Sandbox, file: &str) {
        let path = sandbox.cwd().join(file);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("its directory");
        match self {
            Hostile::Fifo => {
                let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("no NUL");
                assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
            }
            Hostile::DevZero => std::os::unix::fs::symlink("/dev/zero", &path).expect("the link"),
            Hostile::TooLarge => {
                let file = std::fs::File::create(&path).expect("the file");
                file.set_len(16 * 1024 * 1024 + 1).expect("its length");
            }
        }
    }

    /// The words the error must have.
    fn words(self) -> &'static str {
        match self {
            Hostile::Fifo => "is a FIFO (named pipe), not a regular file",
            Hostile::DevZero => "is a character device, not a regular file",
            Hostile::TooLarge => "is larger than 16 MiB",
        }
    }
}

/// A process that reads `/dev/zero` to its end is stopped by its address space's limit (a few
/// seconds in) instead of taking the machine's memory.
fn bounded(mut command: Command) -> Finished {
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: 4 << 30, rlim_max: 4 << 30 };
            match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    Running::start(command).finish()
}

fn assert_refused(run: &Finished, file: &str, hostile: Hostile) {
    assert_eq!(run.code, Some(2), "{hostile:?} {file}: {run:?}");
    let named = run.stderr.lines().find(|line| line.contains(file)).unwrap_or_default();
    assert!(named.contains(hostile.words()), "{hostile:?} {file}: {run:?}");
}

/// `openagent run` in a directory where `file` is `hostile`: exit 2 before any model call.
fn run_refuses(file: &str, hostile: Hostile) {
    let sandbox = Sandbox::new();
    hostile.place(&sandbox, file);
    let server = serve([]);
    let run = bounded(sandbox.openagent(Some(&server), &["run", "x", "--output", "json"]));
    assert_refused(&run, file, hostile);
    assert!(server.requests().is_empty(), "the model was never called");
}

/// `openagent models` in a directory whose `models.json` is `hostile`: exit 2.
fn models_refuses(hostile: Hostile) {
    let sandbox = Sandbox::new();
    let file = ".openagent/models.json";
    hostile.place(&sandbox, file);
    let mut command = sandbox.bare(None, &["models"]);
    command.arg("--cwd").arg(sandbox.cwd());
    assert_refused(&bounded(command), file, hostile);
}

#[test]
fn an_mcp_json_linked_to_dev_zero_is_refused_without_reading_it() {
    run_refuses(".openagent/mcp.json", Hostile::DevZero);
}

#[test]
fn a_models_json_linked_to_dev_zero_is_refused_by_run_and_models() {
    run_refuses(".openagent/models.json", Hostile::DevZero);
    models_refuses(Hostile::DevZero);
}

#[test]
fn a_models_json_fifo_does_not_block_run_or_models() {
    run_refuses(".openagent/models.json", Hostile::Fifo);
    models_refuses(Hostile::Fifo);
}

#[test]
fn a_hooks_json_fifo_does_not_block_run() {
    run_refuses(".openagent/hooks.json", Hostile::Fifo);
}

#[test]
fn a_config_file_past_the_cap_is_refused_naming_the_cap() {
    run_refuses(".openagent/mcp.json", Hostile::TooLarge);
    models_refuses(Hostile::TooLarge);
}

/// A FIFO or `/dev/zero` agent.yml is there: the error says what it is, not that it is missing,
/// in `run --agent` and in `agents list`.
#[test]
fn an_agent_yml_that_is_a_fifo_or_dev_zero_is_named_for_what_it_is() {
    for hostile in [Hostile::Fifo, Hostile::DevZero] {
        let sandbox = Sandbox::new();
        let file = ".openagent/agents/a/agent.yml";
        hostile.place(&sandbox, file);
        let server = serve([]);
        let run = bounded(sandbox.openagent(Some(&server), &["run", "x", "--output", "json", "--agent", "a"]));
        assert_refused(&run, file, hostile);
        assert!(!run.stderr.contains("does not exist"), "{hostile:?}: {run:?}");
        let listed = bounded(sandbox.bare(None, &["agents", "list"]));
        assert_eq!(listed.code, Some(1), "{hostile:?}: {listed:?}");
        assert!(listed.stdout.contains(hostile.words()) || listed.stderr.contains(hostile.words()), "{listed:?}");
        assert!(Path::new(&sandbox.cwd().join(file)).symlink_metadata().is_ok(), "nothing was removed");
    }
}
