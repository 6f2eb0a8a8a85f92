//! The high-level API of spec section 4, over any [`LlmClient`]:
//!
//! - [`generate`] makes a call and, when the model calls tools that have handlers, runs them (in
//!   parallel, arguments checked against each tool's schema) and calls again, up to
//!   `max_tool_rounds` times (spec 5.6). Every call is a [`StepResult`]; usage adds up across them.
//! - [`stream`](fn@crate::stream) (in `generate_stream.rs`) is `generate` with its calls
//!   streamed, over the same [`ToolLoop`].
//! - [`generate_object`] asks for JSON matching a schema: through `response_format`, which each
//!   codec sends natively (OpenAI `json_schema` strict, Gemini `responseSchema`) or as
//!   instructions (Anthropic). The answer is parsed and validated by the core's validator; a
//!   refused answer is sent back with what is wrong, and after the last attempt the call fails
//!   with `NoObjectGenerated`, naming the problems.
//!
//! Each model call is retried by [`Generate::retry`] (the clients below never retry).
//! Cancellation is Rust's own: drop the future (a dropped stream closes its connection).
//! Timeouts, total and per step, run on the [`Runtime`] seam, so they work in the browser too.

use std::rc::Rc;

use futures::future::{join_all, LocalBoxFuture};
use openagent_jsonschema::Schema;
use serde_json::Value;

use crate::catalog::Catalog;
use crate::client::LlmClient;
use crate::error::{ErrorKind, LlmError};
use crate::retry::{retry, RetryPolicy};
use crate::runtime::{timeout, Runtime};
use crate::types::{
    FinishReason, Message, Request, Response, ResponseFormat, ToolCall, ToolDefinition, ToolResult, Usage, Warning,
};

/// A tool's handler: the call's arguments in, the text the model reads out (`Err`: an error result).
pub type ToolHandler = Rc<dyn Fn(Value) -> LocalBoxFuture<'static, Result<String, String>>>;

/// A tool for [`generate`]: active with a handler (run by the loop), passive without one (its calls
/// end the loop and are the caller's to answer, spec 5.5).
#[derive(Clone)]
pub struct Tool {
    pub definition: ToolDefinition,
    pub execute: Option<ToolHandler>,
}

/// Time limits in milliseconds; `None` is no limit (spec 4.7).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timeout {
    /// The whole operation, every step and tool included.
    pub total_ms: Option<u64>,
    /// Each model call.
    pub per_step_ms: Option<u64>,
}

/// What [`generate`] is asked (spec 4.3).
#[derive(Clone)]
pub struct Generate {
    /// The call: model, sampling, `response_format`, provider options, and any earlier
    /// `messages`. Its `tools` are replaced by those of [`Generate::tools`].
    pub request: Request,
    /// A user message after `request.messages`; give one or the other, not both.
    pub prompt: Option<String>,
    /// A system message, put first.
    pub system: Option<String>,
    pub tools: Vec<Tool>,
    /// How many times tool results are sent back (spec: default 1; 0 runs no tools).
    pub max_tool_rounds: usize,
    pub timeout: Timeout,
    /// How each model call is retried (spec 6.6: twice by default; `max_retries: 0` never). A
    /// retry repeats one call, never the steps before it.
    pub retry: RetryPolicy,
    /// What each step's usage is priced by (`Usage::cost_usd`); `None`: the built-in catalog.
    pub catalog: Option<Rc<Catalog>>,
}

impl Generate {
    /// A call to `model` with `prompt`, one tool round, no timeout, the default retries.
    pub fn new(model: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            request: Request { model: model.into(), ..Request::default() },
            prompt: Some(prompt.into()),
            system: None,
            tools: Vec::new(),
            max_tool_rounds: 1,
            timeout: Timeout::default(),
            retry: RetryPolicy::default(),
            catalog: None,
        }
    }
}

/// One model call and the tools it ran (spec 4.3).
#[derive(Debug, Clone, PartialEq)]
pub struct StepResult {
    pub text: String,
    pub reasoning: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub tool_results: Vec<ToolResult>,
    pub finish_reason: FinishReason,
    pub usage: Usage,
    pub response: Response,
    pub warnings: Vec<Warning>,
}

/// What [`generate`] gives back: every step (the last is the answer: its text, its tool calls
/// left for the caller, its response), the usage of all, and [`generate_object`]'s object.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateResult {
    /// Never empty.
    pub steps: Vec<StepResult>,
    /// Every step's usage, added up.
    pub total_usage: Usage,
    /// [`generate_object`]'s parsed and validated object.
    pub output: Option<Value>,
}

impl GenerateResult {
    /// The last step: spec 4.3's `text`, `reasoning`, `tool_calls`, `tool_results`,
    /// `finish_reason`, `usage` and `response` of the result are its.
    pub fn last(&self) -> &StepResult {
        self.steps.last().expect("a result has at least one step")
    }

