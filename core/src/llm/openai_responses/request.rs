//! A unified [`Request`] as a Responses API request (spec 7.2, 7.3, 7.4).

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::{DEFAULT_BASE_URL, PROVIDER};
use crate::llm::codec::ProviderConfig;
use crate::llm::error::{ErrorKind, LlmError};
use crate::llm::http::HttpRequest;
use crate::llm::json::object;
use crate::llm::types::{
    ContentPart, MediaData, Message, Request, ResponseFormat, Role, ThinkingData, ToolCall, ToolChoice, ToolResult,
};

/// `provider_options.openai` keys that become headers rather than body fields.
const HEADER_OPTIONS: [(&str, &str); 2] = [("organization", "OpenAI-Organization"), ("project", "OpenAI-Project")];

/// What the API needs to hand reasoning back in a stateless conversation.
const ENCRYPTED_REASONING: &str = "reasoning.encrypted_content";

pub(super) fn build(config: &ProviderConfig, request: &Request, stream: bool) -> Result<HttpRequest, LlmError> {
    let options = provider_options(request)?;
    // The API's own default is `store: true`; ours is stateless, so replay decides on this.
    let store = options.get("store").and_then(Value::as_bool).unwrap_or(false);
    let mut body = body(request, store)?;
    if stream {
        body.insert("stream".into(), Value::Bool(true));
    }
    for (key, value) in options.iter().filter(|(key, _)| !HEADER_OPTIONS.iter().any(|(option, _)| option == key)) {
        merge_patch(&mut body, key, value);
    }
    let bytes = serde_json::to_vec(&body).map_err(|e| invalid(format!("the request could not be serialised: {e}")))?;
    let base_url = config.base_url.trim_end_matches('/');
    let base_url = if base_url.is_empty() { DEFAULT_BASE_URL } else { base_url };
    let mut http = HttpRequest::post_json(format!("{base_url}/responses"), bytes);
    if !config.api_key.is_empty() {
        http.headers.push(("Authorization".into(), format!("Bearer {}", config.api_key.expose())));
    }
    if stream {
        http.headers.push(("Accept".into(), "text/event-stream".into()));
    }
    for (option, header) in HEADER_OPTIONS {
        match options.get(option) {
            None | Some(Value::Null) => {}
            Some(Value::String(value)) => http.headers.push((header.into(), value.clone())),
            Some(_) => return Err(invalid(format!("provider_options.openai.{option} must be a string"))),
        }
    }
    http.headers.extend(config.default_headers.iter().cloned());
    Ok(http)
}

fn invalid(message: impl Into<String>) -> LlmError {
    LlmError::new(ErrorKind::InvalidRequest, message).with_provider(PROVIDER)
}

fn provider_options(request: &Request) -> Result<Map<String, Value>, LlmError> {
    match request.provider_options.as_ref().and_then(|all| all.get(PROVIDER)) {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(options)) => Ok(options.clone()),
        Some(_) => Err(invalid("provider_options.openai must be an object")),
    }
}

fn body(request: &Request, store: bool) -> Result<Map<String, Value>, LlmError> {
    if !request.stop_sequences.is_empty() {
        return Err(invalid(
            "the OpenAI Responses API has no stop sequences; leave stop_sequences empty (the openai_chat codec supports them)",
        ));
    }
    let mut body = Map::new();
    body.insert("model".into(), Value::String(request.model.clone()));
    let instructions = instructions(&request.messages);
    if !instructions.is_empty() {
        body.insert("instructions".into(), Value::String(instructions));
    }
    body.insert("input".into(), Value::Array(input(&request.messages, store)?));
    body.insert("store".into(), Value::Bool(store));
    if !store {
        body.insert("include".into(), Value::Array(vec![ENCRYPTED_REASONING.into()]));
    }
    if !request.tools.is_empty() {
        let tools = request.tools.iter().map(|t| {
            // `strict: true` (the API's default) would reject ordinary schemas with optional fields.
            object(vec![
                ("type", "function".into()),
                ("name", t.name.as_str().into()),
                ("description", t.description.as_str().into()),
                ("parameters", t.parameters.clone()),
                ("strict", false.into()),
            ])
        });
        body.insert("tools".into(), Value::Array(tools.collect()));
    }
    if let Some(choice) = &request.tool_choice {
        let choice = match choice {
            ToolChoice::Auto => "auto".into(),
            ToolChoice::None => "none".into(),
            ToolChoice::Required => "required".into(),
            ToolChoice::Named { tool_name } => object(vec![("type", "function".into()), ("name", tool_name.as_str().into())]),
        };
        body.insert("tool_choice".into(), choice);
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
        let metadata = request.metadata.iter().map(|(key, value)| (key.clone(), Value::from(value.as_str())));
        body.insert("metadata".into(), Value::Object(metadata.collect()));
    }
    Ok(body)
}

