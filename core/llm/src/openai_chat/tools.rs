//! Tool definitions and the tool choice (spec 7.4): function tools, `strict` when asked.

use serde_json::{Map, Value};

use super::options::ChatOptions;
use crate::json::object;
use crate::types::{ToolChoice, ToolDefinition};

/// The `tools` array.
pub(super) fn tools(tools: &[ToolDefinition], options: &ChatOptions) -> Value {
    let tools = tools.iter().map(|tool| {
        let mut function = Map::new();
        function.insert("name".into(), tool.name.as_str().into());
        if !tool.description.is_empty() {
            function.insert("description".into(), tool.description.as_str().into());
        }
        function.insert("parameters".into(), tool.parameters.clone());
        if options.strict_tools {
            function.insert("strict".into(), true.into());
        }
        object(vec![("type", "function".into()), ("function", Value::Object(function))])
    });
    tools.collect()
}

pub(super) fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => "auto".into(),
        ToolChoice::None => "none".into(),
        ToolChoice::Required => "required".into(),
        ToolChoice::Named { tool_name } => {
            object(vec![("type", "function".into()), ("function", object(vec![("name", tool_name.as_str().into())]))])
        }
    }
}
