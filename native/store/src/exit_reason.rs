//! How a run ends, and the exit code each ending gives. The codes are part of the CLI's contract
//! (README, "Exit codes"): scripts branch on them. Below both the commands (`run`, `serve`) and
//! the store, which records a session's `exit_reason` in these words; it knows only the core.

use openagent_core::llm::ErrorKind;
use openagent_core::session::StopReason;
use openagent_core::SessionError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitReason {
    /// The model finished its answer.
    Completed,
    /// `--max-turns` was reached.
    MaxTurns,
    /// `--max-tool-rounds` was reached.
    MaxToolRounds,
    /// The model's answer was cut off at its output token limit.
    MaxOutputTokens,
    /// SIGINT (Ctrl-C), SIGTERM or SIGHUP stopped the run.
    Interrupted,
    /// The model called `give_up`: it says the task cannot be done.
    GaveUp,
    /// A result was required and none valid came within the attempts.
    NoResult,
    /// A `user_prompt_submit` hook refused the task.
    Blocked,
    /// The provider refused the key.
    Authentication,
    /// The provider does not know the model, or the base URL points at the wrong place.
    ModelNotFound,
    /// Any other failure of the model call (network, server, rate limit after retries, ...).
    ProviderError,
    /// The run could not start: no provider, bad key or URL settings, unreadable `--cwd`, ...
    ConfigError,
    /// A sandboxed run reached its time cap (`--timeout`).
    Timeout,
    /// A sandboxed run reached its memory cap, or its guest failed.
    SandboxError,
}

impl ExitReason {
    pub fn code(self) -> u8 {
        match self {
            Self::Completed => 0,
            Self::ProviderError | Self::GaveUp | Self::NoResult | Self::Blocked | Self::SandboxError => 1,
            Self::ConfigError | Self::ModelNotFound => 2,
            Self::MaxTurns | Self::MaxToolRounds | Self::MaxOutputTokens => 3,
            Self::Authentication => 4,
            Self::Interrupted => 130,
            // As timeout(1) reports it.
            Self::Timeout => 124,
        }
    }

    /// The `exit_reason` of `run_finished`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::MaxTurns => "max_turns",
            Self::MaxToolRounds => "max_tool_rounds",
            Self::MaxOutputTokens => "max_output_tokens",
            Self::Interrupted => "interrupted",
            Self::GaveUp => "give_up",
            Self::NoResult => "no_result",
            Self::Blocked => "blocked",
            Self::Authentication => "authentication",
            Self::ModelNotFound => "model_not_found",
            Self::ProviderError => "provider_error",
            Self::ConfigError => "config_error",
            Self::Timeout => "timeout",
            Self::SandboxError => "sandbox_error",
        }
    }

    pub fn of(result: &Result<StopReason, SessionError>) -> Self {
        match result {
            Ok(StopReason::Completed) => Self::Completed,
            Ok(StopReason::TurnLimit) => Self::MaxTurns,
            Ok(StopReason::RoundLimit) => Self::MaxToolRounds,
            Ok(StopReason::OutputLimit) => Self::MaxOutputTokens,
            Ok(StopReason::Aborted | StopReason::Interrupted) => Self::Interrupted,
            Ok(StopReason::GaveUp) => Self::GaveUp,
            Ok(StopReason::NoResult) => Self::NoResult,
            Ok(StopReason::Blocked) => Self::Blocked,
            Ok(StopReason::Error) => Self::ProviderError,
            Err(SessionError::Llm(error)) => match error.kind {
                ErrorKind::Authentication | ErrorKind::AccessDenied => Self::Authentication,
                ErrorKind::NotFound => Self::ModelNotFound,
                ErrorKind::Configuration => Self::ConfigError,
                _ => Self::ProviderError,
            },
            Err(SessionError::Closed | SessionError::Busy) => Self::ProviderError,
            // An attachment that cannot be sent: the invocation is wrong, as with a bad flag.
            Err(SessionError::Input(_)) => Self::ConfigError,
        }
    }
}
