//! Shared helpers for the tool tests: a fresh `MemoryEnvironment` and a way to run a tool on it.

use std::rc::Rc;

use futures::executor::block_on;
use serde_json::Value;

use super::{ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::env::{ExecutionEnvironment, MemoryEnvironment};
use crate::runtime::VirtualRuntime;

pub(crate) fn memory_env() -> MemoryEnvironment {
    MemoryEnvironment::new(Rc::new(VirtualRuntime::new(|_| {})))
}

/// The spec 5.4 defaults.
pub(crate) fn context(env: &dyn ExecutionEnvironment) -> ToolContext<'_> {
    ToolContext { env, default_command_timeout_ms: 10_000, max_command_timeout_ms: 600_000, on_output: None }
}

pub(crate) fn run(tool: &dyn ToolExecutor, env: &dyn ExecutionEnvironment, args: Value) -> Result<ToolOutput, ToolError> {
    block_on(tool.execute(&args, &context(env)))
}

/// The text of a successful run; panics with the error otherwise.
pub(crate) fn run_ok(tool: &dyn ToolExecutor, env: &dyn ExecutionEnvironment, args: Value) -> String {
    match run(tool, env, args) {
        Ok(output) => output.text,
        Err(error) => panic!("tool failed: {error}"),
    }
}

/// The message of a failed run; panics with the output otherwise.
pub(crate) fn run_err(tool: &dyn ToolExecutor, env: &dyn ExecutionEnvironment, args: Value) -> String {
    match run(tool, env, args) {
        Ok(output) => panic!("tool should have failed, gave: {}", output.text),
        Err(error) => error.0,
    }
}

pub(crate) fn write(env: &dyn ExecutionEnvironment, path: &str, content: &str) {
    block_on(env.write_file(path, content)).expect("test file written");
}

pub(crate) fn read(env: &dyn ExecutionEnvironment, path: &str) -> String {
    block_on(env.read_file(path, None, None)).expect("test file read")
}
