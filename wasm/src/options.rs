//! `AgentOptions` from JS: the data fields read from their JSON (a misspelt field is an error that
//! names it), the functions, the `AbortSignal` and the `snapshot` read beside them.

use js_sys::Function;
use openagent_core::approval::{ApprovalMode, Policy};
use openagent_core::llm::catalog::{Catalog, Overrides};
use openagent_core::llm::json_text;
use openagent_core::llm::openai_chat::LOCAL_BASE_URL;
use openagent_core::sandbox::SandboxPolicy;
use openagent_core::session::SessionSnapshot;
use openagent_core::setup::{ProviderKind, ProviderSettings, SetupError};
use openagent_core::SessionConfig;
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::convert::{error, function_property, property};

/// The data part of the options (see the `AgentOptions` typings). Read by hand rather than with a
/// derived `Deserialize`, which costs the browser bundle several times as much.
pub struct AgentOptions {
    pub provider: String,
    pub model: Option<String>,
    pub api_key: Option<String>,
    pub base_url: Option<String>,
    pub profile: Option<String>,
    /// Whether the subagent tools are offered; the profile decides when absent.
    pub subagents: Option<bool>,
    pub reasoning_effort: Option<String>,
    pub limits: Limits,
    pub instructions: Option<String>,
    pub files: Option<Value>,
    pub working_directory: Option<String>,
    pub max_retries: Option<u32>,
    /// How long a model server may stay silent (no answer, or a body that stops) before the call
    /// fails with a timeout; `fetch` itself would wait forever.
    pub read_timeout_ms: Option<u64>,
    pub session_id: Option<String>,
    /// A JSON Schema (an object schema) every task's result must follow: the agent then offers
    /// `submit_result` and `give_up`, and `submit()` resolves with the validated `resultData`.
    pub output_schema: Option<Value>,
    pub context_window: Option<usize>,
    /// Entries laid over the model catalog: `[{ id, ...ModelInfo fields }]`.
    pub models: Option<Value>,
    pub compaction: Compaction,
    /// A saved session to go on with.
    pub snapshot: Option<SessionSnapshot>,
    /// `approval`: the mode; full-auto when absent.
    pub approval: Policy,
    /// `sandbox`: what commands may write once they run; workspace-write when absent.
    pub sandbox: SandboxPolicy,
}

#[derive(Default)]
pub struct Compaction {
    threshold_percent: Option<usize>,
    keep_recent_tokens: Option<usize>,
}

#[derive(Default)]
pub struct Limits {
    max_turns: Option<usize>,
    max_tool_rounds_per_input: Option<usize>,
    default_command_timeout_ms: Option<u64>,
    max_command_timeout_ms: Option<u64>,
    max_subagent_depth: Option<usize>,
    max_result_attempts: Option<usize>,
}

/// The options that are not data.
#[derive(Default)]
pub struct Callbacks {
    pub get_api_key: Option<Function>,
    pub on_event: Option<Function>,
    pub fetch: Option<Function>,
    pub signal: Option<web_sys::AbortSignal>,
    /// Asked when the approval policy says `ask`.
    pub on_approval: Option<Function>,
    pub hooks: Option<crate::hooks::JsHooks>,
    /// Shell commands written in JS, `{ name: function }` (see `commands`).
    pub commands: Option<JsValue>,
}

pub(crate) const CALLBACKS: [&str; 7] = ["getApiKey", "onEvent", "fetch", "signal", "onApproval", "hooks", "commands"];

pub const REASONING_EFFORTS: [&str; 4] = ["minimal", "low", "medium", "high"];

/// A setup error with what to set here: the options that say it.
pub fn explain_setup(error: &SetupError) -> String {
    match error {
        SetupError::MissingKey(_) => format!("{error}: set `apiKey` or `getApiKey`"),
        SetupError::MissingBaseUrl => format!("{error}: set `baseUrl` (e.g. {LOCAL_BASE_URL})"),
        SetupError::NoModel(_) => format!("{error}; set `model`"),
        _ => error.to_string(),
    }
}