fn instructions(messages: &[Message]) -> String {
    let texts: Vec<String> = messages
        .iter()
        .filter(|m| matches!(m.role, Role::System | Role::Developer))
        .map(Message::text)
        .filter(|text| !text.is_empty())
        .collect();
    texts.join("\n\n")
}

/// The `input` items: messages, and the top-level `function_call`, `function_call_output` and
/// `reasoning` items, in conversation order.
fn input(messages: &[Message], store: bool) -> Result<Vec<Value>, LlmError> {
    // A result goes back as `custom_tool_call_output` when it answers a custom call.
    let custom_calls: HashSet<&str> = messages
        .iter()
        .flat_map(Message::tool_calls)
        .filter(|call| call.call_type == "custom")
        .map(|call| call.id.as_str())
        .collect();
    let mut items = Vec::new();
    for message in messages {
        let role = match message.role {
            Role::System | Role::Developer => continue,
            Role::User | Role::Tool => "user",
            Role::Assistant => "assistant",
        };
        let mut content = Vec::new();
        let mut tool_text = String::new();
        for (at, part) in message.content.iter().enumerate() {
            let item = match part {
                ContentPart::Text { text } if message.role == Role::Tool => {
                    tool_text.push_str(text);
                    None
                }
                ContentPart::Text { text } => {
                    let kind = if role == "assistant" { "output_text" } else { "input_text" };
                    content.push(object(vec![("type", kind.into()), ("text", text.as_str().into())]));
                    None
                }
                ContentPart::Image { image } if role == "user" => {
                    content.push(image_part(image)?);
                    None
                }
                ContentPart::Document { document } if role == "user" => {
                    content.push(file_part(document)?);
                    None
                }
                ContentPart::Image { .. } | ContentPart::Document { .. } | ContentPart::Audio { .. } => {
                    return Err(unsupported_part(part, role));
                }
                ContentPart::ToolCall { tool_call } => Some(call_item(tool_call, store)),
                ContentPart::ToolResult { tool_result } => Some(output_item(tool_result, &custom_calls)),
                ContentPart::Thinking { thinking } => {
                    let answered = message.content.iter().skip(at + 1).any(answers_reasoning);
                    reasoning_item(thinking, store, answered)
                }
                // Anthropic's opaque reasoning means nothing to another provider.
                ContentPart::RedactedThinking { .. } => None,
            };
            if let Some(item) = item {
                flush(&mut items, role, &mut content);
                items.push(item);
            }
        }
        flush(&mut items, role, &mut content);
        if !tool_text.is_empty() {
            let Some(call_id) = &message.tool_call_id else {
                return Err(invalid("a tool message with text needs a tool_call_id to send it back to OpenAI"));
            };
            items.push(output_item(&ToolResult::new(call_id.clone(), tool_text, false), &custom_calls));
        }
    }
    Ok(items)
}

fn flush(items: &mut Vec<Value>, role: &str, content: &mut Vec<Value>) {
    if !content.is_empty() {
        let message = vec![("type", "message".into()), ("role", role.into()), ("content", Value::Array(std::mem::take(content)))];
        items.push(object(message));
    }
}

fn unsupported_part(part: &ContentPart, role: &str) -> LlmError {
    let kind = match part {
        ContentPart::Audio { .. } => "audio",
        ContentPart::Document { .. } => "a document",
        _ => "an image",
    };
    invalid(format!("the OpenAI Responses API does not take {kind} in a {role} message"))
}

fn data_uri(media: &MediaData, data: &[u8], default_type: &str) -> String {
    let media_type = media.media_type.as_deref().unwrap_or(default_type);
    format!("data:{media_type};base64,{}", crate::llm::base64::encode(data))
}

fn image_part(image: &MediaData) -> Result<Value, LlmError> {
    let url = match (&image.url, &image.data) {
        (_, Some(data)) => data_uri(image, data, "image/png"),
        (Some(url), None) => url.clone(),
        (None, None) => return Err(invalid("an image needs a url or data")),
    };
    Ok(image_item(url, image.detail.as_deref().unwrap_or("auto")))
}

fn image_item(url: String, detail: &str) -> Value {
    object(vec![("type", "input_image".into()), ("image_url", url.into()), ("detail", detail.into())])
}

