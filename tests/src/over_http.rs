//! What the over-HTTP suites share: each API's codec pointed at a [`MockServer`] through the
//! native HTTP client, and readers for what each API's requests carry (the key, tool calls and
//! tool results), so a test can ask the same question of every wire format.

use std::rc::Rc;

use openagent_core::llm::anthropic_messages::AnthropicMessages;
use openagent_core::llm::gemini::Gemini;
use openagent_core::llm::http::HttpClient;
use openagent_core::llm::openai_chat::OpenAiChat;
use openagent_core::llm::openai_responses::OpenAiResponses;
use openagent_core::llm::{ApiKey, HttpLlmClient, LlmClient, ProviderConfig};
use openagent_core::session::{Events, SessionEvent};
use openagent_host::NativeHttpClient;
use serde_json::Value;

use crate::{Api, MockServer, RecordedRequest, Script, Step};

/// Distinctive, and not `sk-`-shaped, so only redaction of the exact key could hide it.
pub const KEY: &str = "test-key-MUST-NOT-LEAK-5e2b91";

/// Every API with a codec.
pub const APIS: [Api; 4] = [Api::Anthropic, Api::OpenAiResponses, Api::OpenAiChat, Api::Gemini];

pub fn serve(steps: impl IntoIterator<Item = Step>) -> MockServer {
    MockServer::start(Script::new(steps)).expect("a free loopback port")
}

/// The base URL each codec is configured with: Anthropic's and Gemini's are the host root (the
/// codecs add `/v1` and `/v1beta`), OpenAI's ends in /v1.
pub fn base_url(api: Api, server: &MockServer) -> String {
    match api {
        Api::Anthropic | Api::Gemini => server.base_url(),
        Api::OpenAiResponses | Api::OpenAiChat => format!("{}/v1", server.base_url()),
    }
}

/// `api`'s codec over `http`, with [`KEY`], talking to `server`. Does not retry.
pub fn model_over(api: Api, server: &MockServer, http: NativeHttpClient) -> Rc<dyn LlmClient> {
    let config = ProviderConfig { api_key: ApiKey::new(KEY), base_url: base_url(api, server), ..Default::default() };
    let http: Rc<dyn HttpClient> = Rc::new(http);
    match api {
        Api::Anthropic => Rc::new(HttpLlmClient::new(AnthropicMessages::new(config), http)),
        Api::OpenAiResponses => Rc::new(HttpLlmClient::new(OpenAiResponses::new(config), http)),
        Api::OpenAiChat => Rc::new(HttpLlmClient::new(OpenAiChat::new(config), http)),
        Api::Gemini => Rc::new(HttpLlmClient::new(Gemini::new(config), http)),
    }
}

pub fn model(api: Api, server: &MockServer) -> Rc<dyn LlmClient> {
    model_over(api, server, NativeHttpClient::new())
}

/// Whether `request` asked for a stream: Gemini says so in its path, the others in the body.
pub fn was_streamed(request: &RecordedRequest) -> bool {
    match request.api {
        Some(Api::Gemini) => request.path.contains(":streamGenerateContent"),
        _ => request.body["stream"].as_bool().unwrap_or(false),
    }
}

/// The key as `request` carried it, from the header `api` puts it in.
pub fn key_sent(api: Api, request: &RecordedRequest) -> Option<&str> {
    match api {
        Api::Anthropic => request.header("x-api-key"),
        Api::Gemini => request.header("x-goog-api-key"),
        _ => request.header("authorization").and_then(|v| v.strip_prefix("Bearer ")),
    }
}

/// How a request names the call a result answers: by call id, except for Gemini, whose 2.x models
/// (and the mock) give calls no id, so a `functionResponse` answers by function name.
pub fn wire_id<'a>(api: Api, call_id: &'a str, name: &'a str) -> &'a str {
    if api == Api::Gemini {
        name
    } else {
        call_id
    }
}

/// Gemini's request parts, in order.
fn gemini_parts(body: &Value) -> impl Iterator<Item = &Value> {
    items(&body["contents"]).flat_map(|c| items(&c["parts"]))
}

