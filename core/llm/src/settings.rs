//! A provider resolved from what the user gave and the variables, by the
//! [provider table](crate::providers::PROVIDERS): which provider, where, with which key and extra
//! headers, and its model if one is known. This is the one resolution path:
//! [`Client::from_env`](crate::Client::from_env) registers each configured provider through it,
//! and every host (the CLI, the browser bindings, the sandbox, through `openagent_core::setup`)
//! starts its session from it, so they agree on every default. The errors say what is missing, in
//! no host's words: each host adds what to set there (a flag, a variable, an option).
//!
//! ```
//! use openagent_llm::providers::ProviderKind;
//! use openagent_llm::settings::ProviderSettings;
//!
//! let vars = |name: &str| match name {
//!     "OPENAI_API_KEY" => Some("sk-…".to_owned()),
//!     "OPENAI_ORG_ID" => Some("org-1".to_owned()),
//!     _ => None,
//! };
//! let settings = ProviderSettings::resolve(None, None, None, vars).unwrap();
//! assert_eq!(settings.kind, ProviderKind::OpenAi);
//! assert_eq!(settings.model.as_deref(), Some("gpt-5.2"));
//! assert_eq!(settings.headers, [("OpenAI-Organization".to_owned(), "org-1".to_owned())]);
//! ```

use std::rc::Rc;

use serde_json::Value;

use crate::client::LlmClient;
use crate::codec::{ApiKey, ProviderConfig};
use crate::http::{Body, HttpClient, HttpRequest, Method};
use crate::providers::{ProviderKind, ProviderSpec, UnknownProvider, Variables, PROVIDERS};

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

/// A provider, resolved: which one, where, with which key and headers, and the model if one is
/// known yet.
#[derive(Debug, Clone)]
pub struct ProviderSettings {
    pub kind: ProviderKind,
    /// `None` only for an OpenAI-compatible server with no model given: see [`discover_model`].
    pub model: Option<String>,
    pub key: KeySource,
    pub base_url: String,
    /// Sent on every request: the row's header variables that are set (OpenAI's organization and
    /// project).
    pub headers: Vec<(String, String)>,
}

