//! The `ProviderProfile` seam (spec 3.2): which tools a model family gets, how its system prompt
//! reads, and what it can do. The provider-aligned profiles (OpenAI, Anthropic, Gemini) build on
//! this; [`CoreProfile`] is the plain one: the shared core tools and a short prompt.

use async_trait::async_trait;
use serde_json::Value;

use crate::env::ExecutionEnvironment;
use crate::llm::catalog::ModelInfo;
use crate::tools::ToolRegistry;

/// What a profile may put into its system prompt besides its own instructions.
pub struct PromptContext<'a> {
    pub env: &'a dyn ExecutionEnvironment,
    /// Today's date, `YYYY-MM-DD`, from the host's clock.
    pub today: String,
    /// The host's or user's instructions, appended last (highest priority).
    pub user_instructions: Option<&'a str>,
}

/// Tools, prompt and capabilities for one model family (spec 3.2).
#[async_trait(?Send)]
pub trait ProviderProfile {
    /// `openai`, `anthropic`, `gemini`, ...
    fn id(&self) -> &str;
    fn model(&self) -> &str;
    /// The profile's tools. A session starts from a copy and may register more on top.
    fn tool_registry(&self) -> &ToolRegistry;
    async fn build_system_prompt(&self, ctx: &PromptContext<'_>) -> String;
    /// Passed through as the request's `provider_options`.
    fn provider_options(&self) -> Option<Value> {
        None
    }
    fn supports_reasoning(&self) -> bool;
    fn supports_streaming(&self) -> bool;
    fn supports_parallel_tool_calls(&self) -> bool;
    /// In tokens; the session warns at 80% of it (spec 5.5).
    fn context_window_size(&self) -> usize;
    /// The model's catalog entry: what the session prices each response by. `None` for a model
    /// the catalog does not know, whose responses go unpriced.
    fn model_info(&self) -> Option<&ModelInfo> {
        None
    }
    /// Whether the model takes images: the catalog's word, and yes for a model it does not know
    /// (its server decides).
    fn supports_images(&self) -> bool {
        self.model_info().is_none_or(|info| info.supports_vision)
    }
    /// The shell timeout when a call gives none, overriding the session's default (spec 3.5:
    /// 120 s for Anthropic). `max_command_timeout_ms` still caps it.
    fn default_command_timeout_ms(&self) -> Option<u64> {
        None
    }
    /// Whether the session adds the subagent tools (spec 7.2) to this profile's. The general
    /// profile leaves them out unless asked, to keep a local model's first request short.
    fn offers_subagents(&self) -> bool {
        true
    }
    /// Whether a tool call with near-JSON arguments (a code fence, a trailing comma, Python's
    /// `True`) or a garbled tool name (`Read File`) is read as meant, with a warning, instead of
    /// failing as spec 2.8 says. The general profile does, for small local models.
    fn repairs_tool_calls(&self) -> bool {
        false
    }
    /// Whether `write_file` and `edit_file` refuse to change an existing file the model has not
    /// read (or written) in the session (`tools/seen.rs`). The general profile does: small models
    /// otherwise edit a file they never looked at, and lose most of it.
    fn requires_read_before_write(&self) -> bool {
        false
    }
    /// Whether the session reads the files a task names before the first request
    /// (`session/named_files.rs`). The general profile does: a small model told to fix `calc.py`
    /// otherwise edits it from a guess at its text.
    fn reads_named_files(&self) -> bool {
        false
    }
}

/// The environment block of spec 6.3, shared by every profile.
pub fn environment_block(ctx: &PromptContext<'_>, model: &str) -> String {
    let env = ctx.env;
    format!(
        "<environment>\nWorking directory: {}\nPlatform: {}\nOS version: {}\nToday's date: {}\nModel: {model}\n</environment>",
        env.working_directory(),
        env.platform(),
        env.os_version(),
        ctx.today
    )
}

/// A plain profile: any tools, a short provider-neutral prompt, capabilities set by hand.
pub struct CoreProfile {
    id: String,
    model: String,
    registry: ToolRegistry,
    parallel_tool_calls: bool,
    streaming: bool,
    images: bool,
    context_window_size: usize,
}

impl CoreProfile {
    const BASE_PROMPT: &'static str = "You are a coding agent. You work in the user's project through the \
        tools you are given: read files before you change them, make focused edits, run commands to \
        check your work, and finish with a short summary of what you did.";

    pub fn new(model: impl Into<String>, registry: ToolRegistry) -> Self {
        Self {
            id: "core".into(),
            model: model.into(),
            registry,
            parallel_tool_calls: true,
            streaming: true,
            images: true,
            context_window_size: 128_000,
        }
    }

    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = id.into();
        self
    }

    pub fn with_parallel_tool_calls(mut self, on: bool) -> Self {
        self.parallel_tool_calls = on;
        self
    }

    pub fn with_streaming(mut self, on: bool) -> Self {
        self.streaming = on;
        self
    }

    pub fn with_context_window_size(mut self, tokens: usize) -> Self {
        self.context_window_size = tokens;
        self
    }

    pub fn with_images(mut self, on: bool) -> Self {
        self.images = on;
        self
    }
}

#[async_trait(?Send)]
impl ProviderProfile for CoreProfile {
    fn id(&self) -> &str {
        &self.id
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn tool_registry(&self) -> &ToolRegistry {
        &self.registry
    }

    async fn build_system_prompt(&self, ctx: &PromptContext<'_>) -> String {
        let mut prompt = format!("{}\n\n{}", Self::BASE_PROMPT, environment_block(ctx, &self.model));
        if let Some(extra) = ctx.user_instructions {
            prompt.push_str("\n\n");
            prompt.push_str(extra);
        }
        prompt
    }

    fn supports_reasoning(&self) -> bool {
        true
    }

    fn supports_streaming(&self) -> bool {
        self.streaming
    }

    fn supports_parallel_tool_calls(&self) -> bool {
        self.parallel_tool_calls
    }

    fn context_window_size(&self) -> usize {
        self.context_window_size
    }

    fn supports_images(&self) -> bool {
        self.images
    }
}
