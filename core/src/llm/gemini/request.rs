//! A `Request` as a generateContent body (spec 7.2, 7.3).

use serde_json::{Map, Value};

use super::{is_synthetic_call_id, schema, PROVIDER};
use crate::llm::base64;
use crate::llm::error::{ErrorKind, LlmError};
use crate::llm::json::object;
use crate::llm::types::{
    ContentPart, MediaData, Message, Request, ResponseFormat, Role, ThinkingData, ToolCall, ToolChoice, ToolDefinition,
    ToolResult,
};

pub(super) fn body(request: &Request) -> Result<Value, LlmError> {
    let mut body = Map::new();
    let (system, contents) = contents(&request.messages)?;
    if !system.is_empty() {
        body.insert("systemInstruction".into(), object(vec![("parts", Value::Array(system))]));
    }
    body.insert("contents".into(), Value::Array(contents));
    if !request.tools.is_empty() {
        let declarations = request.tools.iter().map(declaration).collect();
        body.insert("tools".into(), Value::Array(vec![object(vec![("functionDeclarations", Value::Array(declarations))])]));
    }
    if let Some(choice) = &request.tool_choice {
        if let Some(config) = tool_config(choice, request)? {
            body.insert("toolConfig".into(), object(vec![("functionCallingConfig", config)]));
        }
    }
    let generation = generation_config(request)?;
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    if let Some(options) = request.provider_options.as_ref().and_then(|o| o.get(PROVIDER)) {
        apply_provider_options(&mut body, options)?;
    }
    Ok(Value::Object(body))
}

fn invalid(message: impl Into<String>) -> LlmError {
    LlmError::new(ErrorKind::InvalidRequest, message).with_provider(PROVIDER)
}

fn text_part(text: &str) -> Value {
    object(vec![("text", text.into())])
}

fn inline_data(mime: &str, data: Value) -> Value {
    object(vec![("inlineData", object(vec![("mimeType", mime.into()), ("data", data)]))])
}

/// System and developer text for `systemInstruction`, and the conversation as `contents`.
fn contents(messages: &[Message]) -> Result<(Vec<Value>, Vec<Value>), LlmError> {
    let mut system = Vec::new();
    let mut contents: Vec<Value> = Vec::new();
    // Whether the last content holds tool results, which the next results join.
    let mut results_open = false;
    for (at, message) in messages.iter().enumerate() {
        if matches!(message.role, Role::System | Role::Developer) {
            for part in &message.content {
                let text = part
                    .as_text()
                    .ok_or_else(|| invalid("Gemini's systemInstruction takes text only: move media into a user message"))?;
                system.push(text_part(text));
            }
            continue;
        }
        let parts = parts(message, &messages[..at])?;
        let is_tool = message.role == Role::Tool;
        match contents.last_mut().and_then(|c| c.get_mut("parts")).and_then(Value::as_array_mut) {
            _ if parts.is_empty() => {}
            // All the results of one turn go back in one content, as Gemini pairs them with its calls.
            Some(previous) if is_tool && results_open => previous.extend(parts),
            _ => {
                let role = if message.role == Role::Assistant { "model" } else { "user" };
                contents.push(object(vec![("role", role.into()), ("parts", Value::Array(parts))]));
                results_open = is_tool;
            }
        }
    }
    Ok((system, contents))
}

