//! The provider table: for each provider a host can name, the variables its key and base URL come
//! from, where its API lives by default, its default model and the codec that speaks to it. It is
//! the one place these are written, and [`ProviderSettings`](crate::settings::ProviderSettings) the
//! one place they are read: [`Client::from_env`](super::Client::from_env) and every host resolve
//! through it. (Which profile a provider's models get is the agent's business,
//! not the LLM layer's: that mapping is in `openagent_core::setup`.)
//!
//! ```
//! use openagent_llm::providers::ProviderKind;
//!
//! let gemini = ProviderKind::parse("gemini").unwrap().spec();
//! assert_eq!(gemini.key_variables, ["GEMINI_API_KEY", "GOOGLE_API_KEY"]);
//! assert_eq!(gemini.default_base_url, Some("https://generativelanguage.googleapis.com"));
//! ```

use std::fmt;
use std::rc::Rc;

use super::anthropic_messages::{self, AnthropicMessages};
use super::client::LlmClient;
use super::codec::{HttpLlmClient, ProviderConfig};
use super::gemini::{self, Gemini};
use super::http::HttpClient;
use super::openai_chat::OpenAiChat;
use super::openai_responses::{self, OpenAiResponses};

/// The providers a host can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// OpenAI's Responses API.
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
    /// Gemini's generateContent.
    Gemini,
    /// Any Chat Completions server (llama.cpp, vLLM, Ollama, LM Studio, gateways).
    OpenAiCompatible,
}

/// The wire API a provider speaks: which codec builds its requests and reads its answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireApi {
    OpenAiResponses,
    AnthropicMessages,
    Gemini,
    OpenAiChat,
}

/// One provider's row.
#[derive(Debug, PartialEq, Eq)]
pub struct ProviderSpec {
    pub kind: ProviderKind,
    /// How settings, flags and requests name it.
    pub name: &'static str,
    pub wire: WireApi,
    /// The variables the key is read from, the first set one winning.
    pub key_variables: &'static [&'static str],
    /// Local servers usually take no key; every other provider refuses a request without one.
    pub needs_key: bool,
    pub base_url_variable: &'static str,
    /// `None` for an OpenAI-compatible server: there is no default server to assume.
    pub default_base_url: Option<&'static str>,
    /// The model used when none is given. An OpenAI-compatible server has no fixed one: the core's
    /// `discover_model` asks it.
    pub default_model: Option<&'static str>,
    /// Headers sent on every request, each from a variable when it is set: `(header, variable)`.
    pub header_variables: &'static [(&'static str, &'static str)],
}

/// The table, in the order a provider is picked when none is named: the first with a key wins.
pub const PROVIDERS: [ProviderSpec; 4] = [
    ProviderSpec {
        kind: ProviderKind::OpenAi,
        name: "openai",
        wire: WireApi::OpenAiResponses,
        key_variables: &["OPENAI_API_KEY"],
        needs_key: true,
        base_url_variable: "OPENAI_BASE_URL",
        default_base_url: Some(openai_responses::DEFAULT_BASE_URL),
        default_model: Some("gpt-5.2"),
        header_variables: &[("OpenAI-Organization", "OPENAI_ORG_ID"), ("OpenAI-Project", "OPENAI_PROJECT_ID")],
    },
    ProviderSpec {
        kind: ProviderKind::Anthropic,
        name: "anthropic",
        wire: WireApi::AnthropicMessages,
        key_variables: &["ANTHROPIC_API_KEY"],
        needs_key: true,
        base_url_variable: "ANTHROPIC_BASE_URL",
        default_base_url: Some(anthropic_messages::DEFAULT_BASE_URL),
        default_model: Some("claude-sonnet-4-5"),
        header_variables: &[],
    },
    ProviderSpec {
        kind: ProviderKind::Gemini,
        name: "gemini",
        wire: WireApi::Gemini,
        // Google's own tools read GOOGLE_API_KEY; GEMINI_API_KEY is the spec's name and wins.
        key_variables: &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
        needs_key: true,
        base_url_variable: "GEMINI_BASE_URL",
        default_base_url: Some(gemini::DEFAULT_BASE_URL),
        default_model: Some("gemini-3-flash-preview"),
        header_variables: &[],
    },
    ProviderSpec {
        kind: ProviderKind::OpenAiCompatible,
        name: "openai-compatible",
        wire: WireApi::OpenAiChat,
        key_variables: &["OPENAI_COMPATIBLE_API_KEY"],
        needs_key: false,
        base_url_variable: "OPENAI_COMPATIBLE_BASE_URL",
        default_base_url: None,
        default_model: None,
        header_variables: &[],
    },
];

