//! Shared helpers for the tool tests: a fresh `MemoryEnvironment` and a way to run a tool on it.

use std::rc::Rc;

use futures::executor::block_on;
use serde_json::Value;

use openagent_core::env::ExecutionEnvironment;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::tools::{ToolContext, ToolError, ToolExecutor, ToolOutput};
use openagent_memenv::MemoryEnvironment;

pub fn memory_env() -> MemoryEnvironment {
    MemoryEnvironment::new(Rc::new(VirtualRuntime::new(|_| {})))
}

/// The spec 5.4 defaults.
pub fn context(env: &dyn ExecutionEnvironment) -> ToolContext<'_> {
    ToolContext::new(env, 10_000, 600_000)
}

pub fn run(tool: &dyn ToolExecutor, env: &dyn ExecutionEnvironment, args: Value) -> Result<ToolOutput, ToolError> {
    block_on(tool.execute(&args, &context(env)))
}

/// The text of a successful run; panics with the error otherwise.
pub fn run_ok(tool: &dyn ToolExecutor, env: &dyn ExecutionEnvironment, args: Value) -> String {
    match run(tool, env, args) {
        Ok(output) => output.text,
        Err(error) => panic!("tool failed: {error}"),
    }
}

/// The message of a failed run; panics with the output otherwise.
pub fn run_err(tool: &dyn ToolExecutor, env: &dyn ExecutionEnvironment, args: Value) -> String {
    match run(tool, env, args) {
        Ok(output) => panic!("tool should have failed, gave: {}", output.text),
        Err(error) => error.0,
    }
}

pub fn write(env: &dyn ExecutionEnvironment, path: &str, content: &str) {
    block_on(env.write_file(path, content)).expect("test file written");
}

pub fn read(env: &dyn ExecutionEnvironment, path: &str) -> String {
    block_on(env.read_file(path, None, None)).expect("test file read")
}
