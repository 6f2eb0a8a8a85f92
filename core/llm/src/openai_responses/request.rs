//! A unified [`Request`] as a Responses API request (spec 7.2, 7.3, 7.4).

use serde_json::{Map, Value};

use super::error::invalid;
use super::{messages, options, tools, DEFAULT_BASE_URL};
use crate::codec::ProviderConfig;
use crate::error::LlmError;
use crate::http::HttpRequest;
use crate::json::object;
use crate::memo::{write_body, MessageMemo};
use crate::types::{Message, Request, ResponseFormat, Role};

/// What the API needs to hand reasoning back in a stateless conversation.
const ENCRYPTED_REASONING: &str = "reasoning.encrypted_content";

pub(super) fn build(config: &ProviderConfig, request: &Request, stream: bool) -> Result<HttpRequest, LlmError> {
    let options = options::read(request)?;
    let chain = options::chain(&options)?;
    // The API's own default is `store: true`; ours is stateless, so replay decides on this. A
    // chained conversation is the server's to keep.
    let store = options.get("store").and_then(Value::as_bool).unwrap_or(chain);
    if chain && !store {
        return Err(invalid("provider_options.openai.chain continues responses the server stores: it needs store true"));
    }
    let mut body = body(request, store)?;
    if stream {
        body.insert("stream".into(), Value::Bool(true));
    }
    options::merge_into(&mut body, &options);
    let custom_calls = messages::custom_calls(&request.messages);
    let key = format!("responses {store}");
    let mut encode = |message: &Message, items: &mut Vec<Value>| messages::input(message, store, &custom_calls, items);
    let tools = (!request.tools.is_empty())
        .then(|| request.memo.tools_text("responses", &request.tools, &|| tools::tools(&request.tools)));
    let bytes = match continued(request).filter(|_| chain) {
        // Only what came after the response the server keeps.
        Some((id, covered)) => {
            body.insert("previous_response_id".into(), Value::String(id));
            let messages = &request.messages[covered..];
            write_body(&body, "input", messages, &MessageMemo::default(), &key, &mut encode, tools.as_deref())?
        }
        None => write_body(&body, "input", &request.messages, &request.memo, &key, &mut encode, tools.as_deref())?,
    };
    let base_url = config.base_url.trim_end_matches('/');
    let base_url = if base_url.is_empty() { DEFAULT_BASE_URL } else { base_url };
    let mut http = HttpRequest::post_json(format!("{base_url}/responses"), bytes);
    if !config.api_key.is_empty() {
        http.headers.push(("Authorization".into(), format!("Bearer {}", config.api_key.expose())));
    }
    if stream {
        http.headers.push(("Accept".into(), "text/event-stream".into()));
    }
    options::headers(&options, &mut http.headers)?;
    http.headers.extend(config.default_headers.iter().cloned());
    Ok(http)
}

/// The response the server keeps the start of this conversation as, and how many messages that
/// is: the memo's, if this history still begins with them (their last is the answer).
fn continued(request: &Request) -> Option<(String, usize)> {
    let (id, covered) = request.memo.continuation()?;
    let answer = request.messages.get(covered.checked_sub(1)?)?;
    (answer.role == Role::Assistant).then_some((id, covered))
}

