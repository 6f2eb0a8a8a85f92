//! Starting a session on a provider: [`ProviderSettings`] resolved from what the user gave and
//! the environment, by the [provider table](crate::llm::providers), and the profile each provider's
//! models get. The CLI, the browser bindings and the sandbox all start a session from here, so they
//! agree on every default. The errors say what is missing, in no host's words: each host adds
//! what to set there (a flag, a variable, an option).
//!
//! ```
//! use openagent_core::llm::catalog::Catalog;
//! use openagent_core::setup::{ProviderKind, ProviderSettings};
//!
//! let vars = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| "sk-ant-…".to_owned());
//! let settings = ProviderSettings::resolve(None, None, None, vars).unwrap();
//! assert_eq!(settings.kind, ProviderKind::Anthropic);
//! assert_eq!(settings.model.as_deref(), Some("claude-sonnet-4-5"));
//! let profile = settings.profile("claude-sonnet-4-5", Catalog::builtin());
//! assert_eq!((profile.id(), profile.context_window_size()), ("anthropic", 200_000));
//! ```

use std::rc::Rc;

use crate::llm::catalog::Catalog;
use crate::llm::http::{HttpClient, HttpRequest, Method};
use crate::llm::providers::{Variables, PROVIDERS};
use crate::llm::{ApiKey, LlmClient, ProviderConfig};
use crate::profiles::ProviderProfile;
use crate::profiles::{AnthropicProfile, GeminiProfile, GeneralProfile, OpenAiProfile};

pub use crate::llm::providers::{ProviderKind, UnknownProvider};

/// The profile of `kind`'s model family for `model`, the general one for an OpenAI-compatible
/// server, with the model's window, capabilities and prices from `catalog`.
pub fn profile(kind: ProviderKind, model: &str, catalog: &Catalog) -> Rc<dyn ProviderProfile> {
    match kind {
        ProviderKind::OpenAi => Rc::new(OpenAiProfile::new(model).with_catalog(catalog)),
        ProviderKind::Anthropic => Rc::new(AnthropicProfile::new(model).with_catalog(catalog)),
        ProviderKind::Gemini => Rc::new(GeminiProfile::new(model).with_catalog(catalog)),
        ProviderKind::OpenAiCompatible => Rc::new(GeneralProfile::new(model).with_catalog(catalog)),
    }
}

/// Why no provider could be set up: what is missing or wrong. A host adds where to set it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// No provider was named, none has its key set, and no OpenAI-compatible server's URL is given.
    #[error("no provider is configured")]
    NoProvider,
    #[error(transparent)]
    UnknownProvider(#[from] UnknownProvider),
    /// The provider needs an API key and none is set: its table row names the variables.
    #[error("the {0} provider needs an API key")]
    MissingKey(ProviderKind),
    /// An OpenAI-compatible server has no default URL.
    #[error("the openai-compatible provider needs the server's URL")]
    MissingBaseUrl,
    #[error("the base URL `{0}` is not an http:// or https:// URL")]
    BadBaseUrl(String),
    /// No model was given, and the OpenAI-compatible server could not name one (why, in brackets).
    #[error("no model given, and the server could not list its models ({0})")]
    NoModel(String),
}

/// Where the key on a provider's requests comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// This key, on every request; empty for a server that takes none.
    Fixed(ApiKey),
    /// The host gives each request its key itself: the browser asks its page's `getApiKey` before
    /// every call, the sandbox's host adds the key to the requests its guest makes. The settings
    /// hold none, and [`ProviderSettings::client`] sends none.
    Host,
}

impl KeySource {
    /// The key, when the settings hold one (an empty key is none).
    pub fn key(&self) -> Option<&ApiKey> {
        match self {
            Self::Fixed(key) if !key.is_empty() => Some(key),
            _ => None,
        }
    }
}

/// A provider, resolved: which one, where, with which key, and the model if one is known yet.
#[derive(Debug, Clone)]
pub struct ProviderSettings {
    pub kind: ProviderKind,
    /// `None` only for an OpenAI-compatible server with no model given: see [`discover_model`].
    pub model: Option<String>,
    pub key: KeySource,
    pub base_url: String,
}

