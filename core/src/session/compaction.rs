//! Compaction: when the next request nears the model's context window, the model summarises the
//! older turns and the session goes on with that summary and its recent turns kept whole.
//!
//! - **When:** before a model call, once [`LoopCache::estimate_tokens`] passes
//!   `compaction_threshold_percent` of the window; when the provider answers `context_length`
//!   (once, then the call is retried); and when the host asks ([`Session::compact`]).
//! - **What is kept:** the most recent turns whose size fits `compaction_keep_recent_tokens` (a
//!   quarter of the window by default), cut only before a user, steering or assistant turn, never
//!   between a tool call and its result. Kept turns are not touched, so reasoning signatures
//!   replay as they came.
//! - **The window** is the configured one, else the model's; once the provider states another in
//!   a `context_length` error ("maximum context length is 8192 tokens"), that one, for the rest
//!   of the session.
//! - **Kept tool outputs** are shortened (head and tail) when the kept turns alone pass their
//!   share: one huge output in the last exchange would otherwise leave the request as long as
//!   before.
//! - **The summary** is written by the same model from a plain-text transcript of the older turns
//!   (bounded to fit the window, long tool outputs shortened): the request carries no tool calls
//!   or reasoning parts, so it is valid whatever the provider.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::truncation::{truncate_output, TruncationMode};
use super::{EventData, Session, SessionConfig, Turn};
use crate::llm::{ContentPart, LlmError, Message, Request};

/// Why a compaction ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum CompactionReason {
    /// The estimate passed the threshold.
    Threshold,
    /// The provider said the request did not fit.
    Overflow,
    /// The host asked.
    Manual,
}

const SUMMARY_PROMPT: &str = "You compact the history of a coding agent's session so that the agent can go on \
working from your summary alone. Write a concise, factual summary of the conversation you are given: the user's \
goals and requests, decisions and constraints, the files read, created or changed (with paths) and their current \
state, commands run and what they showed, errors met and how they were solved, and what remains to be done. Keep \
exact names, paths, identifiers and numbers. Do not invent anything, do not address the user, and do not call tools.";

/// Characters of one tool output or argument list kept in the transcript.
const TRANSCRIPT_PART_CHARS: usize = 2_000;

impl Session {
    /// The context window in force, 0 when unknown.
    pub(super) fn context_window(&self, config: &SessionConfig) -> u64 {
        config.context_window.unwrap_or_else(|| self.inner.profile.context_window_size()) as u64
    }

    /// Takes the window a `context_length` error states as the session's, when it is smaller
    /// than the one in force (or none was known), and says so; whether it did.
    pub(super) fn believe_stated_window(&self, error: &LlmError) -> bool {
        let Some(stated) = error.stated_context_window() else { return false };
        let mut state = self.inner.state.borrow_mut();
        let current = self.context_window(&state.config);
        if current != 0 && stated >= current {
            return false;
        }
        state.config.context_window = Some(stated.min(usize::MAX as u64) as usize);
        drop(state);
        let message = format!(
            "The provider states a context window of {stated} tokens for this model (the session assumed {current}); \
             the session uses {stated} from now on."
        );
        self.emit(EventData::Warning { message });
        true
    }

    /// Whether the next request's estimate passed the threshold.
    pub(super) fn needs_compaction(&self, config: &SessionConfig) -> bool {
        let window = self.context_window(config);
        let percent = config.compaction_threshold_percent as u64;
        window > 0
            && percent > 0
            && self.inner.cache.borrow().estimate_tokens().saturating_mul(100) > window.saturating_mul(percent)
    }