/// A message's parts; `earlier` is the conversation before it, where tool results find their calls.
fn parts(message: &Message, earlier: &[Message]) -> Result<Vec<Value>, LlmError> {
    let mut parts: Vec<Value> = Vec::new();
    for part in &message.content {
        match part {
            ContentPart::Text { text } => parts.push(text_part(text)),
            ContentPart::Image { image } => parts.push(media(image, "image/png")?),
            ContentPart::Audio { audio } => parts.push(media(audio, "audio/wav")?),
            ContentPart::Document { document } => parts.push(media(document, "application/pdf")?),
            ContentPart::ToolCall { tool_call } => parts.push(function_call(tool_call)),
            ContentPart::ToolResult { tool_result } => {
                // A `functionResponse` names its function: the name of the call it answers.
                let call = earlier.iter().rev().flat_map(Message::tool_calls).find(|call| call.id == tool_result.tool_call_id);
                let name = call.map(|call| call.name.as_str()).or(message.name.as_deref()).ok_or_else(|| {
                    invalid(format!(
                        "the tool result for call `{}` answers no earlier tool call, and Gemini needs the function's name: \
                         keep the assistant message with the call, or set the tool message's name",
                        tool_result.tool_call_id
                    ))
                })?;
                parts.extend(function_response(tool_result, name));
            }
            ContentPart::Thinking { thinking } => thought(thinking, &mut parts),
            // Anthropic's opaque reasoning means nothing to Gemini.
            ContentPart::RedactedThinking { .. } => {}
        }
    }
    Ok(parts)
}

fn function_call(call: &ToolCall) -> Value {
    // Gemini takes an object; arguments that were not one (a failed parse) go back as `{}`.
    let args = if call.arguments.is_object() { call.arguments.clone() } else { Value::Object(Map::new()) };
    let mut function_call = vec![("name", call.name.as_str().into()), ("args", args)];
    if !is_synthetic_call_id(&call.id) {
        function_call.push(("id", call.id.as_str().into()));
    }
    let mut part = vec![("functionCall", object(function_call))];
    if let Some(signature) = &call.signature {
        part.push(("thoughtSignature", signature.as_str().into()));
    }
    object(part)
}

/// The result as the object Gemini expects: the tool's text under `result` (or `error`). Structured
/// output is sent as text too: a coding agent's tools return file contents whose exact text matters.
fn function_response(result: &ToolResult, name: &str) -> Vec<Value> {
    let key = if result.is_error { "error" } else { "result" };
    let response = object(vec![("name", name.into()), ("response", object(vec![(key, result.content.as_str().into())]))]);
    let mut parts = vec![object(vec![("functionResponse", response)])];
    if let Some(data) = &result.image_data {
        parts.push(inline_data(result.image_media_type.as_deref().unwrap_or("image/png"), base64::encode(data).into()));
    }
    parts
}

/// A thought goes back as it came. An empty one carries a text part's signature, which goes back
/// on the part before it (see the module docs).
fn thought(thinking: &ThinkingData, parts: &mut Vec<Value>) {
    let signature = thinking.signature.as_deref().map(Value::from);
    if !thinking.text.is_empty() {
        let mut part = vec![("text", thinking.text.as_str().into()), ("thought", true.into())];
        part.extend(signature.map(|s| ("thoughtSignature", s)));
        parts.push(object(part));
        return;
    }
    let Some(signature) = signature else { return };
    match parts.last_mut().and_then(Value::as_object_mut) {
        Some(previous) if !previous.contains_key("thoughtSignature") => {
            previous.insert("thoughtSignature".into(), signature);
        }
        _ => parts.push(object(vec![("text", "".into()), ("thoughtSignature", signature)])),
    }
}

fn media(media: &MediaData, fallback_mime: &str) -> Result<Value, LlmError> {
    let guessed = media.url.as_deref().or(media.file_name.as_deref()).and_then(mime_from_extension);
    let mime = media.media_type.as_deref().or(guessed).unwrap_or(fallback_mime);
    if let Some(data) = &media.data {
        return Ok(inline_data(mime, base64::encode(data).into()));
    }
    let url = media.url.as_deref().ok_or_else(|| invalid("a media part has neither data nor a URL"))?;
    if let Some((data_mime, data)) = url.strip_prefix("data:").and_then(|rest| rest.split_once(";base64,")) {
        return Ok(inline_data(data_mime, data.into()));
    }
    if url.starts_with('/') || url.starts_with("./") || url.starts_with('~') {
        return Err(invalid(format!("`{url}` is a local path: the host must read the file and pass its bytes as data")));
    }
    Ok(object(vec![("fileData", object(vec![("mimeType", mime.into()), ("fileUri", url.into())]))]))
}

