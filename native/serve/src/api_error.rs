//! A request the API refuses: its status and what to do about it.

use openagent_store::StoreError;

/// A request refused: the status and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Self { status, message: message.into() }
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        let status = match error {
            StoreError::SessionNotFound(_) | StoreError::NoResult(_) | StoreError::NoSessionIn(_) => 404,
            // The session is there, but not in a state to be taken up again.
            StoreError::NoSnapshot { .. }
            | StoreError::BadSnapshot { .. }
            | StoreError::StillRunning(_)
            | StoreError::OpenElsewhere { .. }
            | StoreError::Subagent { .. } => 409,
            // Seed 003: a session still at work, or whose writer died, has no result yet.
            StoreError::NotFinished { .. } | StoreError::Ambiguous { .. } => 400,
            StoreError::Open { .. } | StoreError::TooNew { .. } | StoreError::Database(_) => 500,
        };
        Self::new(status, error.to_string())
    }
}
