//! Unified [`Request`] -> `POST {base_url}/chat/completions` (spec 7.2, 7.3 and 7.4 for Chat
//! Completions): the URL, the headers and the body.

use serde_json::{Map, Value};

use super::options::ChatOptions;
use super::{messages, tools, LOCAL_BASE_URL};
use crate::codec::ProviderConfig;
use crate::error::{ErrorKind, LlmError};
use crate::http::{Body, HttpRequest};
use crate::json::{self, object};
use crate::memo::write_body;
use crate::types::{Request, ResponseFormat};

/// The HTTP request for `request`, streamed or not, attributed to `provider`.
pub(super) fn build(config: &ProviderConfig, provider: &str, request: &Request, stream: bool) -> Result<HttpRequest, LlmError> {
    let body = ChatOptions::from_request(request, provider)
        .and_then(|options| build_body(request, &options, stream))
        .map_err(|e| e.with_provider(provider))?;
    let mut http = HttpRequest::post_json(endpoint(&config.base_url, provider)?, body);
    http.headers.push(("accept".into(), if stream { "text/event-stream" } else { "application/json" }.into()));
    // Local servers usually run without a key; an empty bearer token would only confuse them.
    if !config.api_key.is_empty() {
        http.headers.push(("authorization".into(), format!("Bearer {}", config.api_key.expose())));
    }
    http.headers.extend(config.default_headers.iter().cloned());
    Ok(http)
}

fn endpoint(base_url: &str, provider: &str) -> Result<String, LlmError> {
    let base = base_url.trim().trim_end_matches('/');
    if base.is_empty() {
        let message = format!("no base URL for the OpenAI-compatible server: give the URL of its API (e.g. {LOCAL_BASE_URL})");
        return Err(LlmError::new(ErrorKind::Configuration, message).with_provider(provider));
    }
    // A base URL that already names the endpoint is taken as it is.
    Ok(if base.ends_with("/chat/completions") { base.to_owned() } else { format!("{base}/chat/completions") })
}

/// The JSON body for `request`, streamed or not, its messages encoded through the request's memo.
///
/// `Request.metadata` is not sent: it is the caller's bookkeeping, OpenAI ties its own
/// `metadata` to `store`, and compatible servers do not know it. `provider_options` sends it
/// when wanted.
pub(super) fn build_body(request: &Request, options: &ChatOptions, stream: bool) -> Result<Body, LlmError> {
    let mut body = Map::new();
    body.insert("model".into(), request.model.as_str().into());
    // A placeholder: `write_body` writes the messages in its place.
    body.insert("messages".into(), Value::Null);
    if !request.tools.is_empty() {
        // A placeholder: `write_body` writes the memo's text of the tools in its place.
        body.insert("tools".into(), Value::Null);
        // A tool choice without tools is rejected by OpenAI and means nothing anyway.
        if let Some(choice) = &request.tool_choice {
            body.insert("tool_choice".into(), tools::tool_choice(choice));
        }
    }
    if let Some(max) = request.max_tokens {
        let key = if options.max_completion_tokens { "max_completion_tokens" } else { "max_tokens" };
        body.insert(key.into(), max.into());
    }
    if let Some(t) = request.temperature {
        body.insert("temperature".into(), t.into());
    }
    if let Some(p) = request.top_p {
        body.insert("top_p".into(), p.into());
    }
    if !request.stop_sequences.is_empty() {
        body.insert("stop".into(), request.stop_sequences.clone().into());
    }
    if let Some(effort) = &request.reasoning_effort {
        body.insert("reasoning_effort".into(), effort.as_str().into());
    }
    if let Some(format) = &request.response_format {
        body.insert("response_format".into(), response_format(format));
    }
    if stream {
        // Without include_usage OpenAI sends no token counts in a stream.
        body.insert("stream_options".into(), object(vec![("include_usage", true.into())]));
    }
    for (key, value) in &options.passthrough {
        match value {
            Value::Null => json::remove(&mut body, key),
            value => {
                body.insert(key.clone(), value.clone());
            }
        }
    }
    // Whether the answer is streamed decides how it is read: not the options' call.
    if stream {
        body.insert("stream".into(), true.into());
    } else {
        json::remove(&mut body, "stream");
        json::remove(&mut body, "stream_options");
    }
    // What a message's encoding depends on besides the message itself.
    let key = format!("chat {} {}", options.developer_role, options.send_reasoning);
    let tools = (!request.tools.is_empty()).then(|| {
        request
            .memo
            .tools_text(&format!("chat {}", options.strict_tools), &request.tools, &|| tools::tools(&request.tools, options))
    });
    write_body(
        &body,
        "messages",
        &request.messages,
        &request.memo,
        &key,
        &mut |message, out| messages::translate(message, options, out),
        tools.as_deref(),
    )
}

