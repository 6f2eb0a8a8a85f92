//! The conversation as generateContent `contents` (spec 7.3): system and developer text for
//! `systemInstruction`, turns of parts, function calls and responses, and thoughts with their
//! signatures where they came from.

use serde_json::{Map, Value};

use super::error::invalid;
use super::is_synthetic_call_id;
use crate::base64;
use crate::error::LlmError;
use crate::json::object;
use crate::types::{ContentPart, MediaData, Message, Role, ThinkingData, ToolCall, ToolResult};

fn text_part(text: &str) -> Value {
    object(vec![("text", text.into())])
}

fn inline_data(mime: &str, data: Value) -> Value {
    object(vec![("inlineData", object(vec![("mimeType", mime.into()), ("data", data)]))])
}

/// System and developer text for `systemInstruction`, and the conversation as `contents`.
pub(super) fn contents(messages: &[Message]) -> Result<(Vec<Value>, Vec<Value>), LlmError> {
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
    let response = object(vec![("name", name.into()), ("response", object(vec![(key, result.content.as_ref().into())]))]);
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
