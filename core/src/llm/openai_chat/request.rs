//! Unified [`Request`] -> Chat Completions body (spec 7.2, 7.3 and 7.4 for Chat Completions).

use serde_json::{Map, Value};

use super::options::ChatOptions;
use crate::llm::base64;
use crate::llm::error::{ErrorKind, LlmError};
use crate::llm::json::object;
use crate::llm::types::{ContentPart, MediaData, Message, Request, ResponseFormat, Role, ToolCall, ToolChoice};

/// The JSON body for `request`, streamed or not.
///
/// `Request.metadata` is not sent: it is the caller's bookkeeping, OpenAI ties its own
/// `metadata` to `store`, and compatible servers do not know it. `provider_options` sends it
/// when wanted.
pub(super) fn build_body(request: &Request, options: &ChatOptions, stream: bool) -> Result<Value, LlmError> {
    let mut body = Map::new();
    body.insert("model".into(), request.model.as_str().into());
    let mut messages = Vec::with_capacity(request.messages.len());
    for message in &request.messages {
        translate_message(message, options, &mut messages)?;
    }
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools = request.tools.iter().map(|tool| {
            let mut function = Map::new();
            function.insert("name".into(), tool.name.as_str().into());
            if !tool.description.is_empty() {
                function.insert("description".into(), tool.description.as_str().into());
            }
            function.insert("parameters".into(), tool.parameters.clone());
            if options.strict_tools {
                function.insert("strict".into(), true.into());
            }
            object(vec![("type", "function".into()), ("function", Value::Object(function))])
        });
        body.insert("tools".into(), tools.collect());
        // A tool choice without tools is rejected by OpenAI and means nothing anyway.
        if let Some(choice) = &request.tool_choice {
            body.insert("tool_choice".into(), tool_choice(choice));
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
            Value::Null => body.remove(key),
            value => body.insert(key.clone(), value.clone()),
        };
    }
    // Whether the answer is streamed decides how it is read: not the options' call.
    if stream {
        body.insert("stream".into(), true.into());
    } else {
        body.remove("stream");
        body.remove("stream_options");
    }
    Ok(Value::Object(body))
}