impl ProviderSettings {
    /// Settings from what the user gave (`provider`, `model`, `base_url`, any of them absent) and
    /// the environment (`vars`; natively the process environment, in a browser the settings page).
    /// Without a provider, the first of the [table](crate::llm::providers::PROVIDERS) with a key set
    /// is taken, then an OpenAI-compatible server if its URL is set.
    pub fn resolve(
        provider: Option<&str>,
        model: Option<&str>,
        base_url: Option<&str>,
        vars: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, SetupError> {
        Self::resolve_with(provider, model, base_url, Variables(vars), false)
    }

    /// [`resolve`](Self::resolve) for a host that gives each request its key itself
    /// ([`KeySource::Host`]): a provider is then never refused for want of a key.
    pub fn resolve_for_host_key(
        provider: Option<&str>,
        model: Option<&str>,
        base_url: Option<&str>,
        vars: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, SetupError> {
        Self::resolve_with(provider, model, base_url, Variables(vars), true)
    }

    fn resolve_with<F: Fn(&str) -> Option<String>>(
        provider: Option<&str>,
        model: Option<&str>,
        base_url: Option<&str>,
        vars: Variables<F>,
        host_key: bool,
    ) -> Result<Self, SetupError> {
        let spec = match provider {
            Some(name) => ProviderKind::parse(name)?.spec(),
            None => PROVIDERS
                .iter()
                .find(|spec| match spec.needs_key {
                    true => vars.key(spec).is_some(),
                    false => base_url.is_some() || vars.get(spec.base_url_variable).is_some(),
                })
                .ok_or(SetupError::NoProvider)?,
        };
        let key = match vars.key(spec) {
            _ if host_key => KeySource::Host,
            Some(key) => KeySource::Fixed(ApiKey::new(key)),
            None if spec.needs_key => return Err(SetupError::MissingKey(spec.kind)),
            None => KeySource::Fixed(ApiKey::default()),
        };
        let base_url = base_url.map(str::to_owned).or_else(|| vars.base_url(spec)).ok_or(SetupError::MissingBaseUrl)?;
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(SetupError::BadBaseUrl(base_url));
        }
        let base_url = base_url.trim_end_matches('/').to_owned();
        let model = model.or(spec.default_model).map(str::to_owned);
        Ok(Self { kind: spec.kind, model, key, base_url })
    }

    /// The profile of the provider's model family for `model`, described by `catalog`.
    pub fn profile(&self, model: &str, catalog: &Catalog) -> Rc<dyn ProviderProfile> {
        profile(self.kind, model, catalog)
    }

    /// The header that carries the key, as this provider's API expects it; `None` without a key.
    /// For hosts that add the key to requests made by someone else (the sandbox keeps it out of
    /// its guest).
    pub fn auth_header(&self) -> Option<(&'static str, String)> {
        let key = self.key.key()?.expose();
        Some(match self.kind {
            ProviderKind::Anthropic => ("x-api-key", key.to_owned()),
            ProviderKind::Gemini => ("x-goog-api-key", key.to_owned()),
            ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => ("authorization", format!("Bearer {key}")),
        })
    }

    /// The provider's codec over `http`, with the settings' key (none for [`KeySource::Host`]).
    /// It does not retry: the session does, and reports each retry.
    pub fn client(&self, http: Rc<dyn HttpClient>, browser: bool) -> Rc<dyn LlmClient> {
        self.client_with_key(self.key.key().cloned().unwrap_or_default(), http, browser)
    }

    /// [`client`](Self::client) with `key` on its requests: for a host that gives the key itself.
    pub fn client_with_key(&self, key: ApiKey, http: Rc<dyn HttpClient>, browser: bool) -> Rc<dyn LlmClient> {
        let config = ProviderConfig { api_key: key, base_url: self.base_url.clone(), browser, ..ProviderConfig::default() };
        self.kind.client(config, http)
    }
}

/// A model an OpenAI-compatible server serves, as its `GET /models` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerModel {
    pub id: String,
    /// The window the server reports, when it reports one: vLLM's `max_model_len`, llama.cpp's
    /// `meta.n_ctx` (what it serves; `meta.n_ctx_train`, what the model was trained for, only
    /// without it), gateways' `context_length` or `max_context_length`. Ollama reports none.
    pub context_window: Option<u64>,
}

/// The models an OpenAI-compatible server lists at `GET {base_url}/models` (llama.cpp, vLLM,
/// Ollama and LM Studio all answer it), in its order.
pub async fn server_models(settings: &ProviderSettings, http: &dyn HttpClient) -> Result<Vec<ServerModel>, SetupError> {
    let url = format!("{}/models", settings.base_url);
    // Spelled out rather than through `auth_header`: this runs in the browser bundle, where the
    // other providers' arms would be dead weight (only OpenAI-compatible servers are asked).
    let mut request = HttpRequest { method: Method::Get, url: url.clone(), headers: Vec::new(), body: Vec::new() };
    if let Some(key) = settings.key.key() {
        request.headers.push(("authorization".into(), format!("Bearer {}", key.expose())));
    }
    let response = http.send(request).await.map_err(|e| SetupError::NoModel(format!("GET {url}: {}", e.message)))?;
    let status = response.status;
    let body = response.bytes().await.map_err(|e| SetupError::NoModel(e.message))?;
    if !(200..300).contains(&status) {
        return Err(SetupError::NoModel(format!("GET {url} answered {status}")));
    }
    let listing: serde_json::Value = serde_json::from_slice(&body).map_err(|e| SetupError::NoModel(format!("{url}: {e}")))?;
    let window = |model: &serde_json::Value| {
        ["/max_model_len", "/meta/n_ctx", "/context_length", "/max_context_length", "/meta/n_ctx_train"]
            .iter()
            .find_map(|pointer| model.pointer(pointer).and_then(serde_json::Value::as_u64))
            .filter(|&tokens| tokens > 0)
    };
    let models = listing["data"].as_array().map_or(&[][..], Vec::as_slice);
    Ok(models
        .iter()
        .filter_map(|model| Some(ServerModel { id: model["id"].as_str()?.to_owned(), context_window: window(model) }))
        .collect())
}

/// The first model an OpenAI-compatible server lists, for when the user named none.
pub async fn discover_model(settings: &ProviderSettings, http: &dyn HttpClient) -> Result<String, SetupError> {
    let models = server_models(settings, http).await?;
    let first = models.into_iter().next().map(|model| model.id);
    first.ok_or_else(|| SetupError::NoModel(format!("{}/models listed none", settings.base_url)))
}

#[cfg(test)]
#[path = "setup_tests.rs"]
mod tests;