fn invalid(why: &str) -> JsValue {
    error(&format!("invalid Agent options: {why}"))
}

/// Reads the options object.
pub fn parse(js: &JsValue) -> Result<(AgentOptions, Callbacks), JsValue> {
    if !js.is_object() {
        return Err(invalid("pass an object, e.g. { provider: \"openai\", model: \"gpt-5.2\", apiKey }"));
    }
    let owner = "Agent options";
    let callbacks = Callbacks {
        get_api_key: function_property(js, "getApiKey", owner)?,
        on_event: function_property(js, "onEvent", owner)?,
        fetch: function_property(js, "fetch", owner)?,
        on_approval: function_property(js, "onApproval", owner)?,
        hooks: property(js, "hooks").map(|hooks| crate::hooks::JsHooks::from_js(&hooks)).transpose()?,
        commands: property(js, "commands"),
        signal: match property(js, "signal") {
            None => None,
            Some(s) => Some(s.dyn_into().map_err(|_| invalid("`signal` must be an AbortSignal"))?),
        },
    };
    // Through JSON, so that every field is seen and a misspelt one does not pass silently. The
    // snapshot is read on its own: it can be large, and it may come as JSON text.
    let skip: Vec<&str> = CALLBACKS.iter().copied().chain(["snapshot"]).collect();
    let data = crate::convert::fields_json(js, &skip, "the options")?;
    let mut options = AgentOptions::from_json(&data).map_err(|e| invalid(&e))?;
    if let Some(snapshot) = property(js, "snapshot") {
        options.snapshot = Some(crate::snapshot::read(&snapshot).map_err(|e| invalid(&format!("snapshot: {e}")))?);
    }
    if let Some(effort) = &options.reasoning_effort {
        check_effort(effort)?;
    }
    Ok((options, callbacks))
}

pub fn check_effort(effort: &str) -> Result<(), JsValue> {
    if REASONING_EFFORTS.contains(&effort) {
        return Ok(());
    }
    Err(error(&format!("reasoning effort {} is not one of {}", json_text::quote(effort), REASONING_EFFORTS.join(", "))))
}

impl AgentOptions {
    fn from_json(data: &Value) -> Result<Self, String> {
        let fields = Fields::of(data, OPTION_FIELDS)?;
        let limits = match fields.0.get("limits") {
            None | Some(Value::Null) => Limits::default(),
            Some(limits) => {
                let limits = Fields::of(limits, LIMIT_FIELDS).map_err(|e| format!("limits: {e}"))?;
                Limits {
                    max_turns: limits.number("maxTurns")?,
                    max_tool_rounds_per_input: limits.number("maxToolRoundsPerInput")?,
                    default_command_timeout_ms: limits.number("defaultCommandTimeoutMs")?,
                    max_command_timeout_ms: limits.number("maxCommandTimeoutMs")?,
                    max_subagent_depth: limits.number("maxSubagentDepth")?,
                    max_result_attempts: limits.number("maxResultAttempts")?,
                }
            }
        };
        let compaction = match fields.0.get("compaction") {
            None | Some(Value::Null) => Compaction::default(),
            Some(compaction) => {
                let compaction = Fields::of(compaction, COMPACTION_FIELDS).map_err(|e| format!("compaction: {e}"))?;
                let threshold_percent = compaction.number("thresholdPercent")?;
                if threshold_percent.is_some_and(|percent| percent > 100) {
                    return Err(
                        "compaction: `thresholdPercent` is a share of the context window, from 1 to 100 (0 turns compaction off)"
                            .into(),
                    );
                }
                Compaction { threshold_percent, keep_recent_tokens: compaction.number("keepRecentTokens")? }
            }
        };
        Ok(Self {
            provider: fields.text("provider")?.ok_or("missing field `provider`")?,
            model: fields.text("model")?,
            api_key: fields.text("apiKey")?,
            base_url: fields.text("baseUrl")?,
            profile: fields.text("profile")?,
            subagents: fields.flag("subagents")?,
            reasoning_effort: fields.text("reasoningEffort")?,
            limits,
            instructions: fields.text("instructions")?,
            files: fields.0.get("files").filter(|files| !files.is_null()).cloned(),
            working_directory: fields.text("workingDirectory")?,
            max_retries: fields.number("maxRetries")?,
            read_timeout_ms: fields.number("readTimeoutMs")?.filter(|ms| *ms > 0),
            session_id: fields.text("sessionId")?,
            output_schema: fields.0.get("outputSchema").filter(|schema| !schema.is_null()).cloned(),
            context_window: fields.number("contextWindow")?,
            models: fields.0.get("models").filter(|models| !models.is_null()).cloned(),
            compaction,
            snapshot: None,
            approval: match fields.0.get("approval") {
                None | Some(Value::Null) => Policy::default(),
                // Only a mode here: rules, and the code that reads and checks them, would cost
                // the browser bundle more than the page needs (a page can answer by pattern in
                // `onApproval`, and "always" adds rules as it goes).
                Some(Value::String(mode)) => Policy { mode: ApprovalMode::parse(mode)?, rules: Vec::new() },
                Some(_) => return Err("`approval` must be \"read-only\", \"auto-edit\" or \"full-auto\"".into()),
            },
            sandbox: crate::sandbox::read(fields.0.get("sandbox"))?,
        })
    }