    /// Replaces the older turns with a summary written by the model. Returns how many turns
    /// were summarised (0: nothing old enough to summarise). Emits `compaction_start` and
    /// `compaction_end` (with the error, if the summary could not be written).
    pub(super) async fn compact_history(&self, reason: CompactionReason) -> Result<usize, LlmError> {
        let config = self.inner.state.borrow().config.clone();
        let window = self.context_window(&config);
        let tokens_before = self.inner.cache.borrow().estimate_tokens();
        self.emit(EventData::CompactionStart { reason, tokens_before, context_window: window });
        let end = |summarized_turns: usize, error: Option<String>| {
            let tokens_after = self.inner.cache.borrow().estimate_tokens();
            let kept_turns = self.inner.state.borrow().history.len() - usize::from(summarized_turns > 0);
            self.emit(EventData::CompactionEnd { reason, tokens_before, tokens_after, summarized_turns, kept_turns, error });
        };

        let keep = config.compaction_keep_recent_tokens.map_or(window / 4, |t| t as u64);
        let (cut, request) = {
            let mut state = self.inner.state.borrow_mut();
            let cut = cut_point(&state.history, keep);
            if cut == 0 || matches!(&state.history[..cut], [Turn::Summary { .. }]) {
                // Nothing to summarise, but the kept turns may still be too long to send.
                let shortened = shorten_outputs(&mut state.history[cut..], keep);
                if shortened > 0 {
                    self.inner.cache.borrow_mut().rebuild(&state.history);
                }
                drop(state);
                end(0, None);
                return Ok(shortened);
            }
            let request = self.summary_request(&state.history[..cut], window, &config);
            (cut, request)
        };
        let mut response = match self.inner.client.complete(&request).await {
            Ok(response) => response,
            Err(error) => {
                end(0, Some(error.to_string()));
                return Err(error);
            }
        };
        self.price(&mut response.usage);
        self.inner.state.borrow_mut().total_usage += &response.usage;
        let mut summary = response.text();
        if summary.trim().is_empty() {
            // Nothing would stand in for the turns: keep them.
            end(0, Some("the model wrote an empty summary; the history was kept".to_owned()));
            return Ok(0);
        }
        {
            let mut state = self.inner.state.borrow_mut();
            // A current request summarised away is kept word for word: the model must not lose its task.
            let kept_user = state.history[cut..].iter().any(|turn| matches!(turn, Turn::User { .. }));
            let current = state.history[..cut].iter().rev().find_map(|turn| match turn {
                Turn::User { content, .. } => Some(content.clone()),
                _ => None,
            });
            if let (false, Some(current)) = (kept_user, current) {
                summary.push_str("\n\nThe request being worked on now, word for word:\n");
                summary.push_str(&current);
            }
            let turn = Turn::Summary { content: summary, summarized_turns: cut, timestamp: self.now() };
            state.history.splice(..cut, [turn]);
            shorten_outputs(&mut state.history[1..], keep);
            state.compactions += 1;
            self.inner.cache.borrow_mut().rebuild(&state.history);
        }
        end(cut, None);
        Ok(cut)
    }

    /// The request that asks for the summary: instructions, then the older turns as text.
    fn summary_request(&self, older: &[Turn], window: u64, config: &SessionConfig) -> Request {
        let max_tokens = (window / 8).clamp(256, 8_192);
        // What is left of the window for the transcript, in characters (a token is ~4).
        let room = window.saturating_sub(max_tokens + 1_000).saturating_mul(4).min(usize::MAX as u64) as usize;
        let whole = transcript(older);
        let transcript = truncate_output(&whole, room.max(4_000), TruncationMode::HeadTail);
        let ask = "Summarise this conversation as instructed. It continues after your summary with its most recent turns.";
        let cache = self.inner.cache.borrow();
        Request {
            model: cache.request.model.clone(),
            messages: vec![Message::system(SUMMARY_PROMPT), Message::user(format!("{transcript}\n\n{ask}"))],
            provider: cache.request.provider.clone(),
            provider_options: cache.request.provider_options.clone(),
            max_tokens: Some(config.max_output_tokens.map_or(max_tokens, |m| m.min(max_tokens))),
            reasoning_effort: config.reasoning_effort.clone(),
            ..Request::default()
        }
    }
}

/// Where the kept turns begin: the earliest point whose turns fit `keep_tokens`, or the latest
/// point at all when even the last exchange does not fit. A point is never just before tool
/// results (their call would be summarised away). 0: everything fits, nothing to summarise.
pub(super) fn cut_point(history: &[Turn], keep_tokens: u64) -> usize {
    let mut kept = 0u64;
    let mut cut = None;
    for (at, turn) in history.iter().enumerate().rev() {
        kept += turn.approx_chars().div_ceil(4) as u64;
        let point = at > 0 && !matches!(turn, Turn::ToolResults { .. });
        match cut {
            _ if kept <= keep_tokens => cut = if point { Some(at) } else { cut },
            Some(cut) => return cut,
            None if point => return at,
            None => {}
        }
    }
    0
}

/// The fewest characters a shortened tool output keeps: its head and tail still say what it was.
const SHORTENED_OUTPUT_CHARS: usize = 1_000;

/// Shortens the longest tool outputs of `turns` until the turns fit `keep_tokens` (or each is
/// down to [`SHORTENED_OUTPUT_CHARS`]). Returns how many it shortened.
fn shorten_outputs(turns: &mut [Turn], keep_tokens: u64) -> usize {
    let total: usize = turns.iter().map(Turn::approx_chars).sum();
    let mut excess = total.saturating_sub(keep_tokens.saturating_mul(4).min(usize::MAX as u64) as usize);
    let mut outputs = Vec::new();
    for (at, turn) in turns.iter().enumerate() {
        if let Turn::ToolResults { results, .. } = turn {
            for (index, result) in results.iter().enumerate() {
                outputs.push((result.content.len(), at, index));
            }
        }
    }
    outputs.sort_unstable_by(|a, b| b.cmp(a));
    let mut shortened = 0;
    for (len, at, index) in outputs {
        if excess == 0 || len <= SHORTENED_OUTPUT_CHARS {
            break;
        }
        let Turn::ToolResults { results, .. } = &mut turns[at] else { continue };
        let content = &mut results[index].content;
        let target = len.saturating_sub(excess).max(SHORTENED_OUTPUT_CHARS);
        let short = truncate_output(content, target, TruncationMode::HeadTail).into_owned();
        excess = excess.saturating_sub(len.saturating_sub(short.len()));
        if short.len() < len {
            *content = short.into();
            shortened += 1;
        }
    }
    shortened
}

