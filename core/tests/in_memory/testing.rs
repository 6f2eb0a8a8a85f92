//! Shared helpers for the tool tests: a fresh `MemoryEnvironment` and a way to run a tool on it.

use std::rc::Rc;

use futures::executor::block_on;
use serde_json::Value;

use openagent_core::env::ExecutionEnvironment;
use openagent_core::llm::{ScriptStep, ScriptedClient};
use openagent_core::profiles::CoreProfile;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::{Session, SessionBuilder};
use openagent_core::tools::{register_core_tools, ToolContext, ToolError, ToolExecutor, ToolOutput, ToolRegistry};
use openagent_memenv::MemoryEnvironment;

pub fn memory_env() -> MemoryEnvironment {
    MemoryEnvironment::new(Rc::new(VirtualRuntime::new(|_| {})))
}

/// A session of the core profile and tools on a fresh `MemoryEnvironment`, answered by `steps`,
/// for the caller to configure and build; with the environment, to look at afterwards.
pub fn scripted_session(steps: Vec<ScriptStep>) -> (SessionBuilder, Rc<MemoryEnvironment>) {
    core_session(Rc::new(ScriptedClient::new(steps)))
}

/// [`scripted_session`] answered by `client`, for a caller that reads the requests it got.
pub fn core_session(client: Rc<ScriptedClient>) -> (SessionBuilder, Rc<MemoryEnvironment>) {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let mut registry = ToolRegistry::new();
    register_core_tools(&mut registry);
    let profile = Rc::new(CoreProfile::new("test-model", registry));
    (Session::builder(profile, env.clone(), client, runtime), env)
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
