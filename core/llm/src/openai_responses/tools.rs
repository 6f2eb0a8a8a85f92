//! Tool definitions and the tool choice (spec 7.4).

use serde_json::Value;

use crate::json::object;
use crate::types::{ToolChoice, ToolDefinition};

/// The `tools` array. `strict: true` (the API's default) would reject ordinary schemas with
/// optional fields, so every tool says `strict: false`.
pub(super) fn tools(tools: &[ToolDefinition]) -> Value {
    let tools = tools.iter().map(|t| {
        object(vec![
            ("type", "function".into()),
            ("name", t.name.as_str().into()),
            ("description", t.description.as_str().into()),
            ("parameters", t.parameters.clone()),
            ("strict", false.into()),
        ])
    });
    Value::Array(tools.collect())
}

pub(super) fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => "auto".into(),
        ToolChoice::None => "none".into(),
        ToolChoice::Required => "required".into(),
        ToolChoice::Named { tool_name } => object(vec![("type", "function".into()), ("name", tool_name.as_str().into())]),
    }
}
