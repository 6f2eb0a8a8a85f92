//! Tools: the registry and the shared core tools of spec 3.3 over any `ExecutionEnvironment`.
//!
//! Each core tool is a module with its model-facing [`ToolDefinition`](crate::llm::ToolDefinition)
//! (`definition()`) and a unit struct that executes it. Profiles start from [`core_tools`] and add
//! or replace tools of their own.

mod args;
mod edit_match;
mod registry;

pub mod edit_file;
pub mod glob;
pub mod grep;
pub mod read_file;
pub mod shell;
pub mod write_file;

use std::rc::Rc;

pub use edit_file::EditFileTool;
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use read_file::ReadFileTool;
pub use registry::{RegisteredTool, ToolContext, ToolError, ToolExecutor, ToolOutput, ToolRegistry};
pub use shell::ShellTool;
pub use write_file::WriteFileTool;

/// The six shared tools: read_file, write_file, edit_file, shell, grep, glob.
pub fn core_tools() -> Vec<RegisteredTool> {
    let tools: [(_, Rc<dyn ToolExecutor>); 6] = [
        (read_file::definition(), Rc::new(ReadFileTool)),
        (write_file::definition(), Rc::new(WriteFileTool)),
        (edit_file::definition(), Rc::new(EditFileTool)),
        (shell::definition(), Rc::new(ShellTool)),
        (grep::definition(), Rc::new(GrepTool)),
        (glob::definition(), Rc::new(GlobTool)),
    ];
    tools
        .into_iter()
        .map(|(definition, executor)| {
            // The schemas are constants of this crate; the tests below compile every one of them.
            RegisteredTool::new(definition, executor).expect("core tool schemas are valid")
        })
        .collect()
}

/// Adds the core tools to `registry`, replacing any of the same names.
pub fn register_core_tools(registry: &mut ToolRegistry) {
    for tool in core_tools() {
        registry.register(tool);
    }
}