fn mime_from_extension(path: &str) -> Option<&'static str> {
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let extension = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match extension.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "heic" => "image/heic",
        "heif" => "image/heif",
        "pdf" => "application/pdf",
        "wav" => "audio/wav",
        "mp3" => "audio/mp3",
        "ogg" => "audio/ogg",
        "flac" => "audio/flac",
        _ => return None,
    })
}

fn declaration(tool: &ToolDefinition) -> Value {
    let mut declaration = vec![("name", tool.name.as_str().into())];
    if !tool.description.is_empty() {
        declaration.push(("description", tool.description.as_str().into()));
    }
    // A function without parameters declares none: Gemini rejects an OBJECT with no properties.
    let parameters = schema::to_gemini(&tool.parameters);
    if parameters.get("properties").is_some() {
        declaration.push(("parameters", parameters));
    }
    object(declaration)
}

/// The `functionCallingConfig`, if there is anything to configure.
fn tool_config(choice: &ToolChoice, request: &Request) -> Result<Option<Value>, LlmError> {
    let mode = |mode: &str| Ok(Some(object(vec![("mode", mode.into())])));
    match choice {
        // Without tools there is nothing to configure, and Gemini would refuse a toolConfig.
        ToolChoice::Auto | ToolChoice::None if request.tools.is_empty() => Ok(None),
        ToolChoice::Auto => mode("AUTO"),
        ToolChoice::None => mode("NONE"),
        ToolChoice::Required if request.tools.is_empty() => Err(invalid("tool_choice `required` needs at least one tool")),
        ToolChoice::Required => mode("ANY"),
        ToolChoice::Named { tool_name } if !request.tools.iter().any(|t| t.name == *tool_name) => {
            Err(invalid(format!("tool_choice names `{tool_name}`, which is not among the request's tools")))
        }
        ToolChoice::Named { tool_name } => {
            let allowed = Value::Array(vec![tool_name.as_str().into()]);
            Ok(Some(object(vec![("mode", "ANY".into()), ("allowedFunctionNames", allowed)])))
        }
    }
}

fn generation_config(request: &Request) -> Result<Map<String, Value>, LlmError> {
    let mut config = Map::new();
    let mut set = |key: &str, value: Value| config.insert(key.to_owned(), value);
    if let Some(temperature) = request.temperature {
        set("temperature", temperature.into());
    }
    if let Some(top_p) = request.top_p {
        set("topP", top_p.into());
    }
    if let Some(max_tokens) = request.max_tokens {
        set("maxOutputTokens", max_tokens.into());
    }
    if !request.stop_sequences.is_empty() {
        set("stopSequences", request.stop_sequences.iter().map(|s| Value::from(s.as_str())).collect());
    }
    match &request.response_format {
        None | Some(ResponseFormat::Text) => {}
        Some(ResponseFormat::Json) => {
            set("responseMimeType", "application/json".into());
        }
        // `responseJsonSchema` takes JSON Schema as it is; Gemini has no strict switch.
        Some(ResponseFormat::JsonSchema { json_schema, .. }) => {
            set("responseMimeType", "application/json".into());
            set("responseJsonSchema", json_schema.clone());
        }
    }
    if let Some(effort) = &request.reasoning_effort {
        set("thinkingConfig", thinking_config(&request.model, effort)?);
    }
    Ok(config)
}