/// The turns as plain text, long parts shortened.
fn transcript(turns: &[Turn]) -> String {
    fn short(text: &str) -> Cow<'_, str> {
        truncate_output(text, TRANSCRIPT_PART_CHARS, TruncationMode::HeadTail)
    }
    let mut out = String::new();
    for turn in turns {
        match turn {
            Turn::User { content, .. } => out += &format!("[user]\n{content}\n\n"),
            Turn::Steering { content, .. } => out += &format!("[user, while the agent worked]\n{content}\n\n"),
            Turn::System { content, .. } => out += &format!("[system]\n{content}\n\n"),
            Turn::Summary { content, .. } => out += &format!("[summary of the conversation before this point]\n{content}\n\n"),
            Turn::Assistant { message, .. } => {
                out += "[assistant]\n";
                for part in &message.content {
                    match part {
                        ContentPart::Text { text } => out += &format!("{text}\n"),
                        ContentPart::ToolCall { tool_call } => {
                            let args = tool_call
                                .raw_arguments
                                .clone()
                                .unwrap_or_else(|| crate::llm::json_text::to_string(&tool_call.arguments));
                            out += &format!("(called {} with {})\n", tool_call.name, short(&args));
                        }
                        _ => {}
                    }
                }
                out += "\n";
            }
            Turn::ToolResults { results, .. } => {
                for result in results {
                    let what = if result.is_error { "tool error" } else { "tool result" };
                    out += &format!("[{what}]\n{}\n\n", short(&result.content));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;
    use crate::llm::{ContentPart, Message, Role, ToolCall, ToolResult, Usage};

    fn turn_of(kind: &str, chars: usize) -> Turn {
        let content = "x".repeat(chars);
        match kind {
            "user" => Turn::User { content, images: Vec::new(), timestamp: 0 },
            "call" => Turn::Assistant {
                message: Message::new(
                    Role::Assistant,
                    vec![ContentPart::ToolCall { tool_call: ToolCall::new("c", "big", json!({})) }],
                ),
                usage: Usage::default(),
                response_id: None,
                timestamp: 0,
            },
            "results" => Turn::ToolResults { results: vec![ToolResult::new("c", content, false)], timestamp: 0 },
            _ => {
                Turn::Assistant { message: Message::assistant(content), usage: Usage::default(), response_id: None, timestamp: 0 }
            }
        }
    }

    #[test]
    fn the_longest_kept_outputs_are_shortened_until_the_turns_fit() {
        let mut turns: Vec<Turn> = ["call", "results", "call", "results"].iter().map(|k| turn_of(k, 400)).collect();
        turns[3] = turn_of("results", 200_000);
        assert_eq!(shorten_outputs(&mut turns, 2_048), 1, "only the huge one");
        let total: usize = turns.iter().map(Turn::approx_chars).sum();
        assert!(total <= 2_048 * 4 + 400, "{total} characters kept");
        assert!(matches!(&turns[1], Turn::ToolResults { results, .. } if results[0].content.len() == 400));
        assert_eq!(shorten_outputs(&mut turns, 100_000), 0, "what fits is not touched");
        // Never below the floor, however small the share.
        let mut turns = vec![turn_of("results", 50_000)];
        assert_eq!(shorten_outputs(&mut turns, 1), 1);
        assert!(turns[0].approx_chars() >= SHORTENED_OUTPUT_CHARS, "{}", turns[0].approx_chars());
    }

    #[test]
    fn the_cut_never_separates_a_tool_call_from_its_result() {
        let history: Vec<Turn> =
            ["user", "call", "results", "call", "results", "answer"].iter().map(|k| turn_of(k, 400)).collect();
        // Each turn is ~100 tokens; a call ~3.
        assert_eq!(cut_point(&history, 110), 5, "only the answer fits");
        assert_eq!(cut_point(&history, 210), 3, "the last call with its result and the answer");
        assert_eq!(cut_point(&history, 10_000), 0, "everything fits: nothing to summarise");
        // Even when nothing fits, the latest point is used, never one before a tool result.
        let tail: Vec<Turn> = ["user", "call", "results"].iter().map(|k| turn_of(k, 4_000)).collect();
        assert_eq!(cut_point(&tail, 1), 1);
        for keep in [0, 1, 50, 105, 200, 300, 1_000] {
            let cut = cut_point(&history, keep);
            assert!(!matches!(history.get(cut), Some(Turn::ToolResults { .. })), "keep {keep}: cut {cut}");
        }
    }
}
