//! Why a session could not be set up: what every host's first step can refuse with. Each
//! variant's text says what went wrong and what to do about it; hosts show it as it is (the CLI
//! on stderr or as `run_finished`, serve as a 400 or 409).

use std::path::PathBuf;

use openagent_core::setup::SetupError;
use openagent_store::StoreError;

use crate::agents::AgentError;
use crate::launcher::explain_setup;
use crate::resume;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// `--cwd` names what is not a usable directory.
    #[error("cannot use --cwd {}: {reason}", dir.display())]
    BadDirectory { dir: PathBuf, reason: String },
    /// The process's own working directory is gone or unreadable.
    #[error("cannot read the current directory: {0}")]
    NoCurrentDirectory(std::io::Error),
    /// The working directory could not be opened as the agent's environment.
    #[error("cannot work in {}: {reason}", dir.display())]
    CannotWorkIn { dir: PathBuf, reason: String },
    /// The agent config named is missing or broken.
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// A file of the directory (`.openagent/mcp.json`, `hooks.json`, `models.json`) is broken,
    /// or names commands it is not trusted to run.
    #[error("{0}")]
    Config(String),
    /// No provider, key or model could be settled on: the text says what to set.
    #[error("{}", explain_setup(.0))]
    Setup(SetupError),
    /// The stored session to resume cannot be taken up.
    #[error("{}", resume::explain(.0))]
    Resume(StoreError),
    /// The resumed session's own directory could not be used.
    #[error("{error} (the directory session {session} worked in; give --cwd to resume it in another)")]
    ResumedDirectory { session: String, error: Box<RunError> },
    /// The session store could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The task mentions an image that is not there.
    #[error("{0}")]
    Mention(String),
    /// `--events FILE` cannot be written.
    #[error("cannot {action} the events file {}: {reason}", path.display())]
    EventsFile { path: PathBuf, action: &'static str, reason: std::io::Error },
    /// `OPENAGENT_RUN_ID` is not a valid run id.
    #[error("OPENAGENT_RUN_ID {0:?} is not a valid run id: use letters, digits, '-', '_' and '.' (not first)")]
    BadRunId(String),
    /// `OPENAGENT_RUN_ID` names a run the data directory already has.
    #[error(
        "run id {id} (OPENAGENT_RUN_ID) is taken: {} already has a run of that id; give this run an id of its own (or \
         unset OPENAGENT_RUN_ID for a new one), or add --resume {id} to continue that session",
        data_dir.display()
    )]
    RunIdTaken { id: String, data_dir: PathBuf },
    /// A requested output schema does not compile.
    #[error("output_schema: {0}")]
    OutputSchema(String),
}
