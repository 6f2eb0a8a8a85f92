//! Conversation translation (spec 7.3, Anthropic): system and developer text to `system`, and the
//! rest to strictly alternating `user`/`assistant` messages of content blocks.

use serde_json::{Map, Value};

use super::{PROVIDER, THINKING_ID_PREFIX};
use crate::base64;
use crate::error::{ErrorKind, LlmError};
use crate::json::object;
use crate::types::{ContentPart, MediaData, Message, Role, ThinkingData, ToolCall, ToolResult};

/// The translated conversation.
#[derive(Debug, Default)]
pub(super) struct Conversation {
    /// `system` text blocks, in conversation order.
    pub system: Vec<Value>,
    /// `messages`, merged so roles alternate.
    pub messages: Vec<Value>,
}

pub(super) fn translate(messages: &[Message]) -> Result<Conversation, LlmError> {
    let mut out = Conversation::default();
    for message in messages {
        match message.role {
            // The API takes instructions only in `system`, wherever the caller put them.
            Role::System | Role::Developer => {
                out.system.extend(message.content.iter().filter_map(ContentPart::as_text).filter_map(text_block))
            }
            Role::User | Role::Tool => out.push("user", message)?,
            Role::Assistant => out.push("assistant", message)?,
        }
    }
    Ok(out)
}

impl Conversation {
    /// Appends a message's blocks, merged into the previous message when the role repeats (the
    /// API requires alternation). A message with nothing to send adds nothing.
    fn push(&mut self, role: &str, message: &Message) -> Result<(), LlmError> {
        let mut blocks = Vec::with_capacity(message.content.len());
        for part in &message.content {
            blocks.extend(block(part)?);
        }
        if blocks.is_empty() {
            return Ok(());
        }
        if let Some(last) = self.messages.last_mut().filter(|m| m.get("role").and_then(Value::as_str) == Some(role)) {
            if let Some(Value::Array(content)) = last.get_mut("content") {
                content.extend(blocks);
                // The API wants a turn's tool results first; a user message that came between a
                // call and its result (a steering message, say) must not break that.
                let later = |block: &Value| block.get("type").and_then(Value::as_str) != Some("tool_result");
                crate::sort::sort_by(content, |a, b| later(a).cmp(&later(b)));
                return Ok(());
            }
        }
        self.messages.push(object(vec![("role", role.into()), ("content", Value::Array(blocks))]));
        Ok(())
    }
}

/// One content block, or `None` for a part the API must not see: empty text (rejected by the
/// API) and reasoning another provider produced (its signature is not Anthropic's).
fn block(part: &ContentPart) -> Result<Option<Value>, LlmError> {
    Ok(match part {
        ContentPart::Text { text } => text_block(text),
        ContentPart::Image { image } => Some(object(vec![("type", "image".into()), ("source", source(image, "image/png")?)])),
        ContentPart::Document { document } => Some(document_block(document)?),
        ContentPart::Audio { .. } => return Err(unsupported("audio input")),
        ContentPart::ToolCall { tool_call } => Some(tool_use(tool_call)),
        ContentPart::ToolResult { tool_result } => Some(tool_result_block(tool_result)),
        ContentPart::Thinking { thinking } => thinking_block(thinking),
        ContentPart::RedactedThinking { thinking } => {
            Some(object(vec![("type", "redacted_thinking".into()), ("data", thinking.text.as_str().into())]))
        }
    })
}

fn text_block(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| object(vec![("type", "text".into()), ("text", text.into())]))
}

/// A `source` object for inline bytes, a `data:` URL (as a browser produces) or a web URL.
fn source(media: &MediaData, default_type: &str) -> Result<Value, LlmError> {
    if let Some(bytes) = &media.data {
        let media_type = media.media_type.as_deref().unwrap_or(default_type);
        return Ok(base64_source(media_type, base64::encode(bytes)));
    }
    let Some(url) = &media.url else {
        return Err(
            LlmError::new(ErrorKind::InvalidRequest, "an image or document has neither data nor a URL").with_provider(PROVIDER)
        );
    };
    if let Some((media_type, data)) = url.strip_prefix("data:").and_then(|rest| rest.split_once(";base64,")) {
        return Ok(base64_source(media_type, data.to_owned()));
    }
    Ok(object(vec![("type", "url".into()), ("url", url.as_str().into())]))
}

fn base64_source(media_type: &str, data: String) -> Value {
    object(vec![("type", "base64".into()), ("media_type", media_type.into()), ("data", data.into())])
}

/// Plain-text documents go as text sources (the API reads them as text); others as base64 or URL.
fn document_block(document: &MediaData) -> Result<Value, LlmError> {
    let source = match (&document.data, document.media_type.as_deref()) {
        (Some(bytes), Some("text/plain")) => {
            let text = String::from_utf8_lossy(bytes).into_owned();
            object(vec![("type", "text".into()), ("media_type", "text/plain".into()), ("data", text.into())])
        }
        _ => source(document, "application/pdf")?,
    };
    let mut block = vec![("type", "document".into()), ("source", source)];
    if let Some(title) = &document.file_name {
        block.push(("title", title.as_str().into()));
    }
    Ok(object(block))
}