fn body(request: &Request, store: bool) -> Result<Map<String, Value>, LlmError> {
    if !request.stop_sequences.is_empty() {
        return Err(invalid(
            "the OpenAI Responses API has no stop sequences; leave stop_sequences empty (the openai_chat codec supports them)",
        ));
    }
    let mut body = Map::new();
    body.insert("model".into(), Value::String(request.model.clone()));
    let instructions = messages::instructions(&request.messages);
    if !instructions.is_empty() {
        body.insert("instructions".into(), Value::String(instructions));
    }
    // A placeholder: `write_body` writes the items in its place.
    body.insert("input".into(), Value::Null);
    body.insert("store".into(), Value::Bool(store));
    if !store {
        body.insert("include".into(), Value::Array(vec![ENCRYPTED_REASONING.into()]));
    }
    if !request.tools.is_empty() {
        // A placeholder: `write_body` writes the memo's text of the tools in its place.
        body.insert("tools".into(), Value::Null);
    }
    if let Some(choice) = &request.tool_choice {
        body.insert("tool_choice".into(), tools::tool_choice(choice));
    }
    if let Some(format) = &request.response_format {
        body.insert("text".into(), object(vec![("format", text_format(format))]));
    }
    if let Some(effort) = &request.reasoning_effort {
        // `summary: auto` asks for the readable summary wherever the account may see one.
        body.insert("reasoning".into(), object(vec![("effort", effort.as_str().into()), ("summary", "auto".into())]));
    }
    let numbers = [
        ("max_output_tokens", request.max_tokens.map(Value::from)),
        ("temperature", request.temperature.map(Value::from)),
        ("top_p", request.top_p.map(Value::from)),
    ];
    for (key, value) in numbers {
        if let Some(value) = value {
            body.insert(key.into(), value);
        }
    }
    if !request.metadata.is_empty() {
        // Inserted one by one: collecting into a map sorts first, with a copy of the standard sort
        // (about 4 KB of wasm) that nothing else in the browser bundle uses; the keys are sorted.
        let mut metadata = Map::new();
        for (key, value) in &request.metadata {
            metadata.insert(key.clone(), Value::from(value.as_str()));
        }
        body.insert("metadata".into(), Value::Object(metadata));
    }
    Ok(body)
}

