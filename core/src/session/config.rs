//! Session configuration (spec 2.2) with the spec's defaults.

use serde::{Deserialize, Serialize};

use crate::sorted_map::SortedMap;

/// The shell timeout when neither the session nor the profile sets one (spec 2.2).
pub const DEFAULT_COMMAND_TIMEOUT_MS: u64 = 10_000;

/// Limits, timeouts and settings of one session. Every field has the spec's default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
#[serde(default)]
pub struct SessionConfig {
    /// Model responses allowed over the whole session; 0 = unlimited.
    pub max_turns: usize,
    /// Tool rounds allowed per user input; 0 = unlimited.
    pub max_tool_rounds_per_input: usize,
    /// The shell timeout when a call gives none; `None`: the profile's default (spec 3.5: 120 s
    /// for Anthropic), else [`DEFAULT_COMMAND_TIMEOUT_MS`]. Set, it wins over the profile's.
    pub default_command_timeout_ms: Option<u64>,
    pub max_command_timeout_ms: u64,
    /// `low`, `medium`, `high` (or a provider's own value); `None` = provider default.
    pub reasoning_effort: Option<String>,
    /// The most tokens one model response may have; `None` = the provider's default. Small local
    /// models can otherwise ramble until their context is full.
    pub max_output_tokens: Option<u64>,
    /// Per-tool character limits, overriding the defaults of spec 5.2.
    #[cfg_attr(feature = "typings", ts(type = "{ [key in string]: number }"))]
    pub tool_output_limits: ToolLimits,
    /// Per-tool line limits, overriding the defaults of spec 5.3.
    #[cfg_attr(feature = "typings", ts(type = "{ [key in string]: number }"))]
    pub tool_line_limits: ToolLimits,
    pub enable_loop_detection: bool,
    /// How many recent tool calls are checked for a repeating pattern.
    pub loop_detection_window: usize,
    /// Within an input, a call repeated with the same result gets a note saying so, and a third
    /// one is refused with a request for the answer (see `repeats.rs`); sooner than loop
    /// detection, for small models that never stop on their own.
    pub enable_repeat_guard: bool,
    pub max_subagent_depth: usize,
    /// With an output schema: refused submissions and answers without one allowed per input
    /// before it fails.
    pub max_result_attempts: usize,
    /// The model's context window in tokens, instead of the profile's (a local server's own
    /// `n_ctx`, say).
    pub context_window: Option<usize>,
    /// Compact once the next request is estimated past this share of the window, in percent;
    /// 0 turns compaction off.
    pub compaction_threshold_percent: usize,
    /// How much recent history compaction keeps whole, in tokens; `None` = a quarter of the window.
    pub compaction_keep_recent_tokens: Option<usize>,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            max_turns: 0,
            max_tool_rounds_per_input: 0,
            default_command_timeout_ms: None,
            max_command_timeout_ms: 600_000,
            reasoning_effort: None,
            max_output_tokens: None,
            tool_output_limits: ToolLimits::default(),
            tool_line_limits: ToolLimits::default(),
            enable_loop_detection: true,
            loop_detection_window: 10,
            enable_repeat_guard: true,
            max_subagent_depth: 1,
            max_result_attempts: 3,
            context_window: None,
            compaction_threshold_percent: 80,
            compaction_keep_recent_tokens: None,
        }
    }
}

/// Limits by tool name, in a [`SortedMap`]: a `BTreeMap<String, usize>` for these two fields
/// cost the browser bundle 4.7 KB raw of B-tree code no other map shares. Written and read as a
/// JSON object, as the map was.
pub type ToolLimits = SortedMap<String, usize>;

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;

    #[test]
    fn tool_limits_behave_as_a_map_by_name() {
        let mut limits = ToolLimits::default();
        assert_eq!((limits.insert("shell".into(), 5), limits.insert("grep".into(), 7)), (None, None));
        assert_eq!(limits.insert("shell".into(), 9), Some(5));
        assert_eq!((limits.get("shell"), limits.get("grep"), limits.get("glob")), (Some(&9), Some(&7), None));
        assert_eq!(limits.iter().map(|(tool, limit)| (tool.as_str(), *limit)).collect::<Vec<_>>(), [("grep", 7), ("shell", 9)]);
        let other: ToolLimits = [("shell".to_owned(), 9), ("grep".to_owned(), 7)].into_iter().collect();
        assert_eq!(limits, other, "equal whatever order they were set in");
        assert_eq!((limits.remove("grep"), limits.remove("grep"), limits.len()), (Some(7), None, 1));
    }

    #[test]
    fn tool_limits_read_and_write_json_as_the_map_did() {
        let config = SessionConfig {
            tool_output_limits: [("shell".to_owned(), 100), ("grep".to_owned(), 50)].into_iter().collect(),
            ..SessionConfig::default()
        };
        let value = serde_json::to_value(&config).unwrap();
        assert_eq!((&value["tool_output_limits"], &value["tool_line_limits"]), (&json!({"grep": 50, "shell": 100}), &json!({})));
        let back: SessionConfig = serde_json::from_value(value).unwrap();
        assert_eq!(back, config);
        let refused = serde_json::from_value::<SessionConfig>(json!({"tool_line_limits": {"shell": -1}}));
        assert!(refused.is_err());
    }
}
