//! [`Client::from_env`] (unified-llm-spec 2.2): a routing client with one provider for each that
//! the environment configures, each a codec over the host's HTTP client. None of them retries
//! (spec 6.6): `generate` and `stream` retry each model call by their [`Generate::retry`]
//! policy, and a host on the low-level API wraps a client in a [`RetryingClient`] if it wants to.
//!
//! The core never reads the process environment (there is none in a browser), so the host passes
//! a lookup: natively `|name| std::env::var(name).ok()`, in a browser the settings the user typed.
//!
//! ```
//! use std::rc::Rc;
//! # use async_trait::async_trait;
//! # use openagent_llm::http::{HttpClient, HttpError, HttpErrorKind, HttpRequest, HttpResponse};
//! use openagent_llm::Client;
//! # struct Offline;
//! # #[async_trait(?Send)]
//! # impl HttpClient for Offline {
//! #     async fn send(&self, _: HttpRequest) -> Result<HttpResponse, HttpError> { Err(HttpError::new(HttpErrorKind::Connect, "offline")) }
//! # }
//!
//! let vars = |name: &str| match name {
//!     "ANTHROPIC_API_KEY" => Some("sk-ant-…".to_owned()),
//!     "OPENAI_COMPATIBLE_BASE_URL" => Some("http://127.0.0.1:8080/v1".to_owned()),
//!     _ => None,
//! };
//! let client = Client::from_env(vars, Rc::new(Offline)).unwrap();
//! assert_eq!(client.provider_names(), ["anthropic", "openai-compatible"]);
//! assert_eq!(client.default_provider(), Some("anthropic"));
//! ```
//!
//! [`Generate::retry`]: crate::Generate::retry
//! [`RetryingClient`]: crate::RetryingClient

use std::rc::Rc;

use super::codec::{ApiKey, ProviderConfig};
use super::http::HttpClient;
use super::providers::{ProviderKind, Variables, PROVIDERS};
use super::router::Client;
use super::settings::{ProviderSettings, SetupError};

impl Client {
    /// A client with a provider for each row of the [provider table](super::providers::PROVIDERS)
    /// that the variables configure, registered in the table's order, the first becoming the
    /// default. Each is resolved as [`ProviderSettings`] resolves it, extra headers included:
    ///
    /// | name | codec | configured by | base URL (default) | also read |
    /// |---|---|---|---|---|
    /// | `openai` | Responses | `OPENAI_API_KEY` | `OPENAI_BASE_URL` (`https://api.openai.com/v1`) | `OPENAI_ORG_ID`, `OPENAI_PROJECT_ID` |
    /// | `anthropic` | Messages | `ANTHROPIC_API_KEY` | `ANTHROPIC_BASE_URL` (`https://api.anthropic.com`) | |
    /// | `gemini` | generateContent | `GEMINI_API_KEY`, else `GOOGLE_API_KEY` | `GEMINI_BASE_URL` (`https://generativelanguage.googleapis.com`) | |
    /// | `openai-compatible` | Chat Completions | `OPENAI_COMPATIBLE_BASE_URL` | (none) | `OPENAI_COMPATIBLE_API_KEY` |
    ///
    /// Each provider is an [`HttpLlmClient`](super::HttpLlmClient) over `http` and does not retry.
    /// With nothing configured the client has no provider and every call is a configuration error
    /// that names the variables to set. A base URL that is not an http(s) URL is an error.
    pub fn from_env(vars: impl Fn(&str) -> Option<String>, http: Rc<dyn HttpClient>) -> Result<Client, SetupError> {
        let vars = Variables(vars);
        let mut client = Client::new();
        for spec in PROVIDERS.iter().filter(|spec| vars.configures(spec)) {
            let settings = ProviderSettings::for_spec(spec, None, None, &vars, false)?;
            client.register(spec.name, settings.client(http.clone(), false));
        }
        Ok(client)
    }

    /// Adds an OpenAI-compatible server (llama.cpp, vLLM, Ollama, LM Studio) as the provider
    /// `openai-compatible`, spoken to with the Chat Completions codec. `base_url` includes the
    /// version path, e.g. [`LOCAL_BASE_URL`](crate::openai_chat::LOCAL_BASE_URL); local servers
    /// usually need no key. It does not retry.
    pub fn add_openai_compatible(&mut self, base_url: impl Into<String>, api_key: Option<ApiKey>, http: Rc<dyn HttpClient>) {
        let config = ProviderConfig { api_key: api_key.unwrap_or_default(), base_url: base_url.into(), ..Default::default() };
        let kind = ProviderKind::OpenAiCompatible;
        self.register(kind.name(), kind.client(config, http));
    }
}

#[cfg(test)]
#[path = "from_env_tests.rs"]
mod tests;