    /// The provider, with the key from `apiKey`; with `getApiKey`, a key the page gives before each
    /// call (`KeySource::Host`: see `AgentClient`).
    pub fn settings(&self, has_key_callback: bool) -> Result<ProviderSettings, JsValue> {
        let kind = ProviderKind::parse(&self.provider).map_err(|e| invalid(&e.to_string()))?;
        let vars = |name: &str| self.api_key.clone().filter(|_| kind.spec().key_variables.contains(&name));
        let (provider, model, base_url) = (Some(self.provider.as_str()), self.model.as_deref(), self.base_url.as_deref());
        let settings = match has_key_callback {
            true => ProviderSettings::resolve_for_host_key(provider, model, base_url, vars),
            false => ProviderSettings::resolve(provider, model, base_url, vars),
        };
        settings.map_err(|e| invalid(&explain_setup(&e)))
    }

    /// The model: the option, or the provider's default.
    pub fn model(&self, settings: &ProviderSettings) -> Result<String, JsValue> {
        settings.model.clone().ok_or_else(|| {
            invalid("an openai-compatible server has no default model: set `model` (Agent.discoverModel() asks the server)")
        })
    }

    /// The built-in model catalog with `models` over it; the error names the entry that is wrong.
    pub fn catalog(&self) -> Result<Catalog, JsValue> {
        let Some(models) = &self.models else { return Ok(Catalog::builtin().clone()) };
        let overrides = Overrides::from_json(models).map_err(|e| invalid(&e))?;
        Catalog::builtin().clone().with_overrides(overrides).map_err(|e| invalid(&e))
    }

    /// The profile's family: the option, or the provider's own.
    pub fn profile_kind(&self, settings: &ProviderSettings) -> Result<ProviderKind, JsValue> {
        match self.profile.as_deref() {
            None => Ok(settings.kind),
            Some("general") => Ok(ProviderKind::OpenAiCompatible),
            Some(name @ ("openai" | "anthropic" | "gemini")) => ProviderKind::parse(name).map_err(|e| invalid(&e.to_string())),
            Some(other) => {
                Err(invalid(&format!("profile {} is not one of openai, anthropic, gemini, general", json_text::quote(other))))
            }
        }
    }