/// `input` must be an object: arguments that never parsed (kept only as raw text) go as `{}`.
fn tool_use(call: &ToolCall) -> Value {
    let input = match &call.arguments {
        Value::Object(_) => call.arguments.clone(),
        _ => Value::Object(Map::new()),
    };
    object(vec![
        ("type", "tool_use".into()),
        ("id", call.id.as_str().into()),
        ("name", call.name.as_str().into()),
        ("input", input),
    ])
}

fn tool_result_block(result: &ToolResult) -> Value {
    let content = match &result.image_data {
        None => result.content.as_ref().into(),
        Some(bytes) => {
            let media_type = result.image_media_type.as_deref().unwrap_or("image/png");
            let image = object(vec![("type", "image".into()), ("source", base64_source(media_type, base64::encode(bytes)))]);
            Value::Array(text_block(&result.content).into_iter().chain([image]).collect())
        }
    };
    let mut block =
        vec![("type", "tool_result".into()), ("tool_use_id", result.tool_call_id.as_str().into()), ("content", content)];
    if result.is_error {
        block.push(("is_error", true.into()));
    }
    object(block)
}

/// Signed thinking goes back verbatim: the API refuses a tool-use turn whose thinking is missing.
/// Unsigned thinking, or thinking that carries another provider's item id (OpenAI Responses), came
/// from elsewhere and would be rejected (spec 3.5). A streamed answer's thinking carries the
/// decoder's own segment id, so that id is ours.
fn thinking_block(thinking: &ThinkingData) -> Option<Value> {
    let ours = thinking.id.as_deref().is_none_or(|id| id.starts_with(THINKING_ID_PREFIX));
    match &thinking.signature {
        Some(signature) if ours => Some(object(vec![
            ("type", "thinking".into()),
            ("thinking", thinking.text.as_str().into()),
            ("signature", signature.as_str().into()),
        ])),
        _ => None,
    }
}

