//! The tool execution pipeline (spec 2.5 `execute_tool_calls`, 3.8): look up, validate, execute,
//! truncate, emit, return. Every failure becomes an error result the model sees.

use std::rc::Rc;

use futures::future::join_all;

use super::events::{Decision, EventData};
use super::truncation::truncate_tool_output;
use super::{Session, SessionConfig};
use crate::llm::{ToolCall, ToolResult};
use crate::tools::{ToolContext, ToolExecutor};

impl Session {
    /// Runs one round of tool calls, concurrently when the profile allows it. Results come back
    /// in call order either way.
    pub(super) async fn execute_tool_calls(&self, calls: &[ToolCall], config: &SessionConfig) -> Vec<ToolResult> {
        if self.inner.profile.supports_parallel_tool_calls() && calls.len() > 1 {
            join_all(calls.iter().map(|call| self.execute_single_tool(call, config))).await
        } else {
            let mut results = Vec::with_capacity(calls.len());
            for call in calls {
                results.push(self.execute_single_tool(call, config).await);
            }
            results
        }
    }

    async fn execute_single_tool(&self, call: &ToolCall, config: &SessionConfig) -> ToolResult {
        let started = self.now();
        self.emit(EventData::ToolCallStart {
            call_id: call.id.clone(),
            tool_name: call.name.clone(),
            arguments: call.arguments.clone(),
        });
        self.inner.input.borrow_mut().tool_calls += 1;
        let error = |message: String| {
            self.inner.input.borrow_mut().failed += 1;
            self.emit(EventData::ToolCallEnd {
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
                output: None,
                error: Some(message.clone()),
                duration_ms: self.now().saturating_sub(started),
            });
            ToolResult::new(call.id.clone(), message, true)
        };

        let decision = |decision: Decision, reason: Option<String>, source: &str| {
            self.emit(EventData::ToolDecision {
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
                decision,
                reason,
                source: source.to_owned(),
            })
        };
        let executor = match self.checked_executor(call) {
            Ok(executor) => {
                decision(Decision::Allow, None, "schema");
                executor
            }
            Err((source, message)) => {
                decision(Decision::Deny, Some(message.clone()), source);
                return error(message);
            }
        };

        let on_output: Rc<dyn Fn(&str)> = {
            let session = self.clone();
            let call_id = call.id.clone();
            Rc::new(move |delta: &str| {
                session.emit(EventData::ToolCallOutputDelta { call_id: call_id.clone(), delta: delta.to_owned() })
            })
        };
        let ctx = ToolContext {
            env: &*self.inner.env,
            default_command_timeout_ms: self
                .inner
                .profile
                .default_command_timeout_ms()
                .unwrap_or(config.default_command_timeout_ms),
            max_command_timeout_ms: config.max_command_timeout_ms,
            on_output: Some(on_output),
        };
        match executor.execute(&call.arguments, &ctx).await {
            Ok(output) => {
                let content = truncate_tool_output(&output.text, &call.name, config);
                let mut result = ToolResult::new(call.id.clone(), content, false);
                if let Some(image) = output.image {
                    result.image_media_type = image.media_type;
                    result.image_data = image.data;
                }
                self.inner.input.borrow_mut().succeeded += 1;
                self.emit(EventData::ToolCallEnd {
                    call_id: call.id.clone(),
                    tool_name: call.name.clone(),
                    output: Some(output.text),
                    error: None,
                    duration_ms: self.now().saturating_sub(started),
                });
                result
            }
            Err(e) => error(format!("Tool error ({}): {e}", call.name)),
        }
    }

    /// Looks the tool up and validates the arguments against its schema, while the registry is
    /// borrowed (both are synchronous): only the executor is kept, never a copy of the tool. A
    /// refusal says which check refused (the `source` of the `tool_decision` event) and why.
    fn checked_executor(&self, call: &ToolCall) -> Result<Rc<dyn ToolExecutor>, (&'static str, String)> {
        let tools = self.inner.tools.borrow();
        let Some(tool) = tools.get(&call.name) else {
            return Err(("registry", format!("Unknown tool: {}. Available tools: {}.", call.name, tools.names().join(", "))));
        };
        if call.arguments.is_null() {
            let raw = call.raw_arguments.as_deref().unwrap_or("");
            let reason = serde_json::from_str::<serde_json::Value>(raw).err().map_or_else(String::new, |e| format!(" ({e})"));
            let message = format!(
                "Invalid arguments for tool {}: the arguments are not a valid JSON object{reason}. Send the arguments as one JSON object.",
                call.name
            );
            return Err(("arguments", message));
        }
        if let Err(problems) = tool.schema().validate(&call.arguments) {
            let list: Vec<String> = problems.iter().map(|p| format!("- {p}")).collect();
            if call.name == super::SUBMIT_RESULT && self.requires_result() {
                return Err(("schema", self.refused_submission(&list)));
            }
            return Err(("schema", format!("Invalid arguments for tool {}:\n{}", call.name, list.join("\n"))));
        }
        Ok(tool.executor.clone())
    }
}
