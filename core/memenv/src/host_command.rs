//! The `HostCommand` seam: a host adds a named command (`node`, say) to the built-in shell of a
//! [`MemoryEnvironment`], where it runs like a builtin: in pipes, with redirections, `&&`,
//! `$VAR`s, in the shell's working directory and within its timeout.
//!
//! It sits beside [`CommandRunner`](super::CommandRunner), which replaces the whole shell (the host
//! runs every command line itself); a host command adds one word to the shell instead. With a
//! runner set, the runner gets every line and host commands are not used.

use async_trait::async_trait;

use std::rc::Rc;

use super::{Confinement, MemoryEnvironment};

/// How long the shell waits for a host command past its deadline before dropping it. The command
/// is told the time left ([`HostCall::time_left_ms`]) so it can stop by itself and report what it
/// did; dropping it loses its output.
pub const HOST_GRACE_MS: u64 = 250;

/// One invocation of a host command.
pub struct HostCall<'a> {
    /// The words after expansion; `argv[0]` is the command's name.
    pub argv: &'a [String],
    /// Standard input: a pipe's or a redirection's bytes, empty otherwise.
    pub stdin: Vec<u8>,
    /// The shell's working directory, absolute.
    pub cwd: &'a str,
    /// The shell's variables (all of them are exported), sorted by name.
    pub env: &'a [(String, String)],
    /// Milliseconds left before the shell's deadline, `None` without a timeout. The command should
    /// stop by then and answer with exit status 124; the shell drops it [`HOST_GRACE_MS`] later.
    pub time_left_ms: Option<u64>,
    /// The files the shell works on, to read and write while the command runs.
    pub files: &'a MemoryEnvironment,
    /// The sandbox the command runs in, `None` when unconfined (no policy, or `full-access`).
    /// The shell confines its own writes; a host command asks
    /// [`check_write`](Confinement::check_write) before it writes through `files` (its refusal is
    /// reported with the shell's), and holds its network to the [`policy`](Confinement::policy).
    pub confinement: Option<Rc<Confinement>>,
}

/// What a host command did. Its output goes where the command's redirections point.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostOutput {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub exit_code: i32,
}

/// A command the host runs for the built-in shell; see
/// [`MemoryEnvironment::add_host_command`]. A command that fails answers with its exit status and
/// a message on stderr, as a process would.
#[async_trait(?Send)]
pub trait HostCommand {
    /// Runs one invocation. Dropping the future (an abort, or the timeout passed) must stop the
    /// command and whatever it started.
    async fn run(&self, call: HostCall<'_>) -> HostOutput;
}