impl ProviderSettings {
    /// Settings from what the user gave (`provider`, `model`, `base_url`, any of them absent) and
    /// the environment (`vars`; natively the process environment, in a browser the settings page).
    /// Without a provider, the first of the [table](PROVIDERS) that is configured is taken: one
    /// with its key set, or an OpenAI-compatible server with its URL set.
    pub fn resolve(
        provider: Option<&str>,
        model: Option<&str>,
        base_url: Option<&str>,
        vars: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, SetupError> {
        Self::resolve_with(provider, model, base_url, &Variables(vars), false)
    }

    /// [`resolve`](Self::resolve) for a host that gives each request its key itself
    /// ([`KeySource::Host`]): a provider is then never refused for want of a key.
    pub fn resolve_for_host_key(
        provider: Option<&str>,
        model: Option<&str>,
        base_url: Option<&str>,
        vars: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, SetupError> {
        Self::resolve_with(provider, model, base_url, &Variables(vars), true)
    }

    fn resolve_with<F: Fn(&str) -> Option<String>>(
        provider: Option<&str>,
        model: Option<&str>,
        base_url: Option<&str>,
        vars: &Variables<F>,
        host_key: bool,
    ) -> Result<Self, SetupError> {
        let spec = match provider {
            Some(name) => ProviderKind::parse(name)?.spec(),
            // A URL given for no named provider can only be an OpenAI-compatible server's.
            None => PROVIDERS
                .iter()
                .find(|spec| vars.configures(spec) || (!spec.needs_key && base_url.is_some()))
                .ok_or(SetupError::NoProvider)?,
        };
        Self::for_spec(spec, model, base_url, vars, host_key)
    }

    /// `spec`'s settings from `vars`, with what the user gave over them.
    pub(crate) fn for_spec<F: Fn(&str) -> Option<String>>(
        spec: &ProviderSpec,
        model: Option<&str>,
        base_url: Option<&str>,
        vars: &Variables<F>,
        host_key: bool,
    ) -> Result<Self, SetupError> {
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
        Ok(Self { kind: spec.kind, model, key, base_url, headers: vars.headers(spec) })
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

    /// The provider's codec over `http`, with the settings' key (none for [`KeySource::Host`]) and
    /// headers. It does not retry: `generate` and `stream` do, and so does the session.
    pub fn client(&self, http: Rc<dyn HttpClient>, browser: bool) -> Rc<dyn LlmClient> {
        self.client_with_key(self.key.key().cloned().unwrap_or_default(), http, browser)
    }

    /// [`client`](Self::client) with `key` on its requests: for a host that gives the key itself.
    pub fn client_with_key(&self, key: ApiKey, http: Rc<dyn HttpClient>, browser: bool) -> Rc<dyn LlmClient> {
        self.kind.client(self.config(key, browser), http)
    }

    /// What the provider's codec is built from, with `key` on its requests: for a host that builds
    /// the codec itself (the browser package builds each from a module of its own).
    pub fn config(&self, key: ApiKey, browser: bool) -> ProviderConfig {
        ProviderConfig { api_key: key, base_url: self.base_url.clone(), default_headers: self.headers.clone(), browser }
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
/// Ollama and LM Studio all answer it), in its order, with the windows they report.
pub async fn server_models(settings: &ProviderSettings, http: &dyn HttpClient) -> Result<Vec<ServerModel>, SetupError> {
    let window = |model: &Value| {
        let meta = &model["meta"];
        [&model["max_model_len"], &meta["n_ctx"], &model["context_length"], &model["max_context_length"], &meta["n_ctx_train"]]
            .into_iter()
            .find_map(Value::as_u64)
            .filter(|&tokens| tokens > 0)
    };
    let listed = listing(settings, http).await?;
    Ok(listed
        .iter()
        .filter_map(|model| Some(ServerModel { id: model["id"].as_str()?.to_owned(), context_window: window(model) }))
        .collect())
}

/// The first model an OpenAI-compatible server lists, for when the user named none. (Apart from
/// [`server_models`]: the browser asks only this, and reading windows would weigh on its bundle.)
pub async fn discover_model(settings: &ProviderSettings, http: &dyn HttpClient) -> Result<String, SetupError> {
    let listed = listing(settings, http).await?;
    let first = listed.iter().find_map(|model| model["id"].as_str());
    first.map(str::to_owned).ok_or_else(|| SetupError::NoModel(format!("{}/models listed none", settings.base_url)))
}

/// The `data` of `GET {base_url}/models`.
async fn listing(settings: &ProviderSettings, http: &dyn HttpClient) -> Result<Vec<Value>, SetupError> {
    let url = format!("{}/models", settings.base_url);
    // Spelled out rather than through `auth_header`: this runs in the browser bundle, where the
    // other providers' arms would be dead weight (only OpenAI-compatible servers are asked).
    let mut request =
        HttpRequest { method: Method::Get, url: url.clone(), headers: settings.headers.clone(), body: Body::default() };
    if let Some(key) = settings.key.key() {
        request.headers.push(("authorization".into(), format!("Bearer {}", key.expose())));
    }
    let response = http.send(request).await.map_err(|e| SetupError::NoModel(format!("GET {url}: {}", e.message)))?;
    let status = response.status;
    let body = response.bytes().await.map_err(|e| SetupError::NoModel(e.message))?;
    if !(200..300).contains(&status) {
        return Err(SetupError::NoModel(format!("GET {url} answered {status}")));
    }
    let mut listing: Value = serde_json::from_slice(&body).map_err(|e| SetupError::NoModel(format!("{url}: {e}")))?;
    match listing["data"].take() {
        Value::Array(models) => Ok(models),
        _ => Ok(Vec::new()),
    }
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
