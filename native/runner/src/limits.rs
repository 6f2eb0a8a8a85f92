//! The limits a host puts on a session: turns, tool rounds, reasoning effort, the context window
//! and when to compact.

use openagent_core::SessionConfig;

/// The session's limits and settings as a host gives them (flags, a serve request), each only
/// where it is given: the one list of them every host fills.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LimitFlags {
    /// `--max-turns`: model responses in the whole session; 0 = no limit.
    pub max_turns: Option<usize>,
    /// `--max-tool-rounds`: tool rounds per input; 0 = no limit.
    pub max_tool_rounds: Option<usize>,
    pub reasoning_effort: Option<String>,
    /// `--context-window`: the model's window in tokens, where the profile cannot know it (a
    /// local server's n_ctx).
    pub context_window: Option<usize>,
    /// `--compact-at`: compact past this share of the window, in percent; 0 = never.
    pub compact_at: Option<usize>,
}

impl LimitFlags {
    /// `config` with what these limits give, where they give it: over the agent config's for a
    /// new session, over those in force for a resumed one.
    pub fn apply(&self, mut config: SessionConfig) -> SessionConfig {
        config.max_turns = self.max_turns.unwrap_or(config.max_turns);
        config.max_tool_rounds_per_input = self.max_tool_rounds.unwrap_or(config.max_tool_rounds_per_input);
        if self.reasoning_effort.is_some() {
            config.reasoning_effort.clone_from(&self.reasoning_effort);
        }
        if self.context_window.is_some() {
            config.context_window = self.context_window;
        }
        config.compaction_threshold_percent = self.compact_at.unwrap_or(config.compaction_threshold_percent);
        config
    }
}

/// A limit a host was given that no session can have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    #[error("reasoning_effort {0:?} is not one of low, medium, high")]
    ReasoningEffort(String),
    #[error("context_window must be at least 1 token")]
    ContextWindow,
    #[error("compact_at {0} is a percent of the window: give 0 (never) to 100")]
    CompactAt(usize),
}

impl LimitFlags {
    /// The efforts a model can be asked for.
    pub const EFFORTS: [&str; 3] = ["low", "medium", "high"];

    /// Refuses a value no session can have (the CLI's flags refuse them as they are parsed).
    pub fn check(&self) -> Result<(), LimitError> {
        if let Some(effort) = self.reasoning_effort.as_deref().filter(|effort| !Self::EFFORTS.contains(effort)) {
            return Err(LimitError::ReasoningEffort(effort.to_owned()));
        }
        if self.context_window == Some(0) {
            return Err(LimitError::ContextWindow);
        }
        match self.compact_at {
            Some(percent) if percent > 100 => Err(LimitError::CompactAt(percent)),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_no_session_can_have_are_refused_with_what_to_give() {
        let limits = |f: fn(&mut LimitFlags)| {
            let mut limits = LimitFlags::default();
            f(&mut limits);
            limits.check().map_err(|e| e.to_string())
        };
        assert_eq!(limits(|_| {}), Ok(()));
        assert_eq!(
            limits(|l| l.reasoning_effort = Some("max".into())).unwrap_err(),
            "reasoning_effort \"max\" is not one of low, medium, high"
        );
        assert_eq!(limits(|l| l.context_window = Some(0)).unwrap_err(), "context_window must be at least 1 token");
        assert_eq!(
            limits(|l| l.compact_at = Some(101)).unwrap_err(),
            "compact_at 101 is a percent of the window: give 0 (never) to 100"
        );
        assert_eq!(limits(|l| (l.context_window, l.compact_at) = (Some(8192), Some(100))), Ok(()));
    }

    #[test]
    fn limits_apply_only_where_given() {
        let base = SessionConfig { max_turns: 7, compaction_threshold_percent: 80, ..SessionConfig::default() };
        let given = LimitFlags { max_turns: Some(2), context_window: Some(4096), ..LimitFlags::default() }.apply(base.clone());
        assert_eq!((given.max_turns, given.context_window, given.compaction_threshold_percent), (2, Some(4096), 80));
        assert_eq!(LimitFlags::default().apply(base.clone()).max_turns, base.max_turns);
    }
}
