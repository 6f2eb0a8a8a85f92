//! Tools: the registry and the shared core tools of spec 3.3 over any `ExecutionEnvironment`.
//!
//! Each core tool is a module with its model-facing [`ToolDefinition`]
//! (`definition()`) and a unit struct that executes it. Profiles start from [`core_tools`] and add
//! or replace tools of their own: [`apply_patch`] for OpenAI models (spec 3.4), `list_dir` and
//! `read_many_files` for Gemini, and, through [`ArgsAdapter`], a family's own argument names over a
//! shared executor.

mod args;
mod args_adapter;
mod edit_match;
mod registry;
mod seen;

pub mod apply_patch;
pub mod edit_file;
pub mod glob;
pub mod grep;
pub mod list_dir;
pub mod read_file;
pub mod read_many_files;
pub mod shell;
pub mod write_file;

use std::rc::Rc;

use crate::llm::ToolDefinition;
pub use apply_patch::ApplyPatchTool;
pub use args_adapter::ArgsAdapter;
pub use edit_file::EditFileTool;
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use list_dir::ListDirTool;
pub use read_file::ReadFileTool;
pub use read_many_files::ReadManyFilesTool;
pub use registry::{RegisteredTool, ToolContext, ToolError, ToolExecutor, ToolOutput, ToolRegistry};
pub use seen::FilesSeen;
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
    tools.into_iter().map(|(definition, executor)| bind(definition, executor)).collect()
}

/// A parameter schema from JSON text. Text rather than `json!`, which expands to code that builds
/// the value piece by piece and weighs several times more in the browser bundle. Only for this
/// crate's constant schemas; the tests of every profile parse each of them.
pub(crate) fn schema(text: &str) -> serde_json::Value {
    // `from_slice`, as response bodies are read: `from_str` would put a second JSON reader in the browser bundle.
    serde_json::from_slice(text.as_bytes()).expect("built-in tool schemas are JSON")
}

/// Binds one of this crate's definitions to its executor. The schemas are constants; the tests
/// of the tools and of every profile compile each of them.
pub(crate) fn bind(definition: ToolDefinition, executor: Rc<dyn ToolExecutor>) -> RegisteredTool {
    RegisteredTool::new(definition, executor).expect("built-in tool schemas are valid")
}

/// Adds the core tools to `registry`, replacing any of the same names.
pub fn register_core_tools(registry: &mut ToolRegistry) {
    for tool in core_tools() {
        registry.register(tool);
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::{json, Value};

    use super::*;
    use crate::llm::ToolDefinition;

    #[test]
    fn core_tools_are_the_six_of_spec_3_3() {
        let names: Vec<String> = core_tools().into_iter().map(|t| t.definition.name).collect();
        assert_eq!(names, ["read_file", "write_file", "edit_file", "shell", "grep", "glob"]);
    }

    #[test]
    fn every_schema_is_closed_and_described() {
        for tool in core_tools() {
            let ToolDefinition { name, description, parameters } = tool.definition;
            assert!(description.len() > 40, "{name}: description too short");
            assert_eq!(parameters["type"], "object", "{name}");
            assert_eq!(parameters["additionalProperties"], false, "{name}");
            let properties = parameters["properties"].as_object().expect("properties");
            for (property, schema) in properties {
                assert!(schema["description"].is_string(), "{name}.{property} has no description");
            }
            let required = parameters["required"].as_array().expect("required");
            assert!(!required.is_empty(), "{name}");
            for field in required.iter().filter_map(Value::as_str) {
                assert!(properties.contains_key(field), "{name} requires unknown {field}");
            }
        }
    }

    #[test]
    fn registering_replaces_tools_of_the_same_name() {
        let mut registry = ToolRegistry::new();
        let custom = ToolDefinition {
            name: "shell".into(),
            description: "custom".into(),
            parameters: json!({"type": "object", "properties": {}}),
        };
        registry.register(RegisteredTool::new(custom, Rc::new(ShellTool)).expect("valid"));
        register_core_tools(&mut registry);
        assert_eq!(registry.names(), ["shell", "read_file", "write_file", "edit_file", "grep", "glob"]);
        assert_ne!(registry.get("shell").map(|t| t.definition.description.as_str()), Some("custom"));
    }
}
