//! What a host asks for when it runs a session: [`Request`], which every host fills (from flags,
//! from a serve request), and [`RunArgs`], a request with the one task and the report of
//! `openagent run` and `openagent sandbox run`.

use std::path::PathBuf;

use crate::launcher::AgentOptions;
use crate::limits::LimitFlags;
use crate::report::OutputMode;
use crate::resume::ResumeFrom;

/// A session to run: the agent, its limits, where its record goes, and whether it continues a
/// stored one.
#[derive(Debug, Clone)]
pub struct Request {
    pub agent: AgentOptions,
    /// Over the agent config's (or a resumed session's); where absent: theirs, else the defaults.
    pub limits: LimitFlags,
    /// Where run artifacts (`<data dir>/runs/<run id>/`) and the session store go.
    pub data_dir: PathBuf,
    /// Continue a stored session instead of starting one (`--resume`, `--continue`).
    pub resume: Option<ResumeFrom>,
}

/// Everything `openagent run` (and `openagent sandbox run`) was given.
#[derive(Debug, Clone)]
pub struct RunArgs {
    pub task: String,
    pub agent: AgentOptions,
    /// Over the agent config's (or a resumed session's); where absent: theirs, else the defaults.
    pub limits: LimitFlags,
    pub output: OutputMode,
    /// Also write every internal event, as JSONL, to this file.
    pub events: Option<PathBuf>,
    /// JSON mode: project text deltas too.
    pub stream: bool,
    /// Where run artifacts (`<data dir>/runs/<run id>/`) and the session store go.
    pub data_dir: PathBuf,
    /// Continue a stored session instead of starting one (`--resume`, `--continue`).
    pub resume: Option<ResumeFrom>,
}

impl RunArgs {
    /// The session these arguments ask for.
    pub fn request(&self) -> Request {
        Request {
            agent: self.agent.clone(),
            limits: self.limits.clone(),
            data_dir: self.data_dir.clone(),
            resume: self.resume.clone(),
        }
    }
}