/// `reasoning_effort` as a thinking level (Gemini 3 and later) or a token budget (Gemini 2.x,
/// which has no levels). Thoughts are asked for, so reasoning is visible, unless thinking is off.
fn thinking_config(model: &str, effort: &str) -> Result<Value, LlmError> {
    let model = model.trim().trim_start_matches("models/");
    let effort = effort.trim().to_ascii_lowercase();
    let unknown =
        || invalid(format!("reasoning_effort `{effort}` is not one Gemini takes: use none, minimal, low, medium or high"));
    if model.starts_with("gemini-2") || model.starts_with("gemini-1") {
        // 24576 is the largest budget both 2.5 Flash and 2.5 Pro accept; 128 the smallest Pro accepts.
        let budget: u64 = match effort.as_str() {
            "none" => 0,
            "minimal" => 128,
            "low" => 1024,
            "medium" => 8192,
            "high" => 24576,
            _ => return Err(unknown()),
        };
        return Ok(object(vec![("thinkingBudget", budget.into()), ("includeThoughts", (budget > 0).into())]));
    }
    // Gemini 3 cannot switch thinking off: `none` asks for as little as it allows.
    let level = match effort.as_str() {
        "none" | "minimal" => "MINIMAL",
        "low" => "LOW",
        "medium" => "MEDIUM",
        "high" => "HIGH",
        _ => return Err(unknown()),
    };
    Ok(object(vec![("thinkingLevel", level.into()), ("includeThoughts", (effort != "none").into())]))
}

/// Spec 7.2 step 7, as the `Gemini` docs describe: a deep merge, with `tools` appended and
/// `generationConfig.thinkingConfig` replaced whole.
fn apply_provider_options(body: &mut Map<String, Value>, options: &Value) -> Result<(), LlmError> {
    let options =
        options.as_object().ok_or_else(|| invalid("provider_options.gemini must be an object of request-body fields"))?;
    for (key, value) in options {
        let target = body.entry(key.as_str()).or_insert(Value::Null);
        match (key.as_str(), target, value) {
            ("tools", Value::Array(tools), Value::Array(extra)) => tools.extend(extra.iter().cloned()),
            ("generationConfig", Value::Object(config), Value::Object(patch)) => {
                for (key, value) in patch {
                    match config.get_mut(key) {
                        Some(target) if key != "thinkingConfig" => merge(target, value),
                        _ => {
                            config.insert(key.clone(), value.clone());
                        }
                    }
                }
            }
            (_, target, value) => merge(target, value),
        }
    }
    Ok(())
}

