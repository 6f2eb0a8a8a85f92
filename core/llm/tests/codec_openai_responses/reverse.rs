//! Test-side reading of captured Responses API request bodies: the reverse mapping into a unified
//! `Request` (for what the unified model covers), and the normalisation under which a captured
//! body and the codec's body must be equal.

use std::collections::BTreeMap;

use openagent_llm::base64;
use openagent_llm::{
    ContentPart, MediaData, Message, Request, ResponseFormat, Role, ThinkingData, ToolCall, ToolChoice, ToolDefinition,
    ToolResult,
};
use serde_json::{json, Map, Value};

/// Top-level request keys the unified `Request` carries itself; every other key is provider-only
/// and travels in `provider_options.openai`.
const UNIFIED_KEYS: [&str; 10] =
    ["model", "instructions", "input", "tools", "tool_choice", "text", "reasoning", "max_output_tokens", "temperature", "top_p"];

/// A captured request as a unified one, with the provider-only keys it routed through
/// `provider_options`; `Err` names what the unified model does not carry (the case is skipped).
pub fn unified_request(captured: &Value) -> Result<(Request, Vec<String>), String> {
    let body = captured.as_object().ok_or("the capture is not a JSON object")?;
    let mut request = Request { model: text(body.get("model")).ok_or("no model")?.to_owned(), ..Request::default() };
    let mut options = Map::new();
    if let Some(instructions) = text(body.get("instructions")) {
        request.messages.push(Message::system(instructions));
    }
    match body.get("input") {
        Some(Value::String(input)) => request.messages.push(Message::user(input.clone())),
        Some(Value::Array(items)) => messages(items, &mut request.messages)?,
        _ => return Err("input is neither a string nor a list".into()),
    }
    for tool in body.get("tools").and_then(Value::as_array).into_iter().flatten() {
        match text(tool.get("type")) {
            Some("function") => request.tools.push(ToolDefinition {
                name: text(tool.get("name")).unwrap_or_default().to_owned(),
                description: text(tool.get("description")).unwrap_or_default().to_owned(),
                parameters: tool.get("parameters").cloned().unwrap_or(Value::Null),
            }),
            Some("custom") => return Err("custom (free-text) tools: the unified ToolDefinition has no input format".into()),
            other => return Err(format!("provider built-in tool `{}`", other.unwrap_or("?"))),
        }
    }
    request.tool_choice = match body.get("tool_choice") {
        None => None,
        Some(Value::String(choice)) => Some(match choice.as_str() {
            "auto" => ToolChoice::Auto,
            "none" => ToolChoice::None,
            "required" => ToolChoice::Required,
            other => return Err(format!("tool_choice `{other}`")),
        }),
        Some(choice) if text(choice.get("type")) == Some("function") => {
            Some(ToolChoice::Named { tool_name: text(choice.get("name")).unwrap_or_default().to_owned() })
        }
        Some(choice) => return Err(format!("tool_choice {choice}")),
    };
    if let Some(Value::Object(text_options)) = body.get("text") {
        let mut rest = text_options.clone();
        if let Some(format) = rest.remove("format") {
            request.response_format = Some(response_format(&format)?);
        }
        if !rest.is_empty() {
            options.insert("text".into(), Value::Object(rest));
        }
    }
    if let Some(Value::Object(reasoning)) = body.get("reasoning") {
        let mut rest = reasoning.clone();
        request.reasoning_effort = rest.remove("effort").and_then(|e| e.as_str().map(str::to_owned));
        if !rest.is_empty() {
            options.insert("reasoning".into(), Value::Object(rest));
        }
    }
    request.max_tokens = body.get("max_output_tokens").and_then(Value::as_u64);
    request.temperature = body.get("temperature").and_then(Value::as_f64);
    request.top_p = body.get("top_p").and_then(Value::as_f64);
    let mut passed = Vec::new();
    for (key, value) in body.iter().filter(|(key, _)| !UNIFIED_KEYS.contains(&key.as_str())) {
        match (key.as_str(), value) {
            ("metadata", Value::Object(fields)) if fields.values().all(Value::is_string) => {
                request.metadata = fields.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned())).collect();
            }
            ("stream", _) => {}
            _ => {
                passed.push(key.clone());
                options.insert(key.clone(), value.clone());
            }
        }
    }
    // The capture relied on the API's default, `store: true`; the codec's default is stateless,
    // so the same meaning has to be said out loud.
    options.entry("store").or_insert(Value::Bool(true));
    request.provider_options = Some(json!({ "openai": options }));
    Ok((request, passed))
}