/// A name that is not in the table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider `{0}`; the providers are openai, anthropic, gemini and openai-compatible")]
pub struct UnknownProvider(pub String);

impl ProviderKind {
    /// Every provider, in the table's order.
    pub const ALL: [ProviderKind; 4] = [Self::OpenAi, Self::Anthropic, Self::Gemini, Self::OpenAiCompatible];

    /// This provider's row of [`PROVIDERS`].
    pub fn spec(self) -> &'static ProviderSpec {
        &PROVIDERS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn parse(name: &str) -> Result<Self, UnknownProvider> {
        PROVIDERS.iter().find(|spec| spec.name == name).map(|spec| spec.kind).ok_or_else(|| UnknownProvider(name.to_owned()))
    }

    /// The provider's codec over `http`, talking to `config.base_url` with `config.api_key`. It
    /// does not retry.
    pub fn client(self, config: ProviderConfig, http: Rc<dyn HttpClient>) -> Rc<dyn LlmClient> {
        match self.spec().wire {
            WireApi::OpenAiResponses => Rc::new(HttpLlmClient::new(OpenAiResponses::new(config), http)),
            WireApi::AnthropicMessages => Rc::new(HttpLlmClient::new(AnthropicMessages::new(config), http)),
            WireApi::Gemini => Rc::new(HttpLlmClient::new(Gemini::new(config), http)),
            WireApi::OpenAiChat => Rc::new(HttpLlmClient::new(OpenAiChat::new(config), http)),
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads settings from variables (natively the process environment, in a browser what the user
/// typed), the way every host does: a value is trimmed, and a blank one counts as unset (a key
/// pasted with a trailing newline would otherwise reach a header and be refused).
pub struct Variables<F>(pub F);

impl<F: Fn(&str) -> Option<String>> Variables<F> {
    pub fn get(&self, name: &str) -> Option<String> {
        (self.0)(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
    }

    /// Whether `spec` is set up by these variables: its key is set, or, for a server that takes
    /// no key, its base URL.
    pub fn configures(&self, spec: &ProviderSpec) -> bool {
        match spec.needs_key {
            true => self.key(spec).is_some(),
            false => self.get(spec.base_url_variable).is_some(),
        }
    }

    /// `spec`'s key: its first key variable that is set.
    pub fn key(&self, spec: &ProviderSpec) -> Option<String> {
        spec.key_variables.iter().find_map(|name| self.get(name))
    }

    /// `spec`'s base URL: its variable, else its default.
    pub fn base_url(&self, spec: &ProviderSpec) -> Option<String> {
        self.get(spec.base_url_variable).or_else(|| spec.default_base_url.map(str::to_owned))
    }

    /// `spec`'s extra headers, those whose variables are set.
    pub fn headers(&self, spec: &ProviderSpec) -> Vec<(String, String)> {
        spec.header_variables.iter().filter_map(|(header, name)| Some(((*header).to_owned(), self.get(name)?))).collect()
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn every_kind_is_its_own_row_and_parses_back_from_its_name() {
        for kind in ProviderKind::ALL {
            assert_eq!(kind.spec().kind, kind);
            assert_eq!(ProviderKind::parse(kind.name()), Ok(kind));
        }
        assert_eq!(
            ProviderKind::parse("mistral").unwrap_err().to_string(),
            "unknown provider `mistral`; the providers are openai, anthropic, gemini and openai-compatible"
        );
    }

    #[test]
    fn variables_are_trimmed_and_blank_ones_are_unset() {
        let vars = Variables(|name: &str| match name {
            "GEMINI_API_KEY" => Some(" \n".to_owned()),
            "GOOGLE_API_KEY" => Some(" g-key\n".to_owned()),
            "OPENAI_ORG_ID" => Some("org-1".to_owned()),
            _ => None,
        });
        assert_eq!(vars.key(ProviderKind::Gemini.spec()).as_deref(), Some("g-key"));
        assert_eq!(vars.base_url(ProviderKind::Gemini.spec()).as_deref(), Some("https://generativelanguage.googleapis.com"));
        assert_eq!(vars.base_url(ProviderKind::OpenAiCompatible.spec()), None);
        assert_eq!(vars.headers(ProviderKind::OpenAi.spec()), [("OpenAI-Organization".to_owned(), "org-1".to_owned())]);
    }
}