/// Appends the wire messages for one unified message: usually one, one per tool result.
fn translate_message(message: &Message, options: &ChatOptions, out: &mut Vec<Value>) -> Result<(), LlmError> {
    let role = match message.role {
        Role::System => "system",
        Role::Developer if options.developer_role => "developer",
        // Every compatible server knows `system`; not all know `developer`.
        Role::Developer => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut results = message.content.iter().filter_map(|part| match part {
        ContentPart::ToolResult { tool_result } => Some(tool_result),
        _ => None,
    });
    if message.role == Role::Tool {
        let mut any = false;
        for result in results.by_ref() {
            any = true;
            // Chat tool messages are text only: an image result has nowhere to go.
            out.push(tool_message(&result.tool_call_id, &result.content));
        }
        if !any {
            let Some(id) = &message.tool_call_id else {
                return Err(invalid("a tool message needs a tool result part or a tool_call_id"));
            };
            out.push(tool_message(id, &message.text()));
        }
        return Ok(());
    }
    let mut wire = Map::new();
    wire.insert("role".into(), role.into());
    if message.role == Role::Assistant {
        assistant_fields(message, options, &mut wire);
    } else {
        wire.insert("content".into(), content(message)?);
    }
    if let Some(name) = &message.name {
        wire.insert("name".into(), name.as_str().into());
    }
    out.push(Value::Object(wire));
    // Tool results placed in another role's message (as Anthropic-shaped histories do) still
    // become tool messages, after it.
    for result in results {
        out.push(tool_message(&result.tool_call_id, &result.content));
    }
    Ok(())
}

fn assistant_fields(message: &Message, options: &ChatOptions, wire: &mut Map<String, Value>) {
    let text = message.text();
    let calls: Vec<Value> = message.tool_calls().map(tool_call).collect();
    // `null` content is the API's way to say "only tool calls".
    wire.insert("content".into(), if text.is_empty() && !calls.is_empty() { Value::Null } else { text.into() });
    if !calls.is_empty() {
        wire.insert("tool_calls".into(), Value::Array(calls));
    }
    if options.send_reasoning {
        let reasoning: String = message
            .content
            .iter()
            .filter_map(|part| match part {
                ContentPart::Thinking { thinking } => Some(thinking.text.as_str()),
                _ => None,
            })
            .collect();
        if !reasoning.is_empty() {
            wire.insert("reasoning_content".into(), reasoning.into());
        }
    }
}

fn tool_message(tool_call_id: &str, content: &str) -> Value {
    object(vec![("role", "tool".into()), ("tool_call_id", tool_call_id.into()), ("content", content.into())])
}

fn tool_call(call: &ToolCall) -> Value {
    // The model's own argument text goes back byte for byte; only calls built in code are
    // serialised here.
    let arguments = match (&call.raw_arguments, &call.arguments) {
        (Some(raw), _) => raw.clone(),
        (None, Value::Null) => "{}".to_owned(),
        (None, value) => value.to_string(),
    };
    let function = object(vec![("name", call.name.as_str().into()), ("arguments", arguments.into())]);
    object(vec![("id", call.id.as_str().into()), ("type", "function".into()), ("function", function)])
}

/// A string when the message is text only (every server reads that), else content parts.
fn content(message: &Message) -> Result<Value, LlmError> {
    let media_only =
        |p: &ContentPart| matches!(p, ContentPart::Image { .. } | ContentPart::Audio { .. } | ContentPart::Document { .. });
    if !message.content.iter().any(media_only) {
        return Ok(message.text().into());
    }
    let mut parts = Vec::new();
    for part in &message.content {
        match part {
            ContentPart::Text { text } => parts.push(object(vec![("type", "text".into()), ("text", text.as_str().into())])),
            ContentPart::Image { image } => parts.push(image_part(image)?),
            ContentPart::Audio { audio } => parts.push(audio_part(audio)?),
            ContentPart::Document { document } => parts.push(document_part(document)?),
            // Tool calls, results and reasoning belong to other roles; they are handled there.
            _ => {}
        }
    }
    Ok(Value::Array(parts))
}

fn image_part(image: &MediaData) -> Result<Value, LlmError> {
    let url = match (&image.url, &image.data) {
        (Some(url), _) => url.clone(),
        (None, Some(data)) => data_uri(image.media_type.as_deref().unwrap_or("image/png"), data),
        (None, None) => return Err(invalid("an image part needs a url or data")),
    };
    let mut image_url = Map::new();
    image_url.insert("url".into(), url.into());
    if let Some(detail) = &image.detail {
        image_url.insert("detail".into(), detail.as_str().into());
    }
    Ok(object(vec![("type", "image_url".into()), ("image_url", Value::Object(image_url))]))
}

fn audio_part(audio: &MediaData) -> Result<Value, LlmError> {
    let Some(data) = &audio.data else {
        return Err(invalid("Chat Completions takes audio only inline: send the bytes, not a URL"));
    };
    let format = match audio.media_type.as_deref().unwrap_or("audio/wav") {
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" | "audio/mp3" => "mp3",
        other => return Err(invalid(&format!("Chat Completions takes wav or mp3 audio, not {other}"))),
    };
    let input_audio = object(vec![("data", base64::encode(data).into()), ("format", format.into())]);
    Ok(object(vec![("type", "input_audio".into()), ("input_audio", input_audio)]))
}

fn document_part(document: &MediaData) -> Result<Value, LlmError> {
    let Some(data) = &document.data else {
        // The API answers a URL here with "Expected a base64-encoded data URL".
        return Err(invalid("Chat Completions takes documents only inline: send the bytes, not a URL"));
    };
    let mut file = Map::new();
    file.insert("file_data".into(), data_uri(document.media_type.as_deref().unwrap_or("application/pdf"), data).into());
    if let Some(name) = &document.file_name {
        file.insert("filename".into(), name.as_str().into());
    }
    Ok(object(vec![("type", "file".into()), ("file", Value::Object(file))]))
}

fn data_uri(media_type: &str, data: &[u8]) -> String {
    format!("data:{media_type};base64,{}", base64::encode(data))
}

fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => "auto".into(),
        ToolChoice::None => "none".into(),
        ToolChoice::Required => "required".into(),
        ToolChoice::Named { tool_name } => {
            object(vec![("type", "function".into()), ("function", object(vec![("name", tool_name.as_str().into())]))])
        }
    }
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

fn invalid(message: &str) -> LlmError {
    LlmError::new(ErrorKind::InvalidRequest, message)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::llm::types::{ThinkingData, ToolDefinition, ToolResult};
    use serde_json::json;

    fn body(request: &Request, options: &ChatOptions, stream: bool) -> Value {
        build_body(request, options, stream).unwrap()
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
}