fn text(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str)
}

fn response_format(format: &Value) -> Result<ResponseFormat, String> {
    match text(format.get("type")) {
        Some("text") => Ok(ResponseFormat::Text),
        Some("json_object") => Ok(ResponseFormat::Json),
        Some("json_schema") => {
            let mut envelope = json!({"name": format.get("name"), "schema": format.get("schema")});
            if let (Some(description), Some(fields)) = (format.get("description"), envelope.as_object_mut()) {
                fields.insert("description".into(), description.clone());
            }
            let strict = format.get("strict").and_then(Value::as_bool).unwrap_or(false);
            Ok(ResponseFormat::JsonSchema { json_schema: envelope, strict })
        }
        other => Err(format!("text.format `{}`", other.unwrap_or("?"))),
    }
}

/// Input items as messages: reasoning, assistant messages and calls that follow one another are
/// one assistant turn, as a response's output is.
fn messages(items: &[Value], out: &mut Vec<Message>) -> Result<(), String> {
    for item in items {
        let Value::Object(fields) = item else {
            return Err(format!("malformed capture: an input item that is not an object ({})", kind_of(item)));
        };
        let kind = text(fields.get("type")).unwrap_or(if fields.contains_key("role") { "message" } else { "?" });
        match kind {
            "message" => {
                let role = match text(fields.get("role")) {
                    Some("user") => Role::User,
                    Some("assistant") => Role::Assistant,
                    other => return Err(format!("a `{}` message inside input", other.unwrap_or("?"))),
                };
                let parts = content(fields.get("content"))?;
                if role == Role::Assistant {
                    assistant_turn(out).content.extend(parts);
                } else {
                    out.push(Message::new(role, parts));
                }
            }
            "reasoning" => {
                let summary = fields.get("summary").and_then(Value::as_array).into_iter().flatten();
                let texts: Vec<&str> = summary.filter_map(|part| text(part.get("text"))).collect();
                let thinking = ThinkingData {
                    text: texts.join("\n\n"),
                    signature: text(fields.get("encrypted_content")).map(str::to_owned),
                    redacted: false,
                    id: text(fields.get("id")).map(str::to_owned),
                };
                assistant_turn(out).content.push(ContentPart::Thinking { thinking });
            }
            "function_call" => {
                let field = |key| text(fields.get(key)).unwrap_or_default();
                let mut call = ToolCall::from_raw(field("call_id"), field("name"), field("arguments"));
                call.signature = text(fields.get("id")).map(str::to_owned);
                assistant_turn(out).content.push(ContentPart::ToolCall { tool_call: call });
            }
            "function_call_output" => {
                let output = text(fields.get("output")).ok_or("a function_call_output whose output is not text")?;
                let call_id = text(fields.get("call_id")).unwrap_or_default();
                out.push(Message::tool_result(ToolResult::new(call_id, output, false)));
            }
            other => return Err(format!("input item `{other}`")),
        }
    }
    Ok(())
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        _ => "a scalar",
    }
}

fn assistant_turn(out: &mut Vec<Message>) -> &mut Message {
    if out.last().is_none_or(|m| m.role != Role::Assistant) {
        out.push(Message::new(Role::Assistant, Vec::new()));
    }
    let last = out.len() - 1;
    &mut out[last]
}

fn content(content: Option<&Value>) -> Result<Vec<ContentPart>, String> {
    let parts = match content {
        Some(Value::String(text)) => return Ok(vec![ContentPart::text(text.clone())]),
        Some(Value::Array(parts)) => parts,
        _ => return Err("message content is neither text nor a list".into()),
    };
    parts.iter().map(part).collect()
}