fn file_part(document: &MediaData) -> Result<Value, LlmError> {
    match (&document.url, &document.data) {
        (_, Some(data)) => Ok(object(vec![
            ("type", "input_file".into()),
            ("filename", document.file_name.as_deref().unwrap_or("document.pdf").into()),
            ("file_data", data_uri(document, data, "application/pdf").into()),
        ])),
        (Some(url), None) => Ok(object(vec![("type", "input_file".into()), ("file_url", url.as_str().into())])),
        (None, None) => Err(invalid("a document needs a url or data")),
    }
}

fn call_item(call: &ToolCall, store: bool) -> Value {
    // The exact text the model wrote, when we have it: re-serialising could change it.
    let arguments = match (&call.raw_arguments, &call.arguments) {
        (Some(raw), _) => raw.clone(),
        (None, Value::String(text)) if call.call_type == "custom" => text.clone(),
        (None, Value::Null) => "{}".to_owned(),
        (None, value) => value.to_string(),
    };
    let (kind, field) = if call.call_type == "custom" { ("custom_tool_call", "input") } else { ("function_call", "arguments") };
    let mut item = vec![
        ("type", kind.into()),
        ("call_id", call.id.as_str().into()),
        ("name", call.name.as_str().into()),
        (field, arguments.into()),
    ];
    if let (true, Some(id)) = (store, &call.signature) {
        item.push(("id", id.as_str().into()));
    }
    object(item)
}

/// The API has no error flag on a result: the content itself has to say so.
fn output_item(result: &ToolResult, custom_calls: &HashSet<&str>) -> Value {
    let output = match (&result.image_data, custom_calls.contains(result.tool_call_id.as_str())) {
        (Some(data), false) => {
            let media = MediaData { media_type: result.image_media_type.clone(), ..MediaData::default() };
            let text = object(vec![("type", "input_text".into()), ("text", result.content.as_str().into())]);
            Value::Array(vec![text, image_item(data_uri(&media, data, "image/png"), "auto")])
        }
        _ => Value::String(result.content.clone()),
    };
    let kind =
        if custom_calls.contains(result.tool_call_id.as_str()) { "custom_tool_call_output" } else { "function_call_output" };
    object(vec![("type", kind.into()), ("call_id", result.tool_call_id.as_str().into()), ("output", output)])
}

/// What may follow a reasoning item: the API rejects one that is "provided without its required
/// following item" (a captured 400), as happens when a reply was cut off while still reasoning.
fn answers_reasoning(part: &ContentPart) -> bool {
    matches!(part, ContentPart::Text { .. } | ContentPart::ToolCall { .. })
}

/// A reasoning item to replay, when the API can use it. Stateless, it needs the encrypted
/// content (an id alone names nothing stored); with `store`, the id is enough.
fn reasoning_item(thinking: &ThinkingData, store: bool, answered: bool) -> Option<Value> {
    let usable = if store { thinking.id.is_some() || thinking.signature.is_some() } else { thinking.signature.is_some() };
    if thinking.redacted || !usable || !answered {
        return None;
    }
    // Summary part boundaries are not kept by the unified model: the joined text goes back as one part.
    let summary = match thinking.text.as_str() {
        "" => Vec::new(),
        text => vec![object(vec![("type", "summary_text".into()), ("text", text.into())])],
    };
    let mut item = vec![("type", "reasoning".into())];
    if let Some(id) = &thinking.id {
        item.push(("id", id.as_str().into()));
    }
    item.push(("summary", Value::Array(summary)));
    if let Some(encrypted) = &thinking.signature {
        item.push(("encrypted_content", encrypted.as_str().into()));
    }
    Some(object(item))
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

/// RFC 7396 JSON merge patch of one key: objects merge, `null` removes, anything else replaces.
fn merge_patch(target: &mut Map<String, Value>, key: &str, patch: &Value) {
    match patch {
        Value::Null => {
            target.remove(key);
        }
        Value::Object(fields) => {
            let slot = target.entry(key).or_insert_with(|| Value::Object(Map::new()));
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            if let Value::Object(inner) = slot {
                for (key, value) in fields {
                    merge_patch(inner, key, value);
                }
            }
        }
        other => {
            target.insert(key.to_owned(), other.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::llm::codec::ApiKey;
    use crate::llm::types::ToolDefinition;
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
        serde_json::from_slice(&http.body).unwrap()
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
        let body = String::from_utf8(http.body.clone()).unwrap();
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
        assert_eq!(serde_json::from_slice::<Value>(&http.body).unwrap()["stream"], true);
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
