//! Saved sessions: [`SessionSnapshot`] (`"schema": "openagent.session/1"`) is a session's
//! [`SessionState`] with the few facts needed to go on with it. Hosts keep snapshots their own
//! way (SQLite natively, IndexedDB in the browser) and hand one to
//! [`SessionBuilder::restore`](super::SessionBuilder::restore).

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::state::SessionState;
use super::Turn;
use crate::llm::{json_text, ContentPart};

/// A session saved at its last complete turn.
// Written and read by hand (`snapshot_write`, `snapshot_read`): derives cost the browser bundle.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct SessionSnapshot {
    /// Always [`SessionSnapshot::SCHEMA`] when written by this build.
    #[cfg_attr(feature = "typings", ts(type = "\"openagent.session/1\""))]
    pub schema: String,
    pub session_id: String,
    /// The profile (provider family) and model the history was made with: reasoning signatures
    /// only go back to the family that made them.
    pub provider: String,
    pub model: String,
    pub state: SessionState,
    /// What the session was built with: the structure its results must have, and the host's
    /// instructions. A restore keeps them unless its builder is given its own.
    pub output_schema: Option<Value>,
    pub user_instructions: Option<String>,
    /// The host's slot for its environment: the browser keeps its in-memory files here; the
    /// native host leaves it empty (the files are on disk).
    #[cfg_attr(feature = "typings", ts(type = "Snapshot | null"))]
    pub environment: Option<Value>,
}

/// Why a text is not a snapshot this build can restore. Each message names what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    #[error("the session snapshot is not valid JSON: {0}")]
    NotJson(String),
    #[error("the session snapshot is truncated: the JSON ends early ({0})")]
    Truncated(String),
    #[error("not a session snapshot: {0}")]
    NotASnapshot(String),
    #[error(
        "the session snapshot has schema {}, newer than this build reads ({}); update openagent",
        json_text::quote(found),
        SessionSnapshot::SCHEMA
    )]
    Newer { found: String },
    #[error("the session snapshot is damaged: {0}")]
    Invalid(String),
}

impl Serialize for SessionSnapshot {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        super::snapshot_write::Node::Snapshot(self).serialize(serializer)
    }
}

impl SessionSnapshot {
    pub const SCHEMA: &'static str = "openagent.session/1";

    pub fn to_json(&self) -> String {
        // Every part is plain data with string keys: serialising cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads a snapshot, refusing anything that is not a whole `openagent.session/1`.
    pub fn from_json(text: &str) -> Result<Self, SnapshotError> {
        // `from_slice`, as response bodies are read: `from_str` would put a second JSON reader in the browser bundle.
        let value: Value = serde_json::from_slice(text.as_bytes()).map_err(|e| {
            if e.is_eof() {
                SnapshotError::Truncated(e.to_string())
            } else {
                SnapshotError::NotJson(e.to_string())
            }
        })?;
        Self::from_value(value)
    }

    /// [`from_json`](Self::from_json) for a value already parsed.
    pub fn from_value(value: Value) -> Result<Self, SnapshotError> {
        let Some(schema) = value.get("schema") else {
            let what = if value.is_object() { "it has no \"schema\" field" } else { "it is not a JSON object" };
            return Err(SnapshotError::NotASnapshot(what.to_owned()));
        };
        let schema = schema.as_str().unwrap_or_default();
        if schema != Self::SCHEMA {
            return Err(match schema.strip_prefix("openagent.session/") {
                Some(version) if version.parse::<u32>().is_ok_and(|v| v > 1) => SnapshotError::Newer { found: schema.to_owned() },
                _ => SnapshotError::NotASnapshot(format!(
                    "its schema is {}, not {}",
                    json_text::quote(schema),
                    json_text::quote(Self::SCHEMA)
                )),
            });
        }
        super::snapshot_read::snapshot(value)
    }
}

/// How many turns of `history` end at a complete turn: an assistant message whose tool calls
/// have no results yet (a round in flight) is left out, so a restored history is well formed.
pub(super) fn complete_len(history: &[Turn]) -> usize {
    match history.last() {
        Some(Turn::Assistant { message, .. }) if message.tool_calls().next().is_some() => history.len() - 1,
        _ => history.len(),
    }
}

/// Drops every reasoning part and tool-call signature from `state` (and its subagents'): they
/// only go back to the provider family that made them. Returns how many were dropped.
pub(super) fn drop_signatures(state: &mut SessionState) -> usize {
    let mut dropped = 0;
    for turn in &mut state.history {
        if let Turn::Assistant { message, .. } = turn {
            let before = message.content.len();
            message.content.retain(|part| !matches!(part, ContentPart::Thinking { .. } | ContentPart::RedactedThinking { .. }));
            dropped += before - message.content.len();
            for part in &mut message.content {
                if let ContentPart::ToolCall { tool_call } = part {
                    dropped += usize::from(tool_call.signature.take().is_some());
                }
            }
        }
    }
    dropped + state.subagents.iter_mut().map(|agent| drop_signatures(&mut agent.state)).sum::<usize>()
}
