//! Conversation history (spec 2.4) and its conversion to LLM messages.

use serde::{Deserialize, Serialize};

use crate::llm::{ContentPart, MediaData, Message, Role, ToolResult, Usage};
use crate::runtime::EpochMillis;

/// One entry of a session's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Turn {
    User {
        content: String,
        /// Attached images, checked and inline (a URL stays a URL).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<MediaData>,
        timestamp: EpochMillis,
    },
    /// The model's message is kept whole so that reasoning signatures replay verbatim.
    Assistant {
        message: Message,
        usage: Usage,
        response_id: Option<String>,
        timestamp: EpochMillis,
    },
    /// What the model is sent: outputs after truncation.
    ToolResults {
        results: Vec<ToolResult>,
        timestamp: EpochMillis,
    },
    System {
        content: String,
        timestamp: EpochMillis,
    },
    Steering {
        content: String,
        timestamp: EpochMillis,
    },
    /// What compaction wrote in place of `summarized_turns` older turns. Sent as a user message.
    Summary {
        content: String,
        summarized_turns: usize,
        timestamp: EpochMillis,
    },
}

/// How a summary introduces itself to the model.
/// What an image is taken to cost in the context estimate: about 1,600 tokens, what Anthropic
/// and OpenAI charge for a screenshot-sized one (4 characters a token).
const IMAGE_CHARS: usize = 6_400;

const SUMMARY_HEADING: &str = "[The earlier part of this conversation was compacted to fit the context window. Its summary:]\n";

impl Turn {
    /// Every tool result in `history`, in order.
    pub fn tool_results(history: &[Turn]) -> Vec<ToolResult> {
        let results = history.iter().filter_map(|turn| match turn {
            Turn::ToolResults { results, .. } => Some(results),
            _ => None,
        });
        results.flatten().cloned().collect()
    }

    /// Appends the messages this turn becomes. Steering turns become user messages (spec 2.6).
    pub fn append_messages(&self, out: &mut Vec<Message>) {
        match self {
            Turn::User { content, images, .. } if !images.is_empty() => {
                let mut parts = vec![ContentPart::text(content.clone())];
                parts.extend(images.iter().map(|image| ContentPart::Image { image: image.clone() }));
                out.push(Message::new(Role::User, parts));
            }
            Turn::User { content, .. } | Turn::Steering { content, .. } => out.push(Message::user(content.clone())),
            Turn::System { content, .. } => out.push(Message::system(content.clone())),
            Turn::Summary { content, .. } => out.push(Message::user(format!("{SUMMARY_HEADING}{content}"))),
            Turn::Assistant { message, .. } => out.push(message.clone()),
            Turn::ToolResults { results, .. } => out.extend(results.iter().cloned().map(Message::tool_result)),
        }
    }

    /// An approximate size in characters, for the context-usage estimate (spec 5.5).
    pub fn approx_chars(&self) -> usize {
        match self {
            Turn::User { content, images, .. } => content.len() + images.len() * IMAGE_CHARS,
            Turn::Steering { content, .. } | Turn::System { content, .. } => content.len(),
            Turn::Summary { content, .. } => SUMMARY_HEADING.len() + content.len(),
            Turn::Assistant { message, .. } => message
                .content
                .iter()
                .map(|part| match part {
                    ContentPart::Text { text } => text.len(),
                    ContentPart::Thinking { thinking } | ContentPart::RedactedThinking { thinking } => thinking.text.len(),
                    ContentPart::ToolCall { tool_call } => {
                        let args = tool_call
                            .raw_arguments
                            .as_ref()
                            .map_or_else(|| crate::llm::json_text::to_vec(&tool_call.arguments).len(), String::len);
                        tool_call.name.len() + args
                    }
                    _ => 0,
                })
                .sum(),
            Turn::ToolResults { results, .. } => results.iter().map(|r| r.content.len()).sum(),
        }
    }
}