/// Objects merge key by key; anything else replaces what was there.
fn merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(target), Value::Object(patch)) => {
            for (key, value) in patch {
                merge(target.entry(key.as_str()).or_insert(Value::Null), value);
            }
        }
        (target, patch) => *target = patch.clone(),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::synthetic_call_id;
    use super::*;
    use serde_json::json;

    fn request(messages: Vec<Message>) -> Request {
        Request { model: "gemini-2.5-flash".into(), messages, ..Request::default() }
    }

    fn assistant(parts: Vec<ContentPart>) -> Message {
        Message::new(Role::Assistant, parts)
    }

    fn weather_tool() -> ToolDefinition {
        ToolDefinition {
            name: "get_weather".into(),
            description: "Get weather".into(),
            parameters: json!({"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"],
                               "additionalProperties": false}),
        }
    }

    #[test]
    fn system_and_developer_text_become_the_system_instruction() {
        let body = body(&request(vec![
            Message::system("Be brief."),
            Message::user("Hi"),
            Message::text_message(Role::Developer, "Use metric."),
            Message::assistant("Hello"),
        ]))
        .unwrap();
        assert_eq!(body["systemInstruction"], json!({"parts": [{"text": "Be brief."}, {"text": "Use metric."}]}));
        assert_eq!(
            body["contents"],
            json!([{"role": "user", "parts": [{"text": "Hi"}]}, {"role": "model", "parts": [{"text": "Hello"}]}])
        );
        let image = ContentPart::Image { image: MediaData { data: Some(vec![1]), ..MediaData::default() } };
        assert_eq!(body_error(request(vec![Message::new(Role::System, vec![image])])), ErrorKind::InvalidRequest);
    }

    fn body_error(request: Request) -> ErrorKind {
        body(&request).unwrap_err().kind
    }

    #[test]
    fn media_goes_inline_or_by_uri() {
        let media = |url: Option<&str>, data: Option<Vec<u8>>, media_type: Option<&str>| MediaData {
            url: url.map(Into::into),
            data,
            media_type: media_type.map(Into::into),
            ..MediaData::default()
        };
        let message = Message::new(
            Role::User,
            vec![
                ContentPart::Image { image: media(None, Some(b"abc".to_vec()), None) },
                ContentPart::Image { image: media(Some("https://x.test/cat.JPG?s=1"), None, None) },
                ContentPart::Image { image: media(Some("data:image/gif;base64,R0lG"), None, None) },
                ContentPart::Document { document: media(Some("gs://bucket/a"), None, None) },
                ContentPart::Audio { audio: media(None, Some(vec![0]), Some("audio/mp3")) },
            ],
        );
        assert_eq!(
            body(&request(vec![message])).unwrap()["contents"][0]["parts"],
            json!([
                {"inlineData": {"mimeType": "image/png", "data": "YWJj"}},
                {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://x.test/cat.JPG?s=1"}},
                {"inlineData": {"mimeType": "image/gif", "data": "R0lG"}},
                {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://bucket/a"}},
                {"inlineData": {"mimeType": "audio/mp3", "data": "AA=="}}
            ])
        );
        let local = Message::new(Role::User, vec![ContentPart::Image { image: media(Some("./shot.png"), None, None) }]);
        assert_eq!(body_error(request(vec![local])), ErrorKind::InvalidRequest);
        let empty = Message::new(Role::User, vec![ContentPart::Image { image: MediaData::default() }]);
        assert_eq!(body_error(request(vec![empty])), ErrorKind::InvalidRequest);
    }

    #[test]
    fn calls_and_results_round_trip_with_names_ids_and_signatures() {
        let mut signed = ToolCall::new("s3qm24sq", "get_weather", json!({"location": "Tokyo"}));
        signed.signature = Some("sig".into());
        let ours = ToolCall::new(synthetic_call_id(), "get_time", json!({}));
        let broken = ToolCall::from_raw(synthetic_call_id(), "get_time", "{not json");
        let messages = vec![
            Message::user("Tokyo?"),
            assistant(vec![
                ContentPart::ToolCall { tool_call: signed },
                ContentPart::ToolCall { tool_call: ours.clone() },
                ContentPart::ToolCall { tool_call: broken },
            ]),
            Message::tool_result(ToolResult::new("s3qm24sq", "71 degrees", false)),
            Message::tool_result(ToolResult::new(ours.id.clone(), "clock broke", true)),
            Message::user("Thanks"),
        ];
        let body = body(&request(messages)).unwrap();
        assert_eq!(
            body["contents"][1]["parts"],
            json!([
                {"functionCall": {"name": "get_weather", "args": {"location": "Tokyo"}, "id": "s3qm24sq"}, "thoughtSignature": "sig"},
                {"functionCall": {"name": "get_time", "args": {}}},
                {"functionCall": {"name": "get_time", "args": {}}}
            ])
        );
        // Both results in one user content, each under the name of the call it answers.
        assert_eq!(
            body["contents"][2],
            json!({"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"result": "71 degrees"}}},
                {"functionResponse": {"name": "get_time", "response": {"error": "clock broke"}}}
            ]})
        );
        assert_eq!(body["contents"][3], json!({"role": "user", "parts": [{"text": "Thanks"}]}));
    }

    #[test]
    fn a_result_for_an_unknown_call_needs_a_name() {
        let orphan = Message::tool_result(ToolResult::new("nope", "x", false));
        assert_eq!(body_error(request(vec![orphan.clone()])), ErrorKind::InvalidRequest);
        let named = Message { name: Some("lookup".into()), ..orphan };
        assert_eq!(body(&request(vec![named])).unwrap()["contents"][0]["parts"][0]["functionResponse"]["name"], "lookup");
    }

    #[test]
    fn image_results_follow_their_function_response() {
        let call = ToolCall::new("c1", "screenshot", json!({}));
        let mut result = ToolResult::new("c1", "done", false);
        result.image_data = Some(vec![0xff]);
        let body = body(&request(vec![assistant(vec![ContentPart::ToolCall { tool_call: call }]), Message::tool_result(result)]))
            .unwrap();
        assert_eq!(body["contents"][1]["parts"][1], json!({"inlineData": {"mimeType": "image/png", "data": "/w=="}}));
    }

    #[test]
    fn thoughts_and_signature_carriers_go_back_where_they_came_from() {
        let thinking = |text: &str, signature: Option<&str>| ContentPart::Thinking {
            thinking: ThinkingData { text: text.into(), signature: signature.map(Into::into), ..ThinkingData::default() },
        };
        let message = assistant(vec![
            thinking("Planning", None),
            ContentPart::text("Answer"),
            thinking("", Some("sig-text")),
            thinking("", Some("orphan")),
            thinking("", None),
            ContentPart::RedactedThinking {
                thinking: ThinkingData { text: "opaque".into(), redacted: true, ..ThinkingData::default() },
            },
        ]);
        assert_eq!(
            body(&request(vec![message])).unwrap()["contents"][0]["parts"],
            json!([
                {"text": "Planning", "thought": true},
                {"text": "Answer", "thoughtSignature": "sig-text"},
                {"text": "", "thoughtSignature": "orphan"}
            ])
        );
        let only_redacted = assistant(vec![ContentPart::RedactedThinking {
            thinking: ThinkingData { text: "x".into(), ..ThinkingData::default() },
        }]);
        assert_eq!(body(&request(vec![only_redacted])).unwrap()["contents"], json!([]));
    }

    #[test]
    fn tools_and_tool_choice() {
        let no_params = ToolDefinition { name: "now".into(), description: String::new(), parameters: json!({"type": "object"}) };
        let mut req = request(vec![Message::user("?")]);
        req.tools = vec![weather_tool(), no_params];
        let body_for = |choice: Option<ToolChoice>| {
            let mut req = req.clone();
            req.tool_choice = choice;
            body(&req)
        };
        let plain = body_for(None).unwrap();
        assert_eq!(
            plain["tools"],
            json!([{"functionDeclarations": [
                {"name": "get_weather", "description": "Get weather",
                 "parameters": {"type": "OBJECT", "properties": {"location": {"type": "STRING"}}, "required": ["location"]}},
                {"name": "now"}
            ]}])
        );
        assert!(plain.get("toolConfig").is_none());
        let mode = |choice| body_for(Some(choice)).unwrap()["toolConfig"]["functionCallingConfig"].clone();
        assert_eq!(mode(ToolChoice::Auto), json!({"mode": "AUTO"}));
        assert_eq!(mode(ToolChoice::None), json!({"mode": "NONE"}));
        assert_eq!(mode(ToolChoice::Required), json!({"mode": "ANY"}));
        assert_eq!(
            mode(ToolChoice::Named { tool_name: "get_weather".into() }),
            json!({"mode": "ANY", "allowedFunctionNames": ["get_weather"]})
        );
        assert_eq!(body_for(Some(ToolChoice::Named { tool_name: "ghost".into() })).unwrap_err().kind, ErrorKind::InvalidRequest);
        let mut bare = request(vec![Message::user("?")]);
        bare.tool_choice = Some(ToolChoice::Auto);
        assert!(body(&bare).unwrap().get("toolConfig").is_none());
        bare.tool_choice = Some(ToolChoice::Required);
        assert_eq!(body_error(bare), ErrorKind::InvalidRequest);
    }

    #[test]
    fn generation_parameters_and_response_formats() {
        let mut req = request(vec![Message::user("?")]);
        req.temperature = Some(0.7);
        req.top_p = Some(0.9);
        req.max_tokens = Some(128);
        req.stop_sequences = vec!["10".into()];
        req.response_format =
            Some(ResponseFormat::JsonSchema { json_schema: json!({"type": "object", "prefixItems": []}), strict: true });
        assert_eq!(
            body(&req).unwrap()["generationConfig"],
            json!({"temperature": 0.7, "topP": 0.9, "maxOutputTokens": 128, "stopSequences": ["10"],
                   "responseMimeType": "application/json", "responseJsonSchema": {"type": "object", "prefixItems": []}})
        );
        req.response_format = Some(ResponseFormat::Json);
        assert_eq!(body(&req).unwrap()["generationConfig"]["responseMimeType"], "application/json");
        let plain = body(&request(vec![Message::user("?")])).unwrap();
        assert!(plain.get("generationConfig").is_none());
    }

    #[test]
    fn reasoning_effort_is_a_level_on_gemini_3_and_a_budget_on_gemini_2() {
        let config = |model: &str, effort: &str| {
            let mut req = request(vec![Message::user("?")]);
            req.model = model.into();
            req.reasoning_effort = Some(effort.into());
            body(&req).map(|b| b["generationConfig"]["thinkingConfig"].clone())
        };
        assert_eq!(config("gemini-3-flash-preview", "high").unwrap(), json!({"thinkingLevel": "HIGH", "includeThoughts": true}));
        assert_eq!(config("gemini-3-pro", "Medium").unwrap(), json!({"thinkingLevel": "MEDIUM", "includeThoughts": true}));
        assert_eq!(config("gemini-3-pro", "none").unwrap(), json!({"thinkingLevel": "MINIMAL", "includeThoughts": false}));
        assert_eq!(config("models/gemini-2.5-pro", "low").unwrap(), json!({"thinkingBudget": 1024, "includeThoughts": true}));
        assert_eq!(config("gemini-2.5-flash", "none").unwrap(), json!({"thinkingBudget": 0, "includeThoughts": false}));
        assert_eq!(config("gemini-2.5-flash", "extreme").unwrap_err().kind, ErrorKind::InvalidRequest);
    }

    #[test]
    fn provider_options_patch_the_body() {
        let mut req = request(vec![Message::user("?")]);
        req.tools = vec![weather_tool()];
        req.tool_choice = Some(ToolChoice::Auto);
        req.temperature = Some(0.5);
        req.reasoning_effort = Some("high".into());
        req.provider_options = Some(json!({
            "openai": {"ignored": true},
            "gemini": {
                "generationConfig": {"topK": 40, "seed": 7, "thinkingConfig": {"thinkingBudget": 10000, "includeThoughts": true}},
                "toolConfig": {"functionCallingConfig": {"mode": "VALIDATED"}},
                "tools": [{"googleSearch": {}}],
                "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]
            }
        }));
        let body = body(&req).unwrap();
        assert_eq!(
            body["generationConfig"],
            json!({"temperature": 0.5, "topK": 40, "seed": 7, "thinkingConfig": {"thinkingBudget": 10000, "includeThoughts": true}})
        );
        assert_eq!(body["toolConfig"], json!({"functionCallingConfig": {"mode": "VALIDATED"}}));
        assert_eq!(body["tools"].as_array().map(Vec::len), Some(2));
        assert_eq!(body["tools"][1], json!({"googleSearch": {}}));
        assert_eq!(body["safetySettings"][0]["threshold"], "BLOCK_NONE");
        assert!(body.get("ignored").is_none());
        req.provider_options = Some(json!({"gemini": [1]}));
        assert_eq!(body_error(req), ErrorKind::InvalidRequest);
    }
}