fn part(part: &Value) -> Result<ContentPart, String> {
    let known = ["type", "text", "annotations", "logprobs", "image_url", "detail", "file_url", "file_data", "filename"];
    if let Some(extra) = part.as_object().into_iter().flat_map(Map::keys).find(|k| !known.contains(&k.as_str())) {
        return Err(format!("content part field `{extra}`"));
    }
    let field = |key| text(part.get(key));
    match field("type") {
        Some("input_text" | "output_text") => Ok(ContentPart::text(field("text").unwrap_or_default())),
        Some("input_image") => {
            let mut image = media(field("image_url"))?;
            image.detail = field("detail").map(str::to_owned);
            Ok(ContentPart::Image { image })
        }
        Some("input_file") => {
            let mut document = media(field("file_url").or(field("file_data")))?;
            document.file_name = field("filename").map(str::to_owned);
            Ok(ContentPart::Document { document })
        }
        other => Err(format!("content part `{}`", other.unwrap_or("?"))),
    }
}

/// A URL, or a `data:` URI as inline bytes.
fn media(url: Option<&str>) -> Result<MediaData, String> {
    let url = url.ok_or("media without a url")?;
    let Some((header, data)) = url.strip_prefix("data:").and_then(|rest| rest.split_once(";base64,")) else {
        return Ok(MediaData { url: Some(url.to_owned()), ..MediaData::default() });
    };
    let data = base64::decode(data)?;
    Ok(MediaData { data: Some(data), media_type: Some(header.to_owned()), ..MediaData::default() })
}

/// The form in which two request bodies that mean the same compare equal: a string input is a
/// user message, item `type`s are explicit, content is always a list of parts, and what the API
/// ignores or derives on input (message ids and statuses, annotations, logprobs, empty reasoning
/// content) is gone; an absent `store` is the API default, `true`.
pub fn normalize(body: &Value) -> Value {
    let mut body = body.clone();
    let Some(fields) = body.as_object_mut() else { return body };
    if let Some(Value::String(input)) = fields.get("input") {
        let input = json!([{"type": "message", "role": "user", "content": [{"type": "input_text", "text": input}]}]);
        fields.insert("input".into(), input);
    }
    fields.entry("store").or_insert(Value::Bool(true));
    for item in fields.get_mut("input").and_then(Value::as_array_mut).into_iter().flatten() {
        let Some(item) = item.as_object_mut() else { continue };
        if !item.contains_key("type") && item.contains_key("role") {
            item.insert("type".into(), json!("message"));
        }
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                item.remove("id");
                item.remove("status");
                let kind =
                    if item.get("role").and_then(Value::as_str) == Some("assistant") { "output_text" } else { "input_text" };
                if let Some(Value::String(text)) = item.get("content") {
                    let parts = json!([{"type": kind, "text": text}]);
                    item.insert("content".into(), parts);
                }
                for part in item.get_mut("content").and_then(Value::as_array_mut).into_iter().flatten() {
                    if let Some(part) = part.as_object_mut() {
                        part.remove("annotations");
                        part.remove("logprobs");
                    }
                }
            }
            Some("function_call") => {
                item.remove("status");
            }
            Some("reasoning") if item.get("content").and_then(Value::as_array).is_some_and(Vec::is_empty) => {
                item.remove("content");
            }
            _ => {}
        }
    }
    body
}

/// Where two bodies differ, as JSON paths with both values.
pub fn differences(expected: &Value, actual: &Value, path: &str, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeMap<&String, ()> = a.keys().chain(b.keys()).map(|k| (k, ())).collect();
            for key in keys.keys() {
                let (x, y) = (a.get(*key).unwrap_or(&Value::Null), b.get(*key).unwrap_or(&Value::Null));
                differences(x, y, &format!("{path}.{key}"), out);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (at, (x, y)) in a.iter().zip(b).enumerate() {
                differences(x, y, &format!("{path}[{at}]"), out);
            }
        }
        (a, b) if a != b => out.push(format!("{path}: captured {} / ours {}", short(a), short(b))),
        _ => {}
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(160) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}
