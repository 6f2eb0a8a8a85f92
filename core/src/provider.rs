//! Choosing a provider: for each provider a host can name, its wire format, its profile, its
//! default model, where its key and base URL come from. The CLI, the browser bindings and the
//! sandbox all start a session from [`ProviderSettings`], so they agree on every default and
//! every error message.
//!
//! ```
//! use openagent_core::provider::{ProviderKind, ProviderSettings};
//!
//! let vars = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| "sk-ant-…".to_owned());
//! let settings = ProviderSettings::resolve(None, None, None, vars).unwrap();
//! assert_eq!(settings.kind, ProviderKind::Anthropic);
//! assert_eq!(settings.model.as_deref(), Some("claude-sonnet-4-5"));
//! assert_eq!(settings.profile("claude-sonnet-4-5").id(), "anthropic");
//! ```

use std::fmt;
use std::rc::Rc;

use crate::llm::anthropic_messages::{self, AnthropicMessages};
use crate::llm::gemini::{self, Gemini};
use crate::llm::http::{HttpClient, HttpRequest, Method};
use crate::llm::openai_chat::OpenAiChat;
use crate::llm::openai_responses::{self, OpenAiResponses};
use crate::llm::{ApiKey, HttpLlmClient, LlmClient, ProviderConfig};
use crate::profile::ProviderProfile;
use crate::profiles::{AnthropicProfile, GeminiProfile, GeneralProfile, OpenAiProfile};

/// The providers a host can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// OpenAI's Responses API, with the OpenAI profile.
    OpenAi,
    /// Anthropic's Messages API, with the Anthropic profile.
    Anthropic,
    /// Gemini's generateContent, with the Gemini profile.
    Gemini,
    /// Any Chat Completions server (llama.cpp, vLLM, Ollama, LM Studio, gateways), with the general profile.
    OpenAiCompatible,
}

impl ProviderKind {
    /// In the order a provider is picked when none is named: the first with a key wins.
    pub const ALL: [ProviderKind; 4] = [Self::OpenAi, Self::Anthropic, Self::Gemini, Self::OpenAiCompatible];

    pub fn name(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
            Self::OpenAiCompatible => "openai-compatible",
        }
    }

    pub fn parse(name: &str) -> Result<Self, SetupError> {
        Self::ALL.into_iter().find(|kind| kind.name() == name).ok_or_else(|| SetupError::UnknownProvider(name.to_owned()))
    }

    /// The model used when none is given. An OpenAI-compatible server has no fixed one: ask it
    /// with [`discover_model`].
    pub fn default_model(self) -> Option<&'static str> {
        match self {
            Self::OpenAi => Some("gpt-5.2"),
            Self::Anthropic => Some("claude-sonnet-4-5"),
            Self::Gemini => Some("gemini-3-flash-preview"),
            Self::OpenAiCompatible => None,
        }
    }

    /// The variables the key is read from, the first set one winning.
    pub fn key_variables(self) -> &'static [&'static str] {
        match self {
            Self::OpenAi => &["OPENAI_API_KEY"],
            Self::Anthropic => &["ANTHROPIC_API_KEY"],
            Self::Gemini => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            Self::OpenAiCompatible => &["OPENAI_COMPATIBLE_API_KEY"],
        }
    }

    pub fn base_url_variable(self) -> &'static str {
        match self {
            Self::OpenAi => "OPENAI_BASE_URL",
            Self::Anthropic => "ANTHROPIC_BASE_URL",
            Self::Gemini => "GEMINI_BASE_URL",
            Self::OpenAiCompatible => "OPENAI_COMPATIBLE_BASE_URL",
        }
    }

    /// `None` for an OpenAI-compatible server: there is no default server to assume.
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            Self::OpenAi => Some(openai_responses::DEFAULT_BASE_URL),
            Self::Anthropic => Some(anthropic_messages::DEFAULT_BASE_URL),
            Self::Gemini => Some(gemini::DEFAULT_BASE_URL),
            Self::OpenAiCompatible => None,
        }
    }

    /// The profile of this provider's model family for `model`: the general one for an
    /// OpenAI-compatible server.
    pub fn profile(self, model: &str) -> Rc<dyn ProviderProfile> {
        match self {
            Self::OpenAi => Rc::new(OpenAiProfile::new(model)),
            Self::Anthropic => Rc::new(AnthropicProfile::new(model)),
            Self::Gemini => Rc::new(GeminiProfile::new(model)),
            Self::OpenAiCompatible => Rc::new(GeneralProfile::new(model)),
        }
    }

    /// Local servers usually take no key.
    pub fn needs_key(self) -> bool {
        self != Self::OpenAiCompatible
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why no provider could be set up. Each message says what to set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error(
        "no provider is configured. Set one of OPENAI_API_KEY (openai), ANTHROPIC_API_KEY (anthropic), GEMINI_API_KEY or \
         GOOGLE_API_KEY (gemini); or use a local OpenAI-compatible server with `--provider openai-compatible --base-url \
         http://127.0.0.1:8080/v1` (or set OPENAI_COMPATIBLE_BASE_URL)"
    )]
    NoProvider,
    #[error("unknown provider `{0}`; the providers are openai, anthropic, gemini and openai-compatible")]
    UnknownProvider(String),
    #[error("the {provider} provider needs an API key: set {variables}")]
    MissingKey { provider: ProviderKind, variables: String },
    #[error(
        "the openai-compatible provider needs the server's URL: pass --base-url (e.g. http://127.0.0.1:8080/v1) or set \
         OPENAI_COMPATIBLE_BASE_URL"
    )]
    MissingBaseUrl,
    #[error("the base URL `{0}` is not an http:// or https:// URL")]
    BadBaseUrl(String),
    #[error("{0}")]
    NoModel(String),
}