/// The tool results a request sends back, in order: ([`wire_id`], output).
pub fn tool_results_sent(api: Api, body: &Value) -> Vec<(String, String)> {
    let text = |v: &Value| v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string());
    let id = |v: &Value, key: &str| v[key].as_str().unwrap_or_default().to_owned();
    match api {
        Api::Anthropic => items(&body["messages"])
            .flat_map(|m| items(&m["content"]))
            .filter(|b| b["type"] == "tool_result")
            .map(|b| (id(b, "tool_use_id"), text(&b["content"])))
            .collect(),
        Api::OpenAiResponses => items(&body["input"])
            .filter(|i| i["type"] == "function_call_output")
            .map(|i| (id(i, "call_id"), text(&i["output"])))
            .collect(),
        Api::OpenAiChat => items(&body["messages"])
            .filter(|m| m["role"] == "tool")
            .map(|m| (id(m, "tool_call_id"), text(&m["content"])))
            .collect(),
        Api::Gemini => gemini_parts(body)
            .filter_map(|p| p.get("functionResponse"))
            .map(|r| (id(r, "name"), r["response"].as_object().and_then(|o| o.values().next()).map(text).unwrap_or_default()))
            .collect(),
    }
}

/// The tool calls a request replays from earlier assistant turns: ([`wire_id`], tool name).
pub fn tool_calls_sent(api: Api, body: &Value) -> Vec<(String, String)> {
    let pair = |v: &Value, id: &str, name: &Value| {
        (v[id].as_str().unwrap_or_default().to_owned(), name.as_str().unwrap_or_default().to_owned())
    };
    match api {
        Api::Anthropic => items(&body["messages"])
            .flat_map(|m| items(&m["content"]))
            .filter(|b| b["type"] == "tool_use")
            .map(|b| pair(b, "id", &b["name"]))
            .collect(),
        Api::OpenAiResponses => {
            items(&body["input"]).filter(|i| i["type"] == "function_call").map(|i| pair(i, "call_id", &i["name"])).collect()
        }
        Api::OpenAiChat => items(&body["messages"])
            .flat_map(|m| items(&m["tool_calls"]))
            .map(|c| pair(c, "id", &c["function"]["name"]))
            .collect(),
        Api::Gemini => gemini_parts(body).filter_map(|p| p.get("functionCall")).map(|c| pair(c, "name", &c["name"])).collect(),
    }
}

/// Gemini: the `thoughtSignature`s a request echoes back on its `functionCall` parts.
pub fn gemini_call_signatures(body: &Value) -> Vec<String> {
    gemini_parts(body)
        .filter(|p| p.get("functionCall").is_some())
        .filter_map(|p| p["thoughtSignature"].as_str().map(str::to_owned))
        .collect()
}

/// The reasoning a request replays from earlier assistant turns, as each API needs it to continue:
/// Anthropic thinking blocks with their signature, Responses reasoning items with their id and
/// encrypted content, Chat `reasoning_content` (sent only when asked for), Gemini `thought` parts.
pub fn reasoning_sent(api: Api, body: &Value) -> Vec<String> {
    let signed = |v: &Value, key: &str| v[key].as_str().is_some_and(|s| !s.is_empty());
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    match api {
        Api::Anthropic => items(&body["messages"])
            .flat_map(|m| items(&m["content"]))
            .filter(|b| b["type"] == "thinking" && signed(b, "signature"))
            .map(|b| text(&b["thinking"]))
            .collect(),
        Api::OpenAiResponses => items(&body["input"])
            .filter(|i| i["type"] == "reasoning" && signed(i, "id") && signed(i, "encrypted_content"))
            .map(|i| items(&i["summary"]).map(|s| text(&s["text"])).collect::<Vec<_>>().join("\n\n"))
            .collect(),
        Api::OpenAiChat => items(&body["messages"])
            .filter(|m| m["reasoning_content"].is_string())
            .map(|m| text(&m["reasoning_content"]))
            .collect(),
        Api::Gemini => gemini_parts(body).filter(|p| p["thought"] == true).map(|p| text(&p["text"])).collect(),
    }
}

fn items(value: &Value) -> impl Iterator<Item = &Value> {
    value.as_array().into_iter().flatten()
}

/// Every event delivered so far, without waiting.
pub fn drain(events: &mut Events) -> Vec<SessionEvent> {
    let mut out = Vec::new();
    while let Some(event) = events.try_recv() {
        out.push(event);
    }
    out
}

/// Panics if the key appears in any event, serialised as the host would see it.
pub fn assert_no_key_in(events: &[SessionEvent]) {
    for event in events {
        let json = serde_json::to_string(event).expect("events serialise");
        assert!(!json.contains(KEY), "the API key leaked into an event: {json}");
        assert!(!format!("{event:?}").contains(KEY), "the API key leaked into an event's Debug output");
    }
}
