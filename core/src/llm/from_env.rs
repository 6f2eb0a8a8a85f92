//! [`Client::from_env`] (unified-llm-spec 2.2): a routing client with one provider per API key
//! found in the environment, each a codec over the host's HTTP client with retries above it.
//!
//! The core never reads the process environment (there is none in a browser), so the host passes
//! a lookup: natively `|name| std::env::var(name).ok()`, in a browser the settings the user typed.
//!
//! ```
//! use std::rc::Rc;
//! # use async_trait::async_trait;
//! # use openagent_core::llm::http::{HttpClient, HttpError, HttpErrorKind, HttpRequest, HttpResponse};
//! use openagent_core::llm::{Client, RetryPolicy};
//! use openagent_core::runtime::VirtualRuntime;
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

use super::anthropic_messages::{self, AnthropicMessages};
use super::client::LlmClient;
use super::codec::{ApiKey, Codec, HttpLlmClient, ProviderConfig};
use super::gemini::{self, Gemini};
use super::http::HttpClient;
use super::openai_chat::{self, OpenAiChat};
use super::openai_responses::{self, OpenAiResponses};
use super::retry::{RetryPolicy, RetryingClient};
use super::router::Client;
use crate::runtime::Runtime;

impl Client {
    /// A client with a provider for each API key that is set and not blank, registered in this
    /// order, the first becoming the default:
    ///
    /// | name | codec | key | base URL (default) | also read |
    /// |---|---|---|---|---|
    /// | `openai` | Responses | `OPENAI_API_KEY` | `OPENAI_BASE_URL` (`https://api.openai.com/v1`) | `OPENAI_ORG_ID`, `OPENAI_PROJECT_ID` |
    /// | `anthropic` | Messages | `ANTHROPIC_API_KEY` | `ANTHROPIC_BASE_URL` (`https://api.anthropic.com`) | |
    /// | `gemini` | generateContent | `GEMINI_API_KEY`, else `GOOGLE_API_KEY` | `GEMINI_BASE_URL` (`https://generativelanguage.googleapis.com`) | |
    ///
    /// Each provider is an [`HttpLlmClient`] over `http`, wrapped in a [`RetryingClient`] that
    /// sleeps on `runtime`. With no key set the client has no provider and every call is a
    /// configuration error that names the variables to set.
    pub fn from_env(
        vars: impl Fn(&str) -> Option<String>,
        http: Rc<dyn HttpClient>,
        runtime: Rc<dyn Runtime>,
        policy: RetryPolicy,
    ) -> Client {
        // A key pasted with a trailing newline would otherwise reach the header and be refused.
        let var = |name: &str| vars(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        let config = |key: String, base_url: Option<String>, default: &str| ProviderConfig {
            api_key: ApiKey::new(key),
            base_url: base_url.unwrap_or_else(|| default.to_owned()),
            ..ProviderConfig::default()
        };
        let mut client = Client::new();
        if let Some(key) = var("OPENAI_API_KEY") {
            let mut config = config(key, var("OPENAI_BASE_URL"), openai_responses::DEFAULT_BASE_URL);
            let ids = [("OpenAI-Organization", "OPENAI_ORG_ID"), ("OpenAI-Project", "OPENAI_PROJECT_ID")];
            config.default_headers.extend(ids.iter().filter_map(|(header, name)| Some(((*header).to_owned(), var(name)?))));
            client.register("openai", http_provider(OpenAiResponses::new(config), &http, &runtime, &policy));
        }
        if let Some(key) = var("ANTHROPIC_API_KEY") {
            let config = config(key, var("ANTHROPIC_BASE_URL"), anthropic_messages::DEFAULT_BASE_URL);
            client.register("anthropic", http_provider(AnthropicMessages::new(config), &http, &runtime, &policy));
        }
        // Google's own tools read GOOGLE_API_KEY; GEMINI_API_KEY is the spec's name and wins.
        if let Some(key) = var("GEMINI_API_KEY").or_else(|| var("GOOGLE_API_KEY")) {
            let config = config(key, var("GEMINI_BASE_URL"), gemini::DEFAULT_BASE_URL);
            client.register("gemini", http_provider(Gemini::new(config), &http, &runtime, &policy));
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
        let codec = OpenAiChat::new(config);
        self.register(openai_chat::DEFAULT_PROVIDER, http_provider(codec, &http, &runtime, &policy));
    }
}

/// `codec` over `http`, retried by `policy` with its sleeps on `runtime`.
pub fn http_provider<C: Codec + 'static>(
    codec: C,
    http: &Rc<dyn HttpClient>,
    runtime: &Rc<dyn Runtime>,
    policy: &RetryPolicy,
) -> Rc<dyn LlmClient> {
    let inner: Rc<dyn LlmClient> = Rc::new(HttpLlmClient::new(codec, http.clone()));
    Rc::new(RetryingClient::new(inner, policy.clone(), runtime.clone()))
}

#[cfg(test)]
#[path = "from_env_tests.rs"]
mod tests;
