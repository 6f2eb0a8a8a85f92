//! The `CommandRunner` seam: a host that can run commands itself (a JS callback in the browser,
//! a sandbox) replaces the built-in shell of a [`MemoryEnvironment`](super::MemoryEnvironment).

use async_trait::async_trait;

use openagent_core::env::{EnvError, ExecOptions, ExecResult};

/// Runs one command for [`ExecutionEnvironment::exec_command`](openagent_core::env::ExecutionEnvironment::exec_command),
/// with the same contract: a command that fails is still `Ok` with its exit code.
#[async_trait(?Send)]
pub trait CommandRunner {
    async fn run(&self, command: &str, options: &ExecOptions) -> Result<ExecResult, EnvError>;
}