fn unsupported(what: &str) -> LlmError {
    LlmError::new(ErrorKind::InvalidRequest, format!("the Anthropic Messages API does not accept {what}")).with_provider(PROVIDER)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use serde_json::json;

    fn part_of(message: &Value, at: usize) -> &Value {
        &message["content"][at]
    }

    #[test]
    fn system_and_developer_text_goes_to_system_wherever_it_stands() {
        let conversation = translate(&[
            Message::system("Be brief."),
            Message::user("Hi"),
            Message::text_message(Role::Developer, "Use tools."),
            Message::system(""),
        ])
        .unwrap();
        assert_eq!(
            conversation.system,
            [json!({"type": "text", "text": "Be brief."}), json!({"type": "text", "text": "Use tools."})]
        );
        assert_eq!(conversation.messages, [json!({"role": "user", "content": [{"type": "text", "text": "Hi"}]})]);
    }

    #[test]
    fn consecutive_same_role_messages_merge_and_tool_results_join_the_user_turn() {
        let call = ToolCall::new("toolu_1", "read", json!({"path": "a"}));
        let conversation = translate(&[
            Message::user("one"),
            Message::user("two"),
            Message::new(Role::Assistant, vec![ContentPart::text("reading"), ContentPart::ToolCall { tool_call: call }]),
            Message::tool_result(ToolResult::new("toolu_1", "contents", false)),
            Message::tool_result(ToolResult::new("toolu_2", "boom", true)),
            Message::user("next"),
        ])
        .unwrap();
        let roles: Vec<_> = conversation.messages.iter().map(|m| m["role"].as_str().unwrap_or_default()).collect();
        assert_eq!(roles, ["user", "assistant", "user"]);
        assert_eq!(conversation.messages[0]["content"].as_array().map(Vec::len), Some(2));
        assert_eq!(
            part_of(&conversation.messages[1], 1),
            &json!({"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}})
        );
        let results = &conversation.messages[2];
        assert_eq!(part_of(results, 0), &json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "contents"}));
        assert_eq!(
            part_of(results, 1),
            &json!({"type": "tool_result", "tool_use_id": "toolu_2", "content": "boom", "is_error": true})
        );
        assert_eq!(part_of(results, 2), &json!({"type": "text", "text": "next"}));
    }

    #[test]
    fn images_go_as_base64_data_urls_or_web_urls() {
        let inline = MediaData { data: Some(b"png!".to_vec()), ..MediaData::default() };
        let data_url = MediaData { url: Some("data:image/gif;base64,R0lG".into()), ..MediaData::default() };
        let web = MediaData { url: Some("https://example.com/a.jpg".into()), ..MediaData::default() };
        let message =
            Message::new(Role::User, [inline, data_url, web].into_iter().map(|image| ContentPart::Image { image }).collect());
        let conversation = translate(&[message]).unwrap();
        let user = &conversation.messages[0];
        assert_eq!(part_of(user, 0)["source"], json!({"type": "base64", "media_type": "image/png", "data": "cG5nIQ=="}));
        assert_eq!(part_of(user, 1)["source"], json!({"type": "base64", "media_type": "image/gif", "data": "R0lG"}));
        assert_eq!(part_of(user, 2)["source"], json!({"type": "url", "url": "https://example.com/a.jpg"}));
        let empty = Message::new(Role::User, vec![ContentPart::Image { image: MediaData::default() }]);
        assert_eq!(translate(&[empty]).unwrap_err().kind, ErrorKind::InvalidRequest);
    }

    #[test]
    fn documents_keep_their_title_and_text_documents_go_as_text() {
        let text = MediaData {
            data: Some(b"Sample text.".to_vec()),
            media_type: Some("text/plain".into()),
            file_name: Some("Doc".into()),
            ..MediaData::default()
        };
        let pdf = MediaData { data: Some(b"%PDF".to_vec()), ..MediaData::default() };
        let message =
            Message::new(Role::User, vec![ContentPart::Document { document: text }, ContentPart::Document { document: pdf }]);
        let conversation = translate(&[message]).unwrap();
        assert_eq!(
            part_of(&conversation.messages[0], 0),
            &json!({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "Sample text."}, "title": "Doc"})
        );
        assert_eq!(
            part_of(&conversation.messages[0], 1)["source"],
            json!({"type": "base64", "media_type": "application/pdf", "data": "JVBERg=="})
        );
    }

    #[test]
    fn audio_is_refused_clearly() {
        let message = Message::new(Role::User, vec![ContentPart::Audio { audio: MediaData::default() }]);
        let error = translate(&[message]).unwrap_err();
        assert_eq!(error.kind, ErrorKind::InvalidRequest);
        assert!(error.message.contains("audio"));
    }

    #[test]
    fn thinking_round_trips_verbatim_and_foreign_reasoning_is_dropped() {
        let signed = ThinkingData { text: "hmm".into(), signature: Some("sig==".into()), ..ThinkingData::default() };
        let unsigned = ThinkingData { text: "from gemini".into(), ..ThinkingData::default() };
        let openai =
            ThinkingData { text: String::new(), signature: Some("enc".into()), id: Some("rs_1".into()), redacted: false };
        let redacted = ThinkingData { text: "opaque==".into(), redacted: true, ..ThinkingData::default() };
        let streamed = ThinkingData { id: Some("thinking-0".into()), ..signed.clone() };
        let message = Message::new(
            Role::Assistant,
            vec![
                ContentPart::Thinking { thinking: signed },
                ContentPart::Thinking { thinking: streamed },
                ContentPart::Thinking { thinking: unsigned },
                ContentPart::Thinking { thinking: openai },
                ContentPart::RedactedThinking { thinking: redacted },
                ContentPart::text("answer"),
            ],
        );
        let conversation = translate(&[message]).unwrap();
        assert_eq!(
            conversation.messages[0]["content"],
            json!([
                {"type": "thinking", "thinking": "hmm", "signature": "sig=="},
                {"type": "thinking", "thinking": "hmm", "signature": "sig=="},
                {"type": "redacted_thinking", "data": "opaque=="},
                {"type": "text", "text": "answer"},
            ])
        );
    }

    #[test]
    fn tool_calls_with_unparsed_arguments_send_an_empty_input_and_images_ride_in_results() {
        let call = ToolCall::from_raw("t1", "f", "{not json");
        let mut result = ToolResult::new("t1", "see image", false);
        result.image_data = Some(vec![1, 2, 3]);
        let conversation = translate(&[
            Message::new(Role::Assistant, vec![ContentPart::ToolCall { tool_call: call }]),
            Message::tool_result(result),
        ])
        .unwrap();
        assert_eq!(part_of(&conversation.messages[0], 0)["input"], json!({}));
        assert_eq!(
            part_of(&conversation.messages[1], 0)["content"],
            json!([{"type": "text", "text": "see image"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AQID"}}])
        );
    }

    #[test]
    fn tool_results_lead_their_user_turn_even_after_a_steering_message() {
        let conversation = translate(&[
            Message::new(Role::Assistant, vec![ContentPart::ToolCall { tool_call: ToolCall::new("t1", "f", json!({})) }]),
            Message::user("also check b"),
            Message::tool_result(ToolResult::new("t1", "done", false)),
        ])
        .unwrap();
        assert_eq!(part_of(&conversation.messages[1], 0)["type"], "tool_result");
        assert_eq!(part_of(&conversation.messages[1], 1)["type"], "text");
    }

    #[test]
    fn messages_with_nothing_to_send_are_left_out() {
        let conversation = translate(&[Message::user(""), Message::assistant("a")]).unwrap();
        assert_eq!(conversation.messages, [json!({"role": "assistant", "content": [{"type": "text", "text": "a"}]})]);
    }
}
