//! Where a run's events go: the chosen output (human text, or the `openagent.run_event.v1` JSONL
//! contract), `--events FILE` as internal JSONL, the run's artifacts and the session store.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use openagent_core::runtime::{format_rfc3339, Runtime};
use openagent_core::session::{AgentOutcome, EventData, EvidenceKind, OutcomeStatus, SessionEvent};
use openagent_core::Session;
use openagent_store::{ExitReason, Recorder, SessionInfo};

use crate::artifacts::{Artifacts, RunConfig};
use crate::error::RunError;
use crate::human::Human;
use crate::projection::{Projector, RunEnd, RunInfo};
use crate::run_id::pinned_runtime;
use crate::stdout::{Stdout, STDOUT_FAILED};
use crate::tally::Tally;
use crate::wake::Wake;

/// How a run reports on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// Streamed text on stdout; tool lines, spinner and summary on stderr.
    Human,
    /// `openagent.run_event.v1` JSONL on stdout, nothing else.
    Json,
}

impl OutputMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Human => "human",
            Self::Json => "json",
        }
    }
}

/// Reports a run that could not start (`message` says why) and gives its exit code.
pub fn refuse(mode: OutputMode, stream: bool, now_ms: u64, started_ms: u64, message: String) -> u8 {
    let mut output = Output::new(mode, stream);
    let ts = format_rfc3339(now_ms);
    let mut outcome = AgentOutcome::new(OutcomeStatus::Failure, message.clone()).with_evidence(
        EvidenceKind::StopReason,
        "the run could not start",
        None,
    );
    outcome.timestamp = ts.clone();
    let end = RunEnd {
        exit_reason: ExitReason::ConfigError.as_str().into(),
        exit_code: ExitReason::ConfigError.code(),
        error: Some(message),
        duration_ms: now_ms.saturating_sub(started_ms),
        outcome: Some(outcome),
        ..RunEnd::default()
    };
    output.pre_run_failure(&ts, &end);
    end.exit_code
}

/// [`refuse`], for a run refused before its clock started.
pub fn refuse_now(mode: OutputMode, stream: bool, message: String) -> u8 {
    let now = pinned_runtime().now_ms();
    refuse(mode, stream, now, now, message)
}

/// Said once when the store starts refusing writes (another process holding the database):
/// nothing is lost, the writes wait in order.
fn store_refused(error: &openagent_store::StoreError) {
    eprintln!("warning: the session store refused a write ({error}); its writes wait and go in once it takes them");
}

/// Opens the session store in `data_dir` and records `session` as started, or as taken up again
/// when it is `resumed`; a store that cannot be written is a warning, never the end of the run.
pub fn record(data_dir: &Path, session: SessionInfo, resumed: bool) -> Option<Recorder> {
    let recorder = if resumed { Recorder::reopen(data_dir, session) } else { Recorder::start(data_dir, session) };
    recorder.map_err(|e| eprintln!("warning: the session store does not keep this session: {e}")).ok()
}

/// Where a run's events go (the chosen output, `--events`, the run's artifacts, the session
/// store) and what they add up to: everything of a run but driving it, so that `openagent run`,
/// the interactive session, `openagent serve`'s sessions and a sandboxed run report alike.
pub struct Report {
    /// The run's id, for its artifacts; empty where there are none (the interactive session, serve).
    run_id: String,
    pub output: Output,
    events_file: Option<BufWriter<File>>,
    artifacts: Option<Artifacts>,
    /// The session's row in the store; a host that keeps a session open across inputs (serve)
    /// finishes and resumes it itself.
    pub store: Option<Recorder>,
    /// What the events of the current input add up to; taken at each input's end.
    pub tally: Tally,
}

