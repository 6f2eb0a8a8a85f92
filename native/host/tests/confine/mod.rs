//! What the confinement tests share: a workspace outside every writable root's parent (so `..`
//! leaves the roots), a place beside it that no policy makes writable, and a run through
//! `LocalEnvironment::exec_command` with a policy.
// Each test file uses some of these.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use openagent_core::env::{ExecOptions, ExecResult, ExecutionEnvironment};
use openagent_core::sandbox::{Network, SandboxMode, SandboxPolicy};
use openagent_host::local_env::check_sandbox;
use openagent_host::{LocalEnvironment, NativeRuntime};

/// A workspace `work/`, a directory `outside/` beside it, and a fake `home/`, all under the
/// user's cache directory: not under the temporary directory, which is a writable root. Its
/// commands run in one environment, as a session's do (the policy is prepared once).
pub struct Place {
    pub base: PathBuf,
    pub work: PathBuf,
    pub outside: PathBuf,
    pub home: PathBuf,
    env: LocalEnvironment,
}

impl Place {
    /// A new place, or `None` (saying why) where this kernel cannot confine commands.
    pub fn new() -> Option<Self> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| "/root".into());
        let name = format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let base = home.join(".cache/openagent-confine-tests").join(name);
        let (work, outside, home) = (base.join("work"), base.join("outside"), base.join("home"));
        for dir in [&work, &outside, &home] {
            std::fs::create_dir_all(dir).expect("test directories");
        }
        let env = LocalEnvironment::new(&work).expect("the environment").with_home(&home);
        let place = Self { base, work, outside, home, env };
        if let Err(why) = check_sandbox(&write(), &place.work) {
            eprintln!("skipped: this kernel cannot confine commands: {why}");
            return None;
        }
        Some(place)
    }

    pub fn env(&self) -> LocalEnvironment {
        self.env.clone()
    }

    /// `command` run in the workspace under `policy` (`None`: the host's own, unconfined).
    pub fn run(&self, policy: Option<SandboxPolicy>, command: &str) -> ExecResult {
        let options = ExecOptions { timeout_ms: 20_000, sandbox: policy, ..ExecOptions::default() };
        NativeRuntime::new().block_on(self.env.exec_command(command, &options)).expect("the command starts")
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

pub fn write() -> SandboxPolicy {
    SandboxPolicy::new(SandboxMode::WorkspaceWrite)
}

pub fn write_with_network() -> SandboxPolicy {
    SandboxPolicy { network: Network::On, ..write() }
}

pub fn read_only() -> SandboxPolicy {
    SandboxPolicy::new(SandboxMode::ReadOnly)
}

/// Whether `tool` is on the PATH; says so when it is not.
pub fn have(tool: &str) -> bool {
    let found = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .is_ok_and(|out| out.status.success());
    if !found {
        eprintln!("skipped the {tool} case: {tool} is not installed");
    }
    found
}