/// A provider, resolved: which one, where, with which key, and the model if one is known yet.
#[derive(Debug, Clone)]
pub struct ProviderSettings {
    pub kind: ProviderKind,
    /// `None` only for an OpenAI-compatible server with no model given: see [`discover_model`].
    pub model: Option<String>,
    pub api_key: ApiKey,
    pub base_url: String,
}

impl ProviderSettings {
    /// Settings from what the user gave (`provider`, `model`, `base_url`, any of them absent) and
    /// the environment (`vars`; natively the process environment, in a browser the settings page).
    /// Without a provider, the first of [`ProviderKind::ALL`] with a key set is taken, then an
    /// OpenAI-compatible server if its URL is set.
    pub fn resolve(
        provider: Option<&str>,
        model: Option<&str>,
        base_url: Option<&str>,
        vars: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, SetupError> {
        // A value pasted with a trailing newline would otherwise reach a header and be refused.
        let var = |name: &str| vars(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        let key_of = |kind: ProviderKind| kind.key_variables().iter().find_map(|name| var(name));
        let kind = match provider {
            Some(name) => ProviderKind::parse(name)?,
            None => ProviderKind::ALL
                .into_iter()
                .find(|&kind| {
                    if kind.needs_key() {
                        key_of(kind).is_some()
                    } else {
                        base_url.is_some() || var(kind.base_url_variable()).is_some()
                    }
                })
                .ok_or(SetupError::NoProvider)?,
        };
        let api_key = match key_of(kind) {
            Some(key) => ApiKey::new(key),
            None if kind.needs_key() => {
                return Err(SetupError::MissingKey { provider: kind, variables: kind.key_variables().join(" or ") })
            }
            None => ApiKey::default(),
        };
        let base_url = base_url
            .map(str::to_owned)
            .or_else(|| var(kind.base_url_variable()))
            .or_else(|| kind.default_base_url().map(str::to_owned))
            .ok_or(SetupError::MissingBaseUrl)?;
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(SetupError::BadBaseUrl(base_url));
        }
        let base_url = base_url.trim_end_matches('/').to_owned();
        let model = model.map(str::to_owned).or_else(|| kind.default_model().map(str::to_owned));
        Ok(Self { kind, model, api_key, base_url })
    }

    /// The profile of the provider's model family for `model`.
    pub fn profile(&self, model: &str) -> Rc<dyn ProviderProfile> {
        self.kind.profile(model)
    }

    /// The header that carries the key, as this provider's API expects it; `None` without a key.
    /// For hosts that add the key to requests made by someone else (the sandbox keeps it out of
    /// its guest).
    pub fn auth_header(&self) -> Option<(&'static str, String)> {
        if self.api_key.is_empty() {
            return None;
        }
        let key = self.api_key.expose();
        Some(match self.kind {
            ProviderKind::Anthropic => ("x-api-key", key.to_owned()),
            ProviderKind::Gemini => ("x-goog-api-key", key.to_owned()),
            ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => ("authorization", format!("Bearer {key}")),
        })
    }

    /// The provider's codec over `http`. It does not retry: the session does, and reports each retry.
    pub fn client(&self, http: Rc<dyn HttpClient>, browser: bool) -> Rc<dyn LlmClient> {
        let config = ProviderConfig {
            api_key: self.api_key.clone(),
            base_url: self.base_url.clone(),
            browser,
            ..ProviderConfig::default()
        };
        match self.kind {
            ProviderKind::OpenAi => Rc::new(HttpLlmClient::new(OpenAiResponses::new(config), http)),
            ProviderKind::Anthropic => Rc::new(HttpLlmClient::new(AnthropicMessages::new(config), http)),
            ProviderKind::Gemini => Rc::new(HttpLlmClient::new(Gemini::new(config), http)),
            ProviderKind::OpenAiCompatible => Rc::new(HttpLlmClient::new(OpenAiChat::new(config), http)),
        }
    }
}

/// The first model an OpenAI-compatible server lists at `GET {base_url}/models` (llama.cpp,
/// vLLM, Ollama and LM Studio all answer it), for when the user named none.
pub async fn discover_model(settings: &ProviderSettings, http: &dyn HttpClient) -> Result<String, SetupError> {
    let url = format!("{}/models", settings.base_url);
    let no_model = |why: String| {
        SetupError::NoModel(format!("no model given, and the server could not list its models ({why}); pass --model"))
    };
    // Spelled out rather than through `auth_header`: this runs in the browser bundle, where the
    // other providers' arms would be dead weight (only OpenAI-compatible servers are asked).
    let mut request = HttpRequest { method: Method::Get, url: url.clone(), headers: Vec::new(), body: Vec::new() };
    if !settings.api_key.is_empty() {
        request.headers.push(("authorization".into(), format!("Bearer {}", settings.api_key.expose())));
    }
    let response = http.send(request).await.map_err(|e| no_model(format!("GET {url}: {}", e.message)))?;
    let status = response.status;
    let body = response.bytes().await.map_err(|e| no_model(e.message))?;
    if !(200..300).contains(&status) {
        return Err(no_model(format!("GET {url} answered {status}")));
    }
    let listing: serde_json::Value = serde_json::from_slice(&body).map_err(|e| no_model(format!("{url}: {e}")))?;
    listing["data"]
        .as_array()
        .and_then(|models| models.iter().find_map(|m| m["id"].as_str()))
        .map(str::to_owned)
        .ok_or_else(|| no_model(format!("{url} listed none")))
}

#[cfg(test)]
#[path = "provider_tests.rs"]
mod tests;