/// `text.format`. A `json_schema` format is either the schema itself (named `response`) or
/// OpenAI's own envelope `{name, schema, description?}`, which keeps the name the model sees.
fn text_format(format: &ResponseFormat) -> Value {
    match format {
        ResponseFormat::Text => object(vec![("type", "text".into())]),
        ResponseFormat::Json => object(vec![("type", "json_object".into())]),
        ResponseFormat::JsonSchema { json_schema, strict } => {
            let envelope =
                json_schema.get("schema").filter(|s| s.is_object()).zip(json_schema.get("name").filter(|n| n.is_string()));
            let (name, schema) = match envelope {
                Some((schema, name)) => (name.clone(), schema.clone()),
                None => ("response".into(), json_schema.clone()),
            };
            let mut format =
                vec![("type", "json_schema".into()), ("name", name), ("schema", schema), ("strict", (*strict).into())];
            if let Some(description) = envelope.and(json_schema.get("description")) {
                format.push(("description", description.clone()));
            }
            object(format)
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::codec::ApiKey;
    use crate::error::ErrorKind;
    use crate::types::ToolDefinition;
    use crate::types::{ContentPart, MediaData, Message, Role, ThinkingData, ToolCall, ToolChoice, ToolResult};
    use serde_json::json;

    fn config() -> ProviderConfig {
        ProviderConfig {
            api_key: ApiKey::new("sk-test-key"),
            base_url: "https://api.openai.com/v1/".into(),
            ..Default::default()
        }
    }

    fn request(messages: Vec<Message>) -> Request {
        Request { model: "gpt-5-nano".into(), messages, ..Default::default() }
    }

    fn sent(request: &Request) -> Value {
        let http = build(&config(), request, false).unwrap();
        serde_json::from_slice(&http.body.to_vec()).unwrap()
    }

    #[test]
    fn url_headers_and_the_key_only_in_its_header() {
        let mut req = request(vec![Message::user("Hi")]);
        req.provider_options = Some(json!({"openai": {"organization": "org-1", "project": "proj-1"}}));
        let http = build(&config(), &req, true).unwrap();
        assert_eq!(http.url, "https://api.openai.com/v1/responses");
        assert_eq!(http.header("authorization"), Some("Bearer sk-test-key"));
        assert_eq!(http.header("openai-organization"), Some("org-1"));
        assert_eq!(http.header("openai-project"), Some("proj-1"));
        assert_eq!(http.header("accept"), Some("text/event-stream"));
        let body = String::from_utf8(http.body.to_vec()).unwrap();
        assert!(!body.contains("sk-test-key") && !body.contains("org-1"), "{body}");
        assert!(!format!("{http:?}").contains("sk-test-key"));
        let keyless = ProviderConfig { base_url: String::new(), ..ProviderConfig::default() };
        let http = build(&keyless, &request(vec![Message::user("Hi")]), false).unwrap();
        assert_eq!((http.url.as_str(), http.header("authorization")), ("https://api.openai.com/v1/responses", None));
    }

    #[test]
    fn stateless_by_default_and_streaming_on_request() {
        let body = sent(&request(vec![Message::user("Hi")]));
        assert_eq!(body["store"], false);
        assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
        assert!(body.get("stream").is_none());
        let http = build(&config(), &request(vec![Message::user("Hi")]), true).unwrap();
        assert_eq!(serde_json::from_slice::<Value>(&http.body.to_vec()).unwrap()["stream"], true);
    }

    #[test]
    fn system_and_developer_messages_become_instructions() {
        let body = sent(&request(vec![
            Message::system("Be brief."),
            Message::text_message(Role::Developer, "Use metric units."),
            Message::user("Hi"),
            Message::assistant("Hello."),
        ]));
        assert_eq!(body["instructions"], "Be brief.\n\nUse metric units.");
        assert_eq!(
            body["input"],
            json!([
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hello."}]}
            ])
        );
    }

    #[test]
    fn images_and_files_by_url_or_inline_data() {
        let png = MediaData { data: Some(vec![1, 2, 3]), ..MediaData::default() };
        let url = MediaData { url: Some("https://x/cat.jpg".into()), detail: Some("low".into()), ..MediaData::default() };
        let pdf = MediaData { data: Some(b"%PDF".to_vec()), file_name: Some("a.pdf".into()), ..MediaData::default() };
        let linked = MediaData { url: Some("https://x/a.pdf".into()), ..MediaData::default() };
        let body = sent(&request(vec![Message::new(
            Role::User,
            vec![
                ContentPart::Image { image: png },
                ContentPart::Image { image: url },
                ContentPart::Document { document: pdf },
                ContentPart::Document { document: linked },
            ],
        )]));
        assert_eq!(
            body["input"][0]["content"],
            json!([
                {"type": "input_image", "image_url": "data:image/png;base64,AQID", "detail": "auto"},
                {"type": "input_image", "image_url": "https://x/cat.jpg", "detail": "low"},
                {"type": "input_file", "filename": "a.pdf", "file_data": "data:application/pdf;base64,JVBERg=="},
                {"type": "input_file", "file_url": "https://x/a.pdf"}
            ])
        );
        let audio = Message::new(Role::User, vec![ContentPart::Audio { audio: MediaData::default() }]);
        let e = build(&config(), &request(vec![audio]), false).unwrap_err();
        assert!(e.message.contains("audio"), "{e}");
    }

    #[test]
    fn tool_calls_and_results_are_top_level_items_in_order() {
        let mut first = ToolCall::from_raw("call_sf", "get_weather", "{\"location\": \"SF\"}");
        first.signature = Some("fc_1".into());
        let second = ToolCall::new("call_ny", "get_weather", json!({"location": "NY"}));
        let assistant = Message::new(
            Role::Assistant,
            vec![
                ContentPart::text("Checking."),
                ContentPart::ToolCall { tool_call: first },
                ContentPart::ToolCall { tool_call: second },
            ],
        );
        let body = sent(&request(vec![
            Message::user("Weather?"),
            assistant,
            Message::tool_result(ToolResult::new("call_sf", "65F", false)),
            Message::tool_result(ToolResult::new("call_ny", "failed: timeout", true)),
        ]));
        assert_eq!(
            body["input"],
            json!([
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather?"}]},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Checking."}]},
                {"type": "function_call", "call_id": "call_sf", "name": "get_weather", "arguments": "{\"location\": \"SF\"}"},
                {"type": "function_call", "call_id": "call_ny", "name": "get_weather", "arguments": "{\"location\":\"NY\"}"},
                {"type": "function_call_output", "call_id": "call_sf", "output": "65F"},
                {"type": "function_call_output", "call_id": "call_ny", "output": "failed: timeout"}
            ])
        );
    }

    #[test]
    fn a_memo_gives_the_bytes_of_a_fresh_encoding_round_after_round() {
        let mut req = request(vec![Message::system("be brief"), Message::user("Weather?")]);
        req.memo = crate::MessageMemo::new();
        for round in 0..3 {
            let fresh = build(&config(), &req.clone(), true).unwrap().body;
            assert_eq!(build(&config(), &req, true).unwrap().body, fresh, "round {round}");
            let id = format!("call_{round}");
            let call = ContentPart::ToolCall { tool_call: ToolCall::from_raw(&id, "get_weather", "{}") };
            req.messages.push(Message::new(Role::Assistant, vec![ContentPart::text("Checking."), call]));
            req.messages.push(Message::tool_result(ToolResult::new(id, format!("{round}5F"), false)));
        }
        // Stored items are written another way: the memo starts afresh for them.
        req.provider_options = Some(json!({"openai": {"store": true}}));
        assert_eq!(build(&config(), &req, true).unwrap().body, build(&config(), &req.clone(), true).unwrap().body);
        assert_eq!(sent(&req)["input"].as_array().unwrap().len(), 1 + 3 * 3);
    }

    #[test]
    fn the_item_id_goes_back_only_when_items_are_stored() {
        let mut call = ToolCall::from_raw("call_1", "f", "{}");
        call.signature = Some("fc_1".into());
        let mut req = request(vec![Message::new(Role::Assistant, vec![ContentPart::ToolCall { tool_call: call }])]);
        assert!(sent(&req)["input"][0].get("id").is_none());
        req.provider_options = Some(json!({"openai": {"store": true}}));
        let body = sent(&req);
        assert_eq!(body["input"][0]["id"], "fc_1");
        assert!(body.get("include").is_none(), "stored conversations need no encrypted reasoning");
    }

    #[test]
    fn custom_calls_and_their_results_keep_their_custom_types() {
        let mut call = ToolCall::new("call_c", "note", json!("free text"));
        call.call_type = "custom".into();
        let body = sent(&request(vec![
            Message::new(Role::Assistant, vec![ContentPart::ToolCall { tool_call: call }]),
            Message::tool_result(ToolResult::new("call_c", "noted", false)),
        ]));
        assert_eq!(
            body["input"],
            json!([
                {"type": "custom_tool_call", "call_id": "call_c", "name": "note", "input": "free text"},
                {"type": "custom_tool_call_output", "call_id": "call_c", "output": "noted"}
            ])
        );
    }

    #[test]
    fn tool_results_with_images_and_plain_tool_messages() {
        let mut result = ToolResult::new("call_1", "a chart", false);
        result.image_data = Some(vec![0xff]);
        result.image_media_type = Some("image/jpeg".into());
        let plain = Message { tool_call_id: Some("call_2".into()), ..Message::text_message(Role::Tool, "42") };
        let body = sent(&request(vec![Message::tool_result(result), plain]));
        assert_eq!(
            body["input"],
            json!([
                {"type": "function_call_output", "call_id": "call_1", "output": [
                    {"type": "input_text", "text": "a chart"},
                    {"type": "input_image", "image_url": "data:image/jpeg;base64,/w==", "detail": "auto"}
                ]},
                {"type": "function_call_output", "call_id": "call_2", "output": "42"}
            ])
        );
        let orphan = Message::text_message(Role::Tool, "42");
        assert_eq!(build(&config(), &request(vec![orphan]), false).unwrap_err().kind, ErrorKind::InvalidRequest);
    }

    fn thinking(id: Option<&str>, text: &str, signature: Option<&str>) -> ContentPart {
        let thinking =
            ThinkingData { text: text.into(), signature: signature.map(Into::into), redacted: false, id: id.map(Into::into) };
        ContentPart::Thinking { thinking }
    }

    #[test]
    fn reasoning_is_replayed_with_id_summary_and_encrypted_content() {
        let assistant =
            Message::new(Role::Assistant, vec![thinking(Some("rs_1"), "Think.", Some("enc")), ContentPart::text("Paris.")]);
        let body = sent(&request(vec![Message::user("Capital?"), assistant]));
        assert_eq!(
            body["input"][1],
            json!({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Think."}], "encrypted_content": "enc"})
        );
        assert_eq!(body["input"][2]["role"], "assistant");
    }

    #[test]
    fn reasoning_the_api_would_reject_is_left_out() {
        let user = Message::user("next");
        // Cut off while reasoning: nothing follows it, and the API refuses such an item.
        let unanswered = Message::new(Role::Assistant, vec![thinking(Some("rs_1"), "", Some("enc"))]);
        // Stateless, an id alone refers to nothing.
        let id_only = Message::new(Role::Assistant, vec![thinking(Some("rs_2"), "", None), ContentPart::text("ok")]);
        let redacted = Message::new(
            Role::Assistant,
            vec![
                ContentPart::RedactedThinking { thinking: ThinkingData { redacted: true, ..Default::default() } },
                ContentPart::text("ok"),
            ],
        );
        let body = sent(&request(vec![unanswered, id_only.clone(), redacted, user]));
        let types: Vec<&str> = body["input"].as_array().unwrap().iter().map(|i| i["type"].as_str().unwrap()).collect();
        assert_eq!(types, ["message", "message", "message"]);
        let mut stored = request(vec![id_only]);
        stored.provider_options = Some(json!({"openai": {"store": true}}));
        assert_eq!(sent(&stored)["input"][0], json!({"type": "reasoning", "id": "rs_2", "summary": []}));
    }

    #[test]
    fn tools_choice_and_generation_parameters() {
        let mut req = request(vec![Message::user("Hi")]);
        req.tools =
            vec![ToolDefinition { name: "f".into(), description: "does f".into(), parameters: json!({"type": "object"}) }];
        req.tool_choice = Some(ToolChoice::Named { tool_name: "f".into() });
        req.max_tokens = Some(300);
        req.temperature = Some(0.5);
        req.top_p = Some(0.9);
        req.reasoning_effort = Some("high".into());
        req.metadata.insert("run".into(), "7".into());
        let body = sent(&req);
        assert_eq!(
            body["tools"],
            json!([{"type": "function", "name": "f", "description": "does f", "parameters": {"type": "object"}, "strict": false}])
        );
        assert_eq!(body["tool_choice"], json!({"type": "function", "name": "f"}));
        assert_eq!((&body["max_output_tokens"], &body["temperature"], &body["top_p"]), (&json!(300), &json!(0.5), &json!(0.9)));
        assert_eq!(body["reasoning"], json!({"effort": "high", "summary": "auto"}));
        assert_eq!(body["metadata"], json!({"run": "7"}));
        for (choice, wire) in [(ToolChoice::Auto, "auto"), (ToolChoice::None, "none"), (ToolChoice::Required, "required")] {
            req.tool_choice = Some(choice);
            assert_eq!(sent(&req)["tool_choice"], wire);
        }
    }

    #[test]
    fn response_formats_become_text_format() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        let cases = [
            (ResponseFormat::Text, json!({"type": "text"})),
            (ResponseFormat::Json, json!({"type": "json_object"})),
            (
                ResponseFormat::JsonSchema { json_schema: schema.clone(), strict: true },
                json!({"type": "json_schema", "name": "response", "schema": schema, "strict": true}),
            ),
            (
                ResponseFormat::JsonSchema {
                    json_schema: json!({"name": "person", "description": "a person", "schema": schema}),
                    strict: false,
                },
                json!({"type": "json_schema", "name": "person", "description": "a person", "schema": schema, "strict": false}),
            ),
        ];
        for (format, wire) in cases {
            let mut req = request(vec![Message::user("Hi")]);
            req.response_format = Some(format);
            assert_eq!(sent(&req)["text"], json!({"format": wire}));
        }
    }

    #[test]
    fn stop_sequences_are_refused_rather_than_dropped() {
        let mut req = request(vec![Message::user("Hi")]);
        req.stop_sequences = vec!["END".into()];
        let e = build(&config(), &req, false).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidRequest);
        assert!(e.message.contains("stop"), "{e}");
    }

    #[test]
    fn provider_options_merge_into_the_body() {
        let mut req = request(vec![Message::user("Hi")]);
        req.reasoning_effort = Some("medium".into());
        req.response_format = Some(ResponseFormat::Json);
        req.provider_options = Some(json!({
            "openai": {"reasoning": {"summary": "detailed"}, "text": {"verbosity": "low"}, "include": null,
                       "service_tier": "flex", "organization": "org-1"},
            "anthropic": {"thinking": {"type": "enabled"}}
        }));
        let body = sent(&req);
        assert_eq!(body["reasoning"], json!({"effort": "medium", "summary": "detailed"}));
        assert_eq!(body["text"], json!({"format": {"type": "json_object"}, "verbosity": "low"}));
        assert_eq!(body["service_tier"], "flex");
        assert!(body.get("include").is_none() && body.get("organization").is_none() && body.get("thinking").is_none());
        req.provider_options = Some(json!({"openai": ["not", "an", "object"]}));
        assert_eq!(build(&config(), &req, false).unwrap_err().kind, ErrorKind::InvalidRequest);
        req.provider_options = Some(json!({"openai": {"project": 7}}));
        assert_eq!(build(&config(), &req, false).unwrap_err().kind, ErrorKind::InvalidRequest);
    }
}