impl Report {
    /// Creates the run's artifacts, starts the output (`run_started` in JSON mode) and records
    /// the run in the session store as started at `created_at`.
    pub fn start(
        run_id: &str,
        config: &RunConfig,
        mode: OutputMode,
        data_dir: &Path,
        events_file: Option<BufWriter<File>>,
        created_at: String,
    ) -> Self {
        let mut output = Output::new(mode, config.stream);
        let artifacts = Artifacts::create(data_dir, run_id, config)
            .map_err(|e| eprintln!("warning: the run's artifacts are not kept: {e}"))
            .ok();
        let info = RunInfo {
            task: config.task.clone(),
            output_mode: mode.as_str().into(),
            config_fingerprint: config.fingerprint(),
            artifacts_dir: artifacts.as_ref().map(|a| a.dir().display().to_string()),
            resumed_from: config.resumed_from.clone(),
            forked_from: config.forked_from.clone(),
            sandbox: config.sandbox.as_ref().map(|policy| serde_json::to_value(policy).expect("a policy serialises")),
        };
        output.start(run_id, info);
        // A resumed session's run has an id (and artifacts) of its own; its events go on in the
        // session it continues.
        let session_id = config.resumed_from.as_deref().unwrap_or(run_id);
        let store = record(data_dir, config.stored_session(session_id, created_at), config.resumed_from.is_some());
        Self { run_id: run_id.to_owned(), output, events_file, artifacts, store, tally: Tally::default() }
    }

    /// A report to `output` and `store` only, with no artifacts: for a session that takes
    /// input after input (the interactive session adds its store when its first task comes).
    pub fn to(output: Output, store: Option<Recorder>) -> Self {
        Self { run_id: String::new(), output, events_file: None, artifacts: None, store, tally: Tally::default() }
    }

    /// An event or a spinner tick (other wakes are the driver's business).
    pub fn wake<T>(&mut self, wake: &Wake<T>) {
        match wake {
            Wake::Event(event) => self.event(event),
            Wake::Tick => self.output.tick(),
            Wake::Outside(_) | Wake::Signal => {}
        }
    }

    /// [`Report::wake`], and at each turn's start the rolling snapshot of `session` (which holds
    /// its subagents), so that a run killed mid-input resumes from its last complete turn. The
    /// snapshot goes first: a turn seen started (in the store, `--events`, the output) has it kept.
    pub fn wake_on<T>(&mut self, wake: &Wake<T>, session: &Session) {
        if let Wake::Event(SessionEvent { data: EventData::TurnStart { .. }, timestamp, .. }) = wake {
            self.checkpoint(session, false, timestamp);
        }
        self.wake(wake);
    }

    /// Keeps `session`'s snapshot in the store, after the last event written: `input_end` at
    /// the end of an input (kept), else the rolling one of the input in progress.
    pub fn checkpoint(&mut self, session: &Session, input_end: bool, at: &str) {
        let Some(store) = &mut self.store else { return };
        let before = store.backlog();
        if let Err(e) = store.snapshot(&session.snapshot().to_json(), input_end, at) {
            if before == 0 {
                store_refused(&e);
            }
        }
    }

    /// Records in the store how its session ended, and stops writing it there.
    pub fn finish_store(&mut self, exit_reason: &str, finished_at: &str) {
        if let Some(mut store) = self.store.take() {
            if let Err(e) = store.finish(exit_reason, finished_at) {
                eprintln!("warning: the session store did not record how the session ended: {e}");
            }
        }
    }

    pub fn event(&mut self, event: &SessionEvent) {
        self.tally.observe(event);
        if self.events_file.is_some() || self.artifacts.is_some() || self.store.is_some() {
            let line = serde_json::to_string(event).expect("events serialise");
            // The store first: an event that shows in the events file is already committed there.
            if let Some(store) = &mut self.store {
                let before = store.backlog();
                if let Err(e) = store.event(event, &line) {
                    // Nothing is lost: the writes wait, in order, for the database to take them.
                    if before == 0 {
                        store_refused(&e);
                    }
                }
            }
            if let Some(file) = &mut self.events_file {
                // Flushed per line: a run killed mid-way keeps every event so far.
                if let Err(e) = writeln!(file, "{line}").and_then(|()| file.flush()) {
                    eprintln!("warning: the events file stopped being written: {e}");
                    self.events_file = None;
                }
            }
            if let Some(artifacts) = &mut self.artifacts {
                if let Err(e) = artifacts.event(&line) {
                    eprintln!("warning: the run's events are no longer kept: {e}");
                    self.artifacts = None;
                }
            }
        }
        self.output.event(event);
    }

