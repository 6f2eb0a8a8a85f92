//! The conversation as Responses API input (spec 7.3): system and developer text as
//! `instructions`; messages, tool calls and their results, and reasoning as `input` items.

use serde_json::Value;

use super::error::invalid;
use crate::error::LlmError;
use crate::json::{join, object};
use crate::types::{ContentPart, MediaData, Message, Role, ThinkingData, ToolCall, ToolResult};

pub(super) fn instructions(messages: &[Message]) -> String {
    let texts: Vec<String> = messages
        .iter()
        .filter(|m| matches!(m.role, Role::System | Role::Developer))
        .map(Message::text)
        .filter(|text| !text.is_empty())
        .collect();
    join(&mut texts.iter().map(String::as_str), "\n\n")
}

/// The ids of the custom calls in `messages`: a result goes back as `custom_tool_call_output`
/// when it answers one.
pub(super) fn custom_calls(messages: &[Message]) -> Vec<&str> {
    messages.iter().flat_map(Message::tool_calls).filter(|call| call.call_type == "custom").map(|call| call.id.as_str()).collect()
}

/// One message's `input` items: the message, and the top-level `function_call`,
/// `function_call_output` and `reasoning` items, in conversation order.
pub(super) fn input(message: &Message, store: bool, custom_calls: &[&str], items: &mut Vec<Value>) -> Result<(), LlmError> {
    let role = match message.role {
        Role::System | Role::Developer => return Ok(()),
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
            ContentPart::ToolResult { tool_result } => Some(output_item(tool_result, custom_calls)),
            ContentPart::Thinking { thinking } => {
                let answered = message.content.iter().skip(at + 1).any(answers_reasoning);
                reasoning_item(thinking, store, answered)
            }
            // Anthropic's opaque reasoning means nothing to another provider.
            ContentPart::RedactedThinking { .. } => None,
        };
        if let Some(item) = item {
            flush(items, role, &mut content);
            items.push(item);
        }
    }
    flush(items, role, &mut content);
    if !tool_text.is_empty() {
        let Some(call_id) = &message.tool_call_id else {
            return Err(invalid("a tool message with text needs a tool_call_id to send it back to OpenAI"));
        };
        items.push(output_item(&ToolResult::new(call_id.clone(), tool_text, false), custom_calls));
    }
    Ok(())
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
    format!("data:{media_type};base64,{}", crate::base64::encode(data))
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
        (None, value) => crate::json_text::to_string(value),
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
fn output_item(result: &ToolResult, custom_calls: &[&str]) -> Value {
    let output = match (&result.image_data, custom_calls.contains(&result.tool_call_id.as_str())) {
        (Some(data), false) => {
            let media = MediaData { media_type: result.image_media_type.clone(), ..MediaData::default() };
            let text = object(vec![("type", "input_text".into()), ("text", result.content.as_ref().into())]);
            Value::Array(vec![text, image_item(data_uri(&media, data, "image/png"), "auto")])
        }
        _ => Value::from(&*result.content),
    };
    let kind =
        if custom_calls.contains(&result.tool_call_id.as_str()) { "custom_tool_call_output" } else { "function_call_output" };
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