/// `json_schema` is the schema itself, or OpenAI's wrapper `{name, description?, schema}` when
/// the caller wants to name it (a schema has no `name`+`schema` keywords, so the two cannot be
/// confused).
fn response_format(format: &ResponseFormat) -> Value {
    match format {
        ResponseFormat::Text => object(vec![("type", "text".into())]),
        ResponseFormat::Json => object(vec![("type", "json_object".into())]),
        ResponseFormat::JsonSchema { json_schema, strict } => {
            let mut wrapper = match json_schema {
                Value::Object(o)
                    if o.get("name").is_some_and(Value::is_string) && o.get("schema").is_some_and(Value::is_object) =>
                {
                    o.clone()
                }
                schema => {
                    let mut wrapper = Map::new();
                    wrapper.insert("name".into(), "response".into());
                    wrapper.insert("schema".into(), schema.clone());
                    wrapper
                }
            };
            wrapper.insert("strict".into(), (*strict).into());
            object(vec![("type", "json_schema".into()), ("json_schema", Value::Object(wrapper))])
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::types::{ContentPart, MediaData, Message, Role, ThinkingData, ToolCall, ToolChoice, ToolDefinition, ToolResult};
    use serde_json::json;

    fn body(request: &Request, options: &ChatOptions, stream: bool) -> Value {
        serde_json::from_slice(&build_body(request, options, stream).unwrap().to_vec()).unwrap()
    }

    fn request(messages: Vec<Message>) -> Request {
        Request { model: "m".into(), messages, ..Default::default() }
    }

    fn assistant_with_call(thinking: &str) -> Message {
        Message::new(
            Role::Assistant,
            vec![
                ContentPart::Thinking { thinking: ThinkingData { text: thinking.into(), ..Default::default() } },
                ContentPart::ToolCall { tool_call: ToolCall::from_raw("call_1", "read", "{\"path\": \"a\"}") },
            ],
        )
    }

    #[test]
    fn system_and_developer_keep_their_place_as_system_unless_asked() {
        let messages = vec![Message::system("s"), Message::user("u"), Message::text_message(Role::Developer, "d")];
        let plain = body(&request(messages.clone()), &ChatOptions::default(), false);
        assert_eq!(
            plain["messages"],
            json!([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}, {"role": "system", "content": "d"}])
        );
        let options = ChatOptions { developer_role: true, ..Default::default() };
        assert_eq!(body(&request(messages), &options, false)["messages"][2]["role"], "developer");
    }

    #[test]
    fn text_only_user_content_is_a_string_else_parts() {
        let text = Message::new(Role::User, vec![ContentPart::text("a"), ContentPart::text("b")]);
        assert_eq!(body(&request(vec![text]), &ChatOptions::default(), false)["messages"][0]["content"], "ab");
        let image = |url: Option<&str>, data: Option<&[u8]>| ContentPart::Image {
            image: MediaData {
                url: url.map(Into::into),
                data: data.map(<[u8]>::to_vec),
                detail: Some("low".into()),
                ..Default::default()
            },
        };
        let mixed = Message::new(
            Role::User,
            vec![ContentPart::text("see"), image(Some("https://x/i.png"), None), image(None, Some(b"hi"))],
        );
        assert_eq!(
            body(&request(vec![mixed]), &ChatOptions::default(), false)["messages"][0]["content"],
            json!([
                {"type": "text", "text": "see"},
                {"type": "image_url", "image_url": {"url": "https://x/i.png", "detail": "low"}},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk=", "detail": "low"}}
            ])
        );
    }

    #[test]
    fn audio_and_documents_go_inline_and_urls_are_refused_before_sending() {
        let media = |data: Option<&[u8]>, url: Option<&str>, media_type: &str| MediaData {
            data: data.map(<[u8]>::to_vec),
            url: url.map(Into::into),
            media_type: Some(media_type.into()),
            file_name: Some("f".into()),
            ..Default::default()
        };
        let message = Message::new(
            Role::User,
            vec![
                ContentPart::Audio { audio: media(Some(b"hi"), None, "audio/mpeg") },
                ContentPart::Document { document: media(Some(b"hi"), None, "application/pdf") },
            ],
        );
        assert_eq!(
            body(&request(vec![message]), &ChatOptions::default(), false)["messages"][0]["content"],
            json!([
                {"type": "input_audio", "input_audio": {"data": "aGk=", "format": "mp3"}},
                {"type": "file", "file": {"file_data": "data:application/pdf;base64,aGk=", "filename": "f"}}
            ])
        );
        for part in [
            ContentPart::Document { document: media(None, Some("gs://b/v.mp4"), "video/mp4") },
            ContentPart::Audio { audio: media(None, Some("https://x/a.mp3"), "audio/mpeg") },
            ContentPart::Audio { audio: media(Some(b"x"), None, "audio/flac") },
            ContentPart::Image { image: MediaData::default() },
        ] {
            let error =
                build_body(&request(vec![Message::new(Role::User, vec![part])]), &ChatOptions::default(), false).unwrap_err();
            assert_eq!(error.kind, ErrorKind::InvalidRequest);
        }
    }

    #[test]
    fn assistant_tool_calls_keep_the_raw_argument_text_and_results_become_tool_messages() {
        let results = Message::new(
            Role::Tool,
            vec![
                ContentPart::ToolResult { tool_result: ToolResult::new("call_1", "one", false) },
                ContentPart::ToolResult { tool_result: ToolResult::new("call_2", "two", true) },
            ],
        );
        let built = body(&request(vec![assistant_with_call("hmm"), results]), &ChatOptions::default(), false);
        assert_eq!(
            built["messages"],
            json!([
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\": \"a\"}"}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "one"},
                {"role": "tool", "tool_call_id": "call_2", "content": "two"}
            ])
        );
        let coded =
            Message::new(Role::Assistant, vec![ContentPart::ToolCall { tool_call: ToolCall::new("c", "f", json!({"a": 1})) }]);
        assert_eq!(
            body(&request(vec![coded]), &ChatOptions::default(), false)["messages"][0]["tool_calls"][0]["function"]["arguments"],
            "{\"a\":1}"
        );
    }

    #[test]
    fn reasoning_is_sent_back_only_when_asked() {
        let plain = body(&request(vec![assistant_with_call("because")]), &ChatOptions::default(), false);
        assert!(plain["messages"][0].get("reasoning_content").is_none());
        let options = ChatOptions { send_reasoning: true, ..Default::default() };
        assert_eq!(
            body(&request(vec![assistant_with_call("because")]), &options, false)["messages"][0]["reasoning_content"],
            "because"
        );
    }

    #[test]
    fn tools_and_tool_choice_are_nested_function_objects() {
        let mut req = request(vec![Message::user("u")]);
        req.tools =
            vec![ToolDefinition { name: "f".into(), description: "does f".into(), parameters: json!({"type": "object"}) }];
        let cases = [
            (ToolChoice::Auto, json!("auto")),
            (ToolChoice::None, json!("none")),
            (ToolChoice::Required, json!("required")),
            (ToolChoice::Named { tool_name: "f".into() }, json!({"type": "function", "function": {"name": "f"}})),
        ];
        for (choice, wire) in cases {
            req.tool_choice = Some(choice);
            assert_eq!(body(&req, &ChatOptions::default(), false)["tool_choice"], wire);
        }
        let strict = body(&req, &ChatOptions { strict_tools: true, ..Default::default() }, false);
        assert_eq!(
            strict["tools"],
            json!([{"type": "function", "function": {"name": "f", "description": "does f", "parameters": {"type": "object"}, "strict": true}}])
        );
        req.tools.clear();
        assert!(body(&req, &ChatOptions::default(), false).get("tool_choice").is_none());
    }

    #[test]
    fn generation_parameters_and_the_max_tokens_name() {
        let mut req = request(vec![Message::user("u")]);
        req.max_tokens = Some(100);
        req.temperature = Some(0.5);
        req.top_p = Some(0.9);
        req.stop_sequences = vec!["END".into()];
        req.reasoning_effort = Some("low".into());
        let built = body(&req, &ChatOptions::default(), false);
        assert_eq!(
            (&built["max_tokens"], &built["temperature"], &built["top_p"], &built["stop"], &built["reasoning_effort"]),
            (&json!(100), &json!(0.5), &json!(0.9), &json!(["END"]), &json!("low"))
        );
        let newer = body(&req, &ChatOptions { max_completion_tokens: true, ..Default::default() }, false);
        assert_eq!((newer.get("max_tokens"), &newer["max_completion_tokens"]), (None, &json!(100)));
    }

    #[test]
    fn response_formats() {
        let mut req = request(vec![Message::user("u")]);
        let schema = json!({"type": "object"});
        let cases = [
            (ResponseFormat::Text, json!({"type": "text"})),
            (ResponseFormat::Json, json!({"type": "json_object"})),
            (
                ResponseFormat::JsonSchema { json_schema: schema.clone(), strict: true },
                json!({"type": "json_schema", "json_schema": {"name": "response", "schema": schema, "strict": true}}),
            ),
            (
                ResponseFormat::JsonSchema {
                    json_schema: json!({"name": "n", "description": "d", "schema": schema}),
                    strict: false,
                },
                json!({"type": "json_schema", "json_schema": {"name": "n", "description": "d", "schema": schema, "strict": false}}),
            ),
        ];
        for (format, wire) in cases {
            req.response_format = Some(format);
            assert_eq!(body(&req, &ChatOptions::default(), false)["response_format"], wire);
        }
    }

    #[test]
    fn streaming_asks_for_usage_and_options_merge_over_the_body() {
        let req = request(vec![Message::user("u")]);
        let streamed = body(&req, &ChatOptions::default(), true);
        assert_eq!((&streamed["stream"], &streamed["stream_options"]), (&json!(true), &json!({"include_usage": true})));
        assert!(body(&req, &ChatOptions::default(), false).get("stream").is_none());
        let mut passthrough = Map::new();
        passthrough.insert("seed".into(), json!(7));
        passthrough.insert("stream_options".into(), Value::Null);
        passthrough.insert("stream".into(), json!(false));
        let options = ChatOptions { passthrough, ..Default::default() };
        let merged = body(&req, &options, true);
        assert_eq!((&merged["seed"], merged.get("stream_options"), &merged["stream"]), (&json!(7), None, &json!(true)));
    }

    /// The bytes a request gets with its memo off: the whole history encoded afresh.
    fn fresh(request: &Request, options: &ChatOptions) -> Body {
        build_body(&request.clone(), options, true).unwrap()
    }

    #[test]
    fn a_memo_gives_the_bytes_of_a_fresh_encoding_as_the_history_grows_and_changes() {
        let mut req = request(vec![Message::system("s"), Message::user("u\n\"q\"")]);
        req.memo = crate::MessageMemo::new();
        let options = ChatOptions::default();
        for round in 0..3 {
            assert_eq!(build_body(&req, &options, true).unwrap(), fresh(&req, &options), "round {round}");
            req.messages.push(assistant_with_call(""));
            req.messages.push(Message::tool_result(ToolResult::new("call_1", format!("line {round}\n\ttab"), false)));
        }
        // A message changed in place, told to the memo.
        req.messages[0] = Message::system("another prompt");
        req.memo.forget_from(0);
        assert_eq!(build_body(&req, &options, true).unwrap(), fresh(&req, &options));
        // A shorter history, as after a compaction.
        req.messages.truncate(2);
        req.memo.forget_from(2);
        req.messages.push(Message::user("after"));
        assert_eq!(build_body(&req, &options, true).unwrap(), fresh(&req, &options));
        // Options that change how a message is written start the memo afresh.
        let developer = ChatOptions { developer_role: true, ..Default::default() };
        req.messages[0] = Message::new(Role::Developer, vec![ContentPart::text("d")]);
        req.memo.forget_from(0);
        build_body(&req, &options, true).unwrap();
        assert_eq!(body(&req, &developer, true)["messages"][0]["role"], "developer");
        assert_eq!(build_body(&req, &developer, true).unwrap(), fresh(&req, &developer));
    }

    #[test]
    fn a_memo_keeps_each_encoded_message_and_a_clone_keeps_none() {
        let mut req = request(vec![Message::user("first")]);
        req.memo = crate::MessageMemo::new();
        let options = ChatOptions::default();
        build_body(&req, &options, false).unwrap();
        // Changed without telling the memo: the kept encoding is what goes out. That is the
        // contract (the owner says what changed), and it proves the message was not encoded again.
        req.messages[0] = Message::user("second");
        assert_eq!(body(&req, &options, false)["messages"][0]["content"], "first");
        assert_eq!(serde_json::from_slice::<Value>(&fresh(&req, &options).to_vec()).unwrap()["messages"][0]["content"], "second");
        assert_eq!(format!("{:?}", req.clone().memo), "MessageMemo(off)");
    }

    #[test]
    fn options_that_replace_or_remove_the_messages_still_do() {
        let mut req = request(vec![Message::user("u")]);
        req.memo = crate::MessageMemo::new();
        let mut passthrough = Map::new();
        passthrough.insert("messages".into(), json!([{"role": "user", "content": "replaced"}]));
        let replaced = ChatOptions { passthrough, ..Default::default() };
        assert_eq!(body(&req, &replaced, false)["messages"], json!([{"role": "user", "content": "replaced"}]));
        let mut passthrough = Map::new();
        passthrough.insert("messages".into(), Value::Null);
        let removed = ChatOptions { passthrough, ..Default::default() };
        assert_eq!(body(&req, &removed, false).get("messages"), None);
    }
}
