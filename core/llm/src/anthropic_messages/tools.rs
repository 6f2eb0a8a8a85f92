//! Tool definitions and the tool choice (spec 7.4).

use serde_json::Value;

use crate::json::object;
use crate::types::{ToolChoice, ToolDefinition};

/// The `tools` array: a definition's parameters are its `input_schema`.
pub(super) fn tools(tools: &[ToolDefinition]) -> Value {
    let tools = tools.iter().map(|tool| {
        let mut wire = vec![("name", tool.name.as_str().into()), ("input_schema", tool.parameters.clone())];
        if !tool.description.is_empty() {
            wire.push(("description", tool.description.as_str().into()));
        }
        object(wire)
    });
    Value::Array(tools.collect())
}

/// `none` keeps the tools (see the module doc): the API has taken `{type: none}` since 2025-02.
pub(super) fn tool_choice(choice: &ToolChoice) -> Value {
    let kind = |kind: &str| ("type", Value::from(kind));
    match choice {
        ToolChoice::Auto => object(vec![kind("auto")]),
        ToolChoice::None => object(vec![kind("none")]),
        ToolChoice::Required => object(vec![kind("any")]),
        ToolChoice::Named { tool_name } => object(vec![kind("tool"), ("name", tool_name.as_str().into())]),
    }
}