    /// The session's settings: the options over `base` (a restored session's own, or the defaults).
    pub fn config(&self, base: SessionConfig) -> SessionConfig {
        let mut config = base;
        config.reasoning_effort = self.reasoning_effort.clone().or(config.reasoning_effort);
        config.context_window = self.context_window.or(config.context_window);
        let compaction = &self.compaction;
        config.compaction_threshold_percent = compaction.threshold_percent.unwrap_or(config.compaction_threshold_percent);
        config.compaction_keep_recent_tokens = compaction.keep_recent_tokens.or(config.compaction_keep_recent_tokens);
        let limits = &self.limits;
        config.max_turns = limits.max_turns.unwrap_or(config.max_turns);
        config.max_tool_rounds_per_input = limits.max_tool_rounds_per_input.unwrap_or(config.max_tool_rounds_per_input);
        config.default_command_timeout_ms = limits.default_command_timeout_ms.or(config.default_command_timeout_ms);
        config.max_command_timeout_ms = limits.max_command_timeout_ms.unwrap_or(config.max_command_timeout_ms);
        config.max_subagent_depth = limits.max_subagent_depth.unwrap_or(config.max_subagent_depth);
        config.max_result_attempts = limits.max_result_attempts.unwrap_or(config.max_result_attempts);
        config
    }

    /// `files`: a snapshot (it has a `version`) or `{ path: text }`.
    pub fn files(&self) -> Result<Option<Files>, JsValue> {
        match &self.files {
            None => Ok(None),
            Some(snapshot @ Value::Object(map)) if map.contains_key("version") => Ok(Some(Files::Snapshot(snapshot.clone()))),
            Some(Value::Object(map)) => {
                let mut files = Vec::with_capacity(map.len());
                for (path, content) in map {
                    let text = content.as_str().ok_or_else(|| {
                        invalid(&format!("files[{}] must be a string (the file's text)", json_text::quote(path)))
                    })?;
                    files.push((path.clone(), text.to_owned()));
                }
                Ok(Some(Files::Text(files)))
            }
            Some(_) => Err(invalid("`files` must be a snapshot (from fs.snapshot()) or an object of { path: text }")),
        }
    }
}

pub(crate) const OPTION_FIELDS: &[&str] = &[
    "provider",
    "model",
    "apiKey",
    "baseUrl",
    "profile",
    "subagents",
    "reasoningEffort",
    "limits",
    "instructions",
    "files",
    "workingDirectory",
    "maxRetries",
    "readTimeoutMs",
    "sessionId",
    "outputSchema",
    "contextWindow",
    "models",
    "compaction",
    "approval",
    "sandbox",
];

pub(crate) const COMPACTION_FIELDS: &[&str] = &["thresholdPercent", "keepRecentTokens"];

pub(crate) const LIMIT_FIELDS: &[&str] = &[
    "maxTurns",
    "maxToolRoundsPerInput",
    "defaultCommandTimeoutMs",
    "maxCommandTimeoutMs",
    "maxSubagentDepth",
    "maxResultAttempts",
];

/// An options object whose fields are all among the known ones; absent and `null` fields read as `None`.
pub(crate) struct Fields<'a>(pub(crate) &'a Map<String, Value>);

impl<'a> Fields<'a> {
    pub(crate) fn of(value: &'a Value, known: &[&str]) -> Result<Self, String> {
        let Value::Object(map) = value else { return Err("expected an object".into()) };
        if let Some(unknown) = map.keys().find(|key| !known.contains(&key.as_str())) {
            let expected: Vec<String> = known.iter().map(|name| format!("`{name}`")).collect();
            return Err(format!("unknown field `{unknown}`, expected one of {}", expected.join(", ")));
        }
        Ok(Self(map))
    }

    fn text(&self, name: &str) -> Result<Option<String>, String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(format!("`{name}` must be a string, not {}", json_text::to_string(other))),
        }
    }

    fn flag(&self, name: &str) -> Result<Option<bool>, String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(on)) => Ok(Some(*on)),
            Some(other) => Err(format!("`{name}` must be true or false, not {}", json_text::to_string(other))),
        }
    }

    /// A whole number that fits `T`.
    fn number<T: TryFrom<u64>>(&self, name: &str) -> Result<Option<T>, String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_u64()
                .and_then(|n| T::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| format!("`{name}` must be a whole number from 0, not {}", json_text::to_string(value))),
        }
    }
}

pub enum Files {
    Snapshot(Value),
    /// Path and text, as the object listed them.
    Text(Vec<(String, String)>),
}