    /// The final answer's text.
    pub fn text(&self) -> &str {
        &self.last().text
    }
}

/// Runs `options` on `client`: calls, tool rounds, timeouts. Fails with the model call's error,
/// `RequestTimeout` past a timeout, or `InvalidRequest` for options that cannot be sent.
pub async fn generate(client: &dyn LlmClient, runtime: &dyn Runtime, options: Generate) -> Result<GenerateResult, LlmError> {
    let total = options.timeout.total_ms;
    let work = run(client, runtime, options);
    match total {
        Some(ms) => within(runtime, ms, WHOLE_GENERATION, work).await,
        None => work.await,
    }
}

/// [`generate`] for an object matching `schema`, in at most `attempts` calls (each with its tool
/// rounds). The schema is compiled before any request: an invalid one fails at once.
pub async fn generate_object(
    client: &dyn LlmClient,
    runtime: &dyn Runtime,
    mut options: Generate,
    schema: Value,
    attempts: usize,
) -> Result<GenerateResult, LlmError> {
    let compiled = Schema::compile(&schema)
        .map_err(|e| LlmError::new(ErrorKind::InvalidRequest, format!("generate_object: the schema cannot be used: {e}")))?;
    options.request.response_format = Some(ResponseFormat::JsonSchema { json_schema: schema, strict: true });
    let mut problems = String::new();
    for _ in 0..attempts.max(1) {
        let mut result = generate(client, runtime, options.clone()).await?;
        match parse_object(result.text(), &compiled) {
            Ok(object) => {
                result.output = Some(object);
                return Ok(result);
            }
            Err(found) => problems = found,
        }
        // The next attempt sees its answer and what is wrong with it.
        let request = &mut options.request;
        request.messages = history(&options.system, &options.prompt, std::mem::take(&mut request.messages));
        request.messages.push(result.last().response.message.clone());
        request.messages.push(Message::user(format!(
            "That answer is not the JSON object asked for: {problems}. Answer again with only the JSON object, matching the schema."
        )));
        options.prompt = None;
        options.system = None;
    }
    Err(LlmError::new(ErrorKind::NoObjectGenerated, format!("no valid object after {} attempts: {problems}", attempts.max(1))))
}

/// The object in `text` (a fenced code block is unwrapped), or why there is none.
fn parse_object(text: &str, schema: &Schema) -> Result<Value, String> {
    let trimmed = text.trim();
    let body = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|rest| rest.strip_suffix("```"))
        .unwrap_or(trimmed);
    let value: Value = serde_json::from_slice(body.trim().as_bytes()).map_err(|e| format!("it is not JSON ({e})"))?;
    schema.validate(&value).map_err(|errors| {
        let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
        ["it does not match the schema: ", &list.join("; ")].concat()
    })?;
    Ok(value)
}

/// The conversation the call starts from: system, earlier messages, prompt.
fn history(system: &Option<String>, prompt: &Option<String>, messages: Vec<Message>) -> Vec<Message> {
    let mut out = Vec::with_capacity(messages.len() + 2);
    out.extend(system.clone().map(Message::system));
    out.extend(messages);
    out.extend(prompt.clone().map(Message::user));
    out
}

async fn run(client: &dyn LlmClient, runtime: &dyn Runtime, options: Generate) -> Result<GenerateResult, LlmError> {
    let (per_step, policy) = (options.timeout.per_step_ms, options.retry.clone());
    let mut tool_loop = ToolLoop::new(options)?;
    loop {
        let call = retry(&policy, runtime, || client.complete(&tool_loop.request));
        let response = match per_step {
            Some(ms) => within(runtime, ms, MODEL_CALL, call).await?,
            None => call.await?,
        };
        if !tool_loop.step(response).await {
            return Ok(tool_loop.result());
        }
    }
}

/// The tool loop of spec 5.6 between model calls, whichever way they are made ([`generate`] or
/// [`stream`](fn@crate::stream)): the request so far, the steps, and the tools that run.
pub(crate) struct ToolLoop {
    /// The next call: the conversation so far, with each step's answer and tool results.
    pub request: Request,
    tools: Vec<Tool>,
    schemas: Vec<Schema>,
    max_tool_rounds: usize,
    steps: Vec<StepResult>,
    total_usage: Usage,
    catalog: Option<Rc<Catalog>>,
}

