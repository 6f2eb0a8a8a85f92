//! The conversation as Chat Completions messages (spec 7.3): roles, text or content parts, tool
//! calls and their results as `tool` messages, and reasoning when it is asked for.

use serde_json::{Map, Value};

use super::options::ChatOptions;
use crate::base64;
use crate::error::{ErrorKind, LlmError};
use crate::json::object;
use crate::types::{ContentPart, MediaData, Message, Role, ToolCall};

/// Appends the wire messages for one unified message: usually one, one per tool result.
pub(super) fn translate(message: &Message, options: &ChatOptions, out: &mut Vec<Value>) -> Result<(), LlmError> {
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
        (None, value) => crate::json_text::to_string(value),
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

fn invalid(message: &str) -> LlmError {
    LlmError::new(ErrorKind::InvalidRequest, message)
}
