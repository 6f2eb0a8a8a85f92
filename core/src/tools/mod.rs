//! Tools: the registry and the shared core tools of spec 3.3 over any `ExecutionEnvironment`.

mod registry;

pub use registry::{RegisteredTool, ToolContext, ToolError, ToolExecutor, ToolOutput, ToolRegistry};
