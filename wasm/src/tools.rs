//! Tools written in JavaScript: `registerTool({name, description, parameters, execute})`.

use std::rc::Rc;

use async_trait::async_trait;
use js_sys::{Function, Promise};
use openagent_core::llm::{json_text, ToolDefinition};
use openagent_core::tools::{RegisteredTool, ToolContext, ToolError, ToolExecutor, ToolOutput};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::convert::{error, function_property, property, to_js, to_json};
use crate::fetch::describe;

/// Calls the JS `execute(arguments)`; what it returns (or resolves to) is the output: a string
/// as is, anything else as JSON. A throw or a rejection is a tool error the model sees.
struct JsTool {
    execute: Function,
}

#[async_trait(?Send)]
impl ToolExecutor for JsTool {
    async fn execute(&self, arguments: &Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let fail = |e: JsValue| ToolError::new(describe(&e));
        let value = call(&self.execute, arguments).await.map_err(fail)?;
        if let Some(text) = value.as_string() {
            return Ok(text.into());
        }
        if value.is_undefined() || value.is_null() {
            return Ok(ToolOutput::default());
        }
        let json = js_sys::JSON::stringify(&value).map_err(fail)?;
        Ok(String::from(json).into())
    }
}

/// Calls `function` with `argument` as a plain JS object; what it returns, or its promise
/// resolves to. A throw or a rejection is the error.
pub(crate) async fn call(function: &Function, argument: &Value) -> Result<JsValue, JsValue> {
    let returned = function.call1(&JsValue::NULL, &to_js(argument)?)?;
    JsFuture::from(Promise::resolve(&returned)).await
}

/// Reads a tool spec from JS, checking each field.
pub fn from_js(spec: &JsValue) -> Result<RegisteredTool, JsValue> {
    let name = property(spec, "name").and_then(|n| n.as_string()).filter(|n| !n.is_empty());
    let name = name.ok_or_else(|| error("registerTool: `name` must be a non-empty string"))?;
    let owner = format!("registerTool({})", json_text::quote(&name));
    let description = match property(spec, "description") {
        None => String::new(),
        Some(d) => d.as_string().ok_or_else(|| error(&format!("{owner}: `description` must be a string")))?,
    };
    let parameters = match property(spec, "parameters") {
        None => serde_json::json!({"type": "object", "properties": {}}),
        Some(p) => to_json(&p, &format!("{owner}: `parameters`"))?,
    };
    let execute =
        function_property(spec, "execute", &owner)?.ok_or_else(|| error(&format!("{owner}: `execute` must be a function")))?;
    let definition = ToolDefinition { name, description, parameters };
    RegisteredTool::new(definition, Rc::new(JsTool { execute })).map_err(|e| error(&format!("{owner}: {e}")))
}