    /// What the events so far add up to.
    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// Writes the result artifact, how the session ended to the store, and the output's end
    /// (`run_finished`); gives the exit code, [`STDOUT_FAILED`] when the output did not all reach
    /// stdout, whatever the run's own.
    pub fn finish(mut self, ts: &str, end: RunEnd) -> u8 {
        if let Some(artifacts) = self.artifacts.as_mut() {
            if let Err(e) = artifacts.finish(&self.run_id, &end) {
                eprintln!("warning: could not write the run's result: {e}");
            }
        }
        let stored = self.store.as_ref().map(|store| store.session_id().to_owned());
        self.finish_store(&end.exit_reason, ts);
        self.output.finish(ts, &end);
        let Some(error) = self.output.failed() else { return end.exit_code };
        let kept = match stored {
            Some(id) => format!("the session store keeps its result: `openagent sessions result {id}`"),
            None => "its output is lost".to_owned(),
        };
        eprintln!("error: could not write to stdout ({error}); the run ended {} and {kept}", end.exit_reason);
        STDOUT_FAILED
    }
}

/// The chosen stdout format.
pub enum Output {
    Human(Human),
    Json {
        projector: Option<Projector>,
        stream: bool,
        stdout: Stdout,
    },
    /// Nothing on stdout: `openagent serve`'s sessions are read over HTTP.
    Silent,
}

impl Output {
    fn new(mode: OutputMode, stream: bool) -> Self {
        match mode {
            OutputMode::Human => Self::Human(Human::detect()),
            OutputMode::Json => Self::Json { projector: None, stream, stdout: Stdout::default() },
        }
    }

    fn start(&mut self, run_id: &str, info: RunInfo) {
        if let Self::Json { projector, stream, .. } = self {
            *projector = Some(Projector::new(run_id, info, *stream));
        }
    }

    fn event(&mut self, event: &SessionEvent) {
        match self {
            Self::Human(human) => human.event(event),
            Self::Json { projector: Some(projector), stdout, .. } => {
                // stdout is JSON only; a warning (a hook that failed, say) still reaches a person.
                if let EventData::Warning { message } = &event.data {
                    eprintln!("warning: {message}");
                }
                projector.project(event).iter().for_each(|line| stdout.write(&format!("{line}\n")))
            }
            Self::Json { projector: None, .. } | Self::Silent => {}
        }
    }

    fn tick(&mut self) {
        if let Self::Human(human) = self {
            human.tick();
        }
    }

    pub fn finish(&mut self, ts: &str, end: &RunEnd) {
        match self {
            Self::Human(human) => human.finish(end),
            // A JSON run always has its projector by now: one that could not start goes
            // through `pre_run_failure` instead.
            Self::Json { projector, stdout, .. } => {
                if let Some(line) = projector.as_mut().and_then(|projector| projector.finish(ts, end)) {
                    stdout.write(&(line + "\n"));
                }
            }
            Self::Silent => {}
        }
    }

    fn pre_run_failure(&mut self, ts: &str, end: &RunEnd) {
        match self {
            Self::Human(human) => human.fatal(end.error.as_deref().unwrap_or("the run could not start")),
            Self::Json { stdout, .. } => {
                stdout.write(&(Projector::pre_run_failure(ts, end) + "\n"));
                eprintln!("error: {}", end.error.as_deref().unwrap_or("the run could not start"));
            }
            Self::Silent => {}
        }
    }
}

impl Output {
    /// The first write to stdout that failed, if one did: the run goes on and is recorded all
    /// the same, and its exit code says so at the end.
    pub fn failed(&self) -> Option<&std::io::Error> {
        match self {
            Self::Human(human) => human.stdout.failed(),
            Self::Json { stdout, .. } => stdout.failed(),
            Self::Silent => None,
        }
    }
}

/// Opens `path` for the internal events without truncating it yet: the run truncates it when
/// it starts, so a refused invocation leaves an earlier file intact.
pub fn open_events_file(path: &PathBuf) -> Result<BufWriter<File>, RunError> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|reason| RunError::EventsFile { path: path.clone(), action: "write", reason })?;
    file.set_len(0).map_err(|reason| RunError::EventsFile { path: path.clone(), action: "truncate", reason })?;
    Ok(BufWriter::new(file))
}
