//! [`Client::from_env`] (unified-llm-spec 2.2): a routing client with one provider per API key
//! found in the environment, each a codec over the host's HTTP client with retries above it.
//!
//! The core never reads the process environment (there is none in a browser), so the host passes
//! a lookup: natively `|name| std::env::var(name).ok()`, in a browser the settings the user typed.
//!
//! ```
//! use std::rc::Rc;
//! # use async_trait::async_trait;
//! # use openagent_llm::http::{HttpClient, HttpError, HttpErrorKind, HttpRequest, HttpResponse};
//! use openagent_llm::{Client, RetryPolicy};
//! use openagent_llm::runtime::VirtualRuntime;
//! # struct Offline;
//! # #[async_trait(?Send)]
//! # impl HttpClient for Offline {
//! #     async fn send(&self, _: HttpRequest) -> Result<HttpResponse, HttpError> { Err(HttpError::new(HttpErrorKind::Connect, "offline")) }
//! # }
//!
//! let vars = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| "sk-ant-…".to_owned());
//! let client = Client::from_env(vars, Rc::new(Offline), Rc::new(VirtualRuntime::new(|_| {})), RetryPolicy::default());
//! assert_eq!(client.provider_names(), ["anthropic"]);
//! assert_eq!(client.default_provider(), Some("anthropic"));
//! ```

use std::rc::Rc;

use super::client::LlmClient;
use super::codec::{ApiKey, ProviderConfig};
use super::http::HttpClient;
use super::providers::{ProviderKind, Variables, PROVIDERS};
use super::retry::{RetryPolicy, RetryingClient};
use super::router::Client;
use crate::runtime::Runtime;

impl Client {
    /// A client with a provider for each API key that is set and not blank, registered in the
    /// order of the [provider table](super::providers::PROVIDERS), the first becoming the default:
    ///
    /// | name | codec | key | base URL (default) | also read |
    /// |---|---|---|---|---|
    /// | `openai` | Responses | `OPENAI_API_KEY` | `OPENAI_BASE_URL` (`https://api.openai.com/v1`) | `OPENAI_ORG_ID`, `OPENAI_PROJECT_ID` |
    /// | `anthropic` | Messages | `ANTHROPIC_API_KEY` | `ANTHROPIC_BASE_URL` (`https://api.anthropic.com`) | |
    /// | `gemini` | generateContent | `GEMINI_API_KEY`, else `GOOGLE_API_KEY` | `GEMINI_BASE_URL` (`https://generativelanguage.googleapis.com`) | |
    ///
    /// (An OpenAI-compatible server needs no key, so it is not found this way: add it with
    /// [`Client::add_openai_compatible`].) Each provider is an [`HttpLlmClient`](super::HttpLlmClient)
    /// over `http`, wrapped in a [`RetryingClient`] that sleeps on `runtime`. With no key set the
    /// client has no provider and every call is a configuration error that names the variables to set.
    pub fn from_env(
        vars: impl Fn(&str) -> Option<String>,
        http: Rc<dyn HttpClient>,
        runtime: Rc<dyn Runtime>,
        policy: RetryPolicy,
    ) -> Client {
        let vars = Variables(vars);
        let mut client = Client::new();
        for spec in PROVIDERS.iter().filter(|spec| spec.needs_key) {
            let Some(key) = vars.key(spec) else { continue };
            let config = ProviderConfig {
                api_key: ApiKey::new(key),
                base_url: vars.base_url(spec).unwrap_or_default(),
                default_headers: vars.headers(spec),
                ..ProviderConfig::default()
            };
            client.register(spec.name, retrying(spec.kind.client(config, http.clone()), &runtime, &policy));
        }
        client
    }

    /// Adds an OpenAI-compatible server (llama.cpp, vLLM, Ollama, LM Studio) as the provider
    /// `openai-compatible`, spoken to with the Chat Completions codec. `base_url` includes the
    /// version path, e.g. `http://127.0.0.1:8080/v1`; local servers usually need no key.
    pub fn add_openai_compatible(
        &mut self,
        base_url: impl Into<String>,
        api_key: Option<ApiKey>,
        http: Rc<dyn HttpClient>,
        runtime: Rc<dyn Runtime>,
        policy: RetryPolicy,
    ) {
        let config = ProviderConfig { api_key: api_key.unwrap_or_default(), base_url: base_url.into(), ..Default::default() };
        let kind = ProviderKind::OpenAiCompatible;
        self.register(kind.name(), retrying(kind.client(config, http), &runtime, &policy));
    }
}

/// `inner`, retried by `policy` with its sleeps on `runtime`.
fn retrying(inner: Rc<dyn LlmClient>, runtime: &Rc<dyn Runtime>, policy: &RetryPolicy) -> Rc<dyn LlmClient> {
    Rc::new(RetryingClient::new(inner, policy.clone(), runtime.clone()))
}

#[cfg(test)]
#[path = "from_env_tests.rs"]
mod tests;
