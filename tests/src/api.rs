//! The four wire APIs: which request goes to which, and how each encodes a reply or an error.

use std::fmt;

use serde::Deserialize;
use serde_json::Value;

use crate::ids::Ids;
use crate::script::Reply;
use crate::wire::{Call, Framing, WireBody};
use crate::{anthropic, gemini, openai_chat, openai_responses};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
pub enum Api {
    /// `POST /v1/messages`
    #[serde(rename = "anthropic")]
    Anthropic,
    /// `POST /v1/responses`
    #[serde(rename = "openai_responses")]
    OpenAiResponses,
    /// `POST /v1/chat/completions`
    #[serde(rename = "openai_chat")]
    OpenAiChat,
    /// `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent`
    #[serde(rename = "gemini")]
    Gemini,
}

impl Api {
    /// The name scripts use in `"expect": {"api": …}`.
    pub fn name(self) -> &'static str {
        match self {
            Api::Anthropic => "anthropic",
            Api::OpenAiResponses => "openai_responses",
            Api::OpenAiChat => "openai_chat",
            Api::Gemini => "gemini",
        }
    }

    /// `reply` as this API sends it.
    pub fn encode(self, reply: &Reply, call: &Call, framing: Framing, ids: &mut Ids) -> WireBody {
        match (self, framing) {
            (Api::Anthropic, Framing::Json) => WireBody::json(&anthropic::message(reply, call, ids)),
            (Api::Anthropic, _) => WireBody::sse_named(&anthropic::events(reply, call, ids)),
            (Api::OpenAiResponses, Framing::Json) => WireBody::json(&openai_responses::response(reply, call, ids)),
            (Api::OpenAiResponses, _) => WireBody::sse_named(&openai_responses::events(reply, call, ids)),
            (Api::OpenAiChat, Framing::Json) => WireBody::json(&openai_chat::completion(reply, call, ids)),
            (Api::OpenAiChat, _) => openai_chat::stream(reply, call, ids),
            (Api::Gemini, Framing::Json) => WireBody::json(&gemini::response(reply, call, ids)),
            (Api::Gemini, Framing::Sse) => WireBody::sse_data(&gemini::chunks(reply, call, ids), "\r\n"),
            (Api::Gemini, Framing::JsonArray) => WireBody::json_array(&gemini::chunks(reply, call, ids)),
        }
    }

    /// The error body this API's provider sends with `status`.
    pub fn error_body(self, status: u16, message: &str, ids: &mut Ids) -> Value {
        match self {
            Api::Anthropic => anthropic::error(status, message, ids),
            Api::OpenAiResponses | Api::OpenAiChat => openai_responses::error(status, message),
            Api::Gemini => gemini::error(status, message),
        }
    }

    /// The request-id header this API's provider sends, if any.
    pub fn request_id(self, ids: &mut Ids) -> Option<(&'static str, String)> {
        match self {
            Api::Anthropic => Some(("request-id", anthropic::request_id(ids))),
            Api::OpenAiResponses | Api::OpenAiChat => Some(("x-request-id", openai_responses::request_id(ids))),
            Api::Gemini => None,
        }
    }
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A request matched to its API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Route {
    pub api: Api,
    pub model: String,
    pub framing: Framing,
}

/// The routes, for the message that answers an unknown path.
pub(crate) const ROUTES: &str = "POST /v1/messages, /v1/responses, /v1/chat/completions, \
     /v1beta/models/{model}:generateContent, /v1beta/models/{model}:streamGenerateContent";

/// Which API a `POST` to `path` (query included) with `body` is for. Anthropic, Responses and
/// Chat stream when the body says `"stream": true`; Gemini by its endpoint, as SSE with `alt=sse`.
pub(crate) fn route(path: &str, body: &Value) -> Option<Route> {
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    let body_model = || body["model"].as_str().unwrap_or("mock-model").to_owned();
    let body_framing = if body["stream"] == true { Framing::Sse } else { Framing::Json };
    let api = match path {
        "/v1/messages" => Api::Anthropic,
        "/v1/responses" => Api::OpenAiResponses,
        "/v1/chat/completions" => Api::OpenAiChat,
        _ => {
            let (model, method) = path.strip_prefix("/v1beta/models/")?.rsplit_once(':')?;
            let framing = match method {
                "generateContent" => Framing::Json,
                "streamGenerateContent" if query.split('&').any(|p| p == "alt=sse") => Framing::Sse,
                "streamGenerateContent" => Framing::JsonArray,
                _ => return None,
            };
            return Some(Route { api: Api::Gemini, model: model.to_owned(), framing });
        }
    };
    Some(Route { api, model: body_model(), framing: body_framing })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn routes_each_api_and_its_streaming_switch() {
        let streamed = json!({"model": "m", "stream": true});
        let r = |path: &str, body: &Value| route(path, body).map(|r| (r.api, r.model, r.framing));
        assert_eq!(r("/v1/messages", &streamed), Some((Api::Anthropic, "m".into(), Framing::Sse)));
        assert_eq!(r("/v1/responses", &json!({})), Some((Api::OpenAiResponses, "mock-model".into(), Framing::Json)));
        assert_eq!(r("/v1/chat/completions", &streamed), Some((Api::OpenAiChat, "m".into(), Framing::Sse)));
        let gemini = |path| r(path, &Value::Null);
        assert_eq!(
            gemini("/v1beta/models/gemini-2.5-flash:generateContent"),
            Some((Api::Gemini, "gemini-2.5-flash".into(), Framing::Json))
        );
        assert_eq!(gemini("/v1beta/models/g:streamGenerateContent?alt=sse"), Some((Api::Gemini, "g".into(), Framing::Sse)));
        assert_eq!(gemini("/v1beta/models/g:streamGenerateContent"), Some((Api::Gemini, "g".into(), Framing::JsonArray)));
        assert_eq!(gemini("/v1beta/models/g:countTokens"), None);
        assert_eq!(gemini("/v2/messages"), None);
    }
}