impl ToolLoop {
    /// The loop for `options`, or `InvalidRequest` when they cannot be sent.
    pub fn new(options: Generate) -> Result<Self, LlmError> {
        if options.prompt.is_some() && !options.request.messages.is_empty() {
            return Err(LlmError::new(ErrorKind::InvalidRequest, "generate: give either `prompt` or `messages`, not both"));
        }
        let schemas = options
            .tools
            .iter()
            .map(|tool| {
                Schema::compile(&tool.definition.parameters).map_err(|e| {
                    let message = format!("generate: tool {}: its parameters cannot be used: {e}", tool.definition.name);
                    LlmError::new(ErrorKind::InvalidRequest, message)
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut request = options.request;
        request.messages = history(&options.system, &options.prompt, std::mem::take(&mut request.messages));
        request.tools = options.tools.iter().map(|tool| tool.definition.clone()).collect();
        let (tools, max_tool_rounds, catalog) = (options.tools, options.max_tool_rounds, options.catalog);
        Ok(Self { request, tools, schemas, max_tool_rounds, steps: Vec::new(), total_usage: Usage::default(), catalog })
    }

    /// Records `response` as a step and runs the tools it calls while rounds remain; true when
    /// their results go back in another call.
    pub async fn step(&mut self, mut response: Response) -> bool {
        // Priced as the model that answered (a dated snapshot is found too), else as the one asked.
        let catalog = self.catalog.as_deref().unwrap_or(Catalog::builtin());
        let info = catalog.get(&response.model).or_else(|| catalog.get(&self.request.model));
        response.usage.cost_usd = info.and_then(|info| info.cost(&response.usage));
        self.total_usage += &response.usage;
        let tool_calls = response.tool_calls();
        // A call to a passive tool is the caller's to answer: the loop stops there.
        let passive =
            tool_calls.iter().any(|call| self.tools.iter().any(|t| t.definition.name == call.name && t.execute.is_none()));
        let tool_results = if !tool_calls.is_empty() && !passive && self.steps.len() < self.max_tool_rounds {
            join_all(tool_calls.iter().map(|call| execute(&self.tools, &self.schemas, call))).await
        } else {
            Vec::new()
        };
        self.request.messages.push(response.message.clone());
        self.request.messages.extend(tool_results.iter().cloned().map(Message::tool_result));
        let more = !tool_results.is_empty();
        self.steps.push(StepResult {
            text: response.text(),
            reasoning: response.reasoning(),
            tool_calls,
            tool_results,
            finish_reason: response.finish_reason.clone(),
            usage: response.usage.clone(),
            warnings: response.warnings.clone(),
            response,
        });
        more
    }

    /// The tool results of the last step.
    pub fn last_results(&self) -> &[ToolResult] {
        self.steps.last().map_or(&[], |step| &step.tool_results)
    }

    /// Every step so far, as [`generate`] gives them.
    pub fn result(self) -> GenerateResult {
        GenerateResult { steps: self.steps, total_usage: self.total_usage, output: None }
    }
}

/// Runs one call's handler; what goes wrong (an unknown tool, arguments that are not valid) is an
/// error result the model reads, never a failure of the generation (spec 5.8).
async fn execute(tools: &[Tool], schemas: &[Schema], call: &ToolCall) -> ToolResult {
    let failed = |message: String| ToolResult::new(call.id.clone(), message, true);
    let Some(index) = tools.iter().position(|tool| tool.definition.name == call.name) else {
        return failed(format!("Unknown tool: {}", call.name));
    };
    if call.arguments.is_null() {
        return failed(format!("Invalid arguments for tool {}: they are not a JSON object", call.name));
    }
    if let Err(errors) = schemas[index].validate(&call.arguments) {
        let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
        return failed(format!("Invalid arguments for tool {}: {}", call.name, list.join("; ")));
    }
    // Only calls to tools with handlers get here: a passive tool's call stops the loop first.
    let Some(handler) = &tools[index].execute else { return failed(format!("Tool {} has no handler", call.name)) };
    match handler(call.arguments.clone()).await {
        Ok(text) => ToolResult::new(call.id.clone(), text, false),
        Err(message) => failed(message),
    }
}

/// `work`, or `RequestTimeout` naming `what` once `ms` have passed.
async fn within<T>(
    runtime: &dyn Runtime,
    ms: u64,
    what: &str,
    work: impl std::future::Future<Output = Result<T, LlmError>>,
) -> Result<T, LlmError> {
    timeout(runtime, ms, work).await.unwrap_or_else(|| Err(timed_out(what, ms)))
}

/// What the total and the per-step timeout bound, as their errors name it.
pub(crate) const WHOLE_GENERATION: &str = "the whole generation";
pub(crate) const MODEL_CALL: &str = "a model call";

/// The error of `what` passing its timeout of `ms`.
pub(crate) fn timed_out(what: &str, ms: u64) -> LlmError {
    LlmError::new(ErrorKind::RequestTimeout, format!("{what} took longer than its timeout of {ms} ms"))
}

#[cfg(test)]
#[path = "generate_tests.rs"]
mod tests;
