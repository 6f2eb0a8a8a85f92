//! `openagent run "<task>"`: one task, start to finish, on the real filesystem. The session's
//! events go to the chosen output (human text, or the `openagent.run_event.v1` JSONL contract),
//! to `--events FILE` as internal JSONL, to the run's artifacts and to the session store; the
//! exit code says how it ended ([`ExitReason`]).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fs::File;
use std::future::Future;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::pin::pin;
use std::rc::Rc;

use futures::channel::mpsc::UnboundedReceiver;
use futures::future::{select, Either};
use futures::stream::{self, LocalBoxStream};
use futures::StreamExt;
use openagent_core::llm::Usage;
use openagent_core::runtime::{format_rfc3339, Runtime};
use openagent_core::session::{AgentOutcome, EventData, EvidenceKind, OutcomeStatus, SessionEvent, StopReason};
use openagent_core::{Session, SessionError};

pub use crate::agent::{explain, resolve_provider, session_config, working_directory, AgentOptions, Launcher, LimitFlags};
pub use crate::artifacts::{Artifacts, RunConfig};
pub use crate::human::Human;
pub use crate::human::{first_line, main_argument, summary, tool_detail};
pub use crate::projection::{Projector, RunEnd, RunInfo};
pub use openagent_store::ExitReason;

use crate::resume::{self, ResumeFrom, Resumed};
use crate::stdout::{Stdout, STDOUT_FAILED};
use crate::{human, mentions};
use openagent_host::runtime::NativeRuntime;
use openagent_store::{Recorder, SessionInfo, Store};

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

/// Everything `openagent run` was given.
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

/// Runs the task and returns the process exit code.
pub fn run(args: RunArgs) -> u8 {
    let runtime = Rc::new(pinned_runtime());
    // On the runtime's clock, so a pinned clock gives reproducible durations.
    let started = runtime.now_ms();
    let clock = runtime.clone();
    let now = move || clock.now_ms();

    // Everything that can refuse the run is checked before anything is written, so a bad
    // invocation never truncates an events file from an earlier run.
    let prepared = fixed_run_id().and_then(|run_id| {
        let resumed = args.resume.as_ref().map(|from| load_resumed(from, &args.data_dir, &args.agent)).transpose()?;
        if let Some(id) = &run_id {
            untaken(id, &args.data_dir, resumed.as_ref())?;
        }
        let agent = prepare_agent(&args.agent, resumed.as_ref(), &runtime)?;
        let input = mentions::with_mentioned_images(&args.task, &agent.cwd).map_err(|e| e.to_string())?;
        let events = args.events.as_ref().map(open_events_file).transpose()?;
        Ok((run_id, resumed, agent, input, events))
    });
    let (run_id, resumed, agent, input, events_file) = match prepared {
        Ok((run_id, resumed, agent, input, events)) => {
            (run_id.unwrap_or_else(|| new_run_id(runtime.now_ms())), resumed, agent, input, events)
        }
        Err(message) => return refuse(args.output, args.stream, now(), started, message),
    };

    let snapshot = resumed.as_ref().map(|resumed| &resumed.snapshot);
    let session_config = agent.session_config(&args.limits, snapshot);
    let config = RunConfig {
        stream: args.stream,
        events_file: args.events.as_ref().map(|p| p.display().to_string()),
        resumed_from: resumed.as_ref().map(|resumed| resumed.id().to_owned()),
        forked_from: resumed.as_ref().and_then(|resumed| resumed.record.forked_from.clone()),
        ..RunConfig::new(&args.task, &agent, &session_config, args.output.as_str())
    };
    let mut report = Report::start(&run_id, &config, args.output, &args.data_dir, events_file, format_rfc3339(now()));
    // A resumed session keeps its id; a new one is named after its first run.
    let session_id = config.resumed_from.as_deref().unwrap_or(&run_id);
    let session = agent.session(session_id, session_config, resumed.map(|resumed| resumed.snapshot));

    let mut signals =
        openagent_host::signals::interrupts().map_err(|e| eprintln!("warning: Ctrl-C will not stop the run cleanly: {e}")).ok();
    let mut presses = 0;
    let abandoned = Cell::new(false);
    // The run is the session: it ends with it, once its `session_end` hooks are done.
    let work = async {
        let result = session.submit(input).await;
        session.close();
        session.ended().await;
        result
    };
    let result = runtime.block_on(drive(
        &session,
        until_abandoned(work, &abandoned),
        &runtime,
        signal_wakes(signals.as_mut()),
        |wake: Wake<()>| match wake {
            Wake::Signal => {
                presses += 1;
                // The run did not stop on the first signal: leave now, still saying how it ended.
                abandoned.set(presses > 1);
                session.abort();
            }
            wake => report.wake_on(wake, &session),
        },
    ));

    let end = report.tally.end(&result, &agent, &session, now().saturating_sub(started));
    report.checkpoint(&session, true, &format_rfc3339(now()));
    let code = report.finish(&format_rfc3339(now()), end);
    // Commands whose calls were cancelled are ending under their supervisors: the process waits
    // for them rather than leave them running on.
    openagent_host::signals::end_commands(COMMANDS_END_WITHIN);
    code
}

/// How long a run that was stopped waits for its cancelled commands to be gone before it kills
/// what is left: their own SIGTERM grace, and a little.
pub const COMMANDS_END_WITHIN: std::time::Duration = std::time::Duration::from_millis(2_500);

/// `work`, or an interrupted end as soon as `abandoned` is set: what a second signal gives, when
/// the first did not stop the input. Dropping `work` cancels its model call and its commands.
fn until_abandoned<'a>(
    work: impl Future<Output = Result<StopReason, SessionError>> + 'a,
    abandoned: &'a Cell<bool>,
) -> impl Future<Output = Result<StopReason, SessionError>> + 'a {
    let mut work = Box::pin(work);
    // `drive` polls the work again after every wake, so the flag is seen at the next poll.
    futures::future::poll_fn(move |cx| match abandoned.get() {
        true => std::task::Poll::Ready(Ok(StopReason::Interrupted)),
        false => work.as_mut().poll(cx),
    })
}

/// The agent `flags` ask for; for a `resumed` session, the one it had where they say nothing.
pub fn prepare_agent(flags: &AgentOptions, resumed: Option<&Resumed>, runtime: &Rc<NativeRuntime>) -> Result<Launcher, String> {
    let Some(resumed) = resumed else { return Launcher::prepare(flags, runtime.clone()) };
    Launcher::prepare(&resumed.options(flags), runtime.clone()).map_err(|e| match &flags.cwd {
        Some(_) => e,
        None => format!("{e} (the directory session {} worked in; give --cwd to resume it in another)", resumed.id()),
    })
}

/// The stored session `from` names, with its snapshot; the error says what is wrong and, for a
/// session not found, how to list them.
pub fn load_resumed(from: &ResumeFrom, data_dir: &Path, flags: &AgentOptions) -> Result<Resumed, String> {
    let cwd = working_directory(flags)?;
    let store = Store::open(data_dir).map_err(|e| e.to_string())?;
    Resumed::load(&store, from, &cwd).map_err(|e| resume::explain(&e))
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

/// What wakes a running session's driver; `T` is what comes from outside the session while it
/// runs: a line typed in the terminal, a request over `openagent serve`'s API.
pub enum Wake<T> {
    Event(SessionEvent),
    /// Time to redraw the spinner.
    Tick,
    /// SIGINT (Ctrl-C), SIGTERM or SIGHUP.
    Signal,
    /// A line typed, or a request made, while the run goes on.
    Outside(T),
}

/// Runs `work` (an input, `session.submit(task)`, or a compaction) and hands every event,
/// spinner tick and `outside` wake (signals, typed lines) to `on_wake` until it is done, then
/// the events that came with the end.
pub async fn drive<T, R>(
    session: &Session,
    work: impl Future<Output = Result<R, SessionError>>,
    runtime: &Rc<NativeRuntime>,
    outside: LocalBoxStream<'_, Wake<T>>,
    mut on_wake: impl FnMut(Wake<T>),
) -> Result<R, SessionError> {
    let mut events = session.events();
    let ticks = stream::unfold(runtime.clone(), |runtime| async move {
        runtime.sleep(human::SPINNER_TICK.as_millis() as u64).await;
        Some((Wake::Tick, runtime))
    });
    let result = {
        let mut incoming = stream::select(stream::select(events.by_ref().map(Wake::Event), outside), ticks.boxed_local());
        let mut work = pin!(work);
        loop {
            match select(work.as_mut(), incoming.next()).await {
                Either::Left((result, _)) => break result,
                Either::Right((Some(wake), _)) => on_wake(wake),
                Either::Right((None, _)) => break work.await,
            }
        }
    };
    while let Some(event) = events.try_recv() {
        on_wake(Wake::Event(event));
    }
    result
}

/// Signals as wakes; none when they could not be taken over.
pub fn signal_wakes<'a, T: 'a>(signals: Option<&'a mut UnboundedReceiver<i32>>) -> LocalBoxStream<'a, Wake<T>> {
    match signals {
        Some(rx) => rx.map(|_| Wake::Signal).boxed_local(),
        None => stream::pending().boxed_local(),
    }
}

/// What a run counts as its events pass.
#[derive(Default)]
/// Turns, tool calls, compactions and tokens count the subagents' with the session's own; the
/// final output is the session's own.
pub struct Tally {
    turns: usize,
    tool_calls: usize,
    /// Compactions that summarised older turns (manual, by threshold, or on overflow).
    compactions: usize,
    final_output: String,
    /// The session the events are of (the first one seen); the others are its subagents.
    root: Option<String>,
    /// Each session's running total, as its last response reported it.
    usage: BTreeMap<String, Usage>,
}

impl Tally {
    pub fn observe(&mut self, event: &SessionEvent) {
        let root = self.root.get_or_insert_with(|| event.session_id.to_string());
        let own = *root == event.session_id;
        match &event.data {
            EventData::TurnStart { .. } => self.turns += 1,
            EventData::ToolCallStart { .. } => self.tool_calls += 1,
            EventData::CompactionEnd { summarized_turns, error: None, .. } if *summarized_turns > 0 => self.compactions += 1,
            EventData::AssistantTextEnd { text, total_usage, .. } => {
                if own {
                    self.final_output.clone_from(text);
                }
                self.usage.insert(event.session_id.to_string(), total_usage.clone());
            }
            _ => {}
        }
    }

    /// `own`, the session's total, with its subagents' added.
    fn with_subagents(&self, own: Usage) -> Usage {
        let subagents = self.usage.iter().filter(|(id, _)| Some(*id) != self.root.as_ref());
        subagents.fold(own, |total, (_, usage)| total + usage.clone())
    }

    /// How the input ended, once `result` is in.
    pub fn end(
        &self,
        result: &Result<StopReason, SessionError>,
        agent: &Launcher,
        session: &Session,
        duration_ms: u64,
    ) -> RunEnd {
        let last = session.last_result();
        self.run_end(
            ExitReason::of(result),
            result.as_ref().err().map(|error| agent.explain(error)),
            self.with_subagents(session.total_usage()),
            duration_ms,
            last.as_ref().map(|r| r.outcome.clone()),
            last.and_then(|r| r.result_data),
        )
    }

    /// The tokens used so far, as the last responses reported them: for a run whose end was not reported.
    pub fn usage(&self) -> Usage {
        let own = self.root.as_ref().and_then(|root| self.usage.get(root)).cloned().unwrap_or_default();
        self.with_subagents(own)
    }

    /// The run's end record: how it ended, with what the events added up to.
    pub fn run_end(
        &self,
        reason: ExitReason,
        error: Option<String>,
        usage: Usage,
        duration_ms: u64,
        outcome: Option<AgentOutcome>,
        result_data: Option<serde_json::Value>,
    ) -> RunEnd {
        RunEnd {
            exit_reason: reason.as_str().into(),
            exit_code: reason.code(),
            final_output: self.final_output.clone(),
            error,
            turns: self.turns,
            tool_calls: self.tool_calls,
            compactions: self.compactions,
            usage,
            duration_ms,
            outcome,
            result_data,
        }
    }
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
    pub fn wake<T>(&mut self, wake: Wake<T>) {
        match wake {
            Wake::Event(event) => self.event(&event),
            Wake::Tick => self.output.tick(),
            Wake::Outside(_) | Wake::Signal => {}
        }
    }

    /// [`Report::wake`], and at each turn's start the rolling snapshot of `session` (which holds
    /// its subagents), so that a run killed mid-input resumes from its last complete turn. The
    /// snapshot goes first: a turn seen started (in the store, `--events`, the output) has it kept.
    pub fn wake_on<T>(&mut self, wake: Wake<T>, session: &Session) {
        if let Wake::Event(SessionEvent { data: EventData::TurnStart { .. }, timestamp, .. }) = &wake {
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
pub fn open_events_file(path: &PathBuf) -> Result<BufWriter<File>, String> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| format!("cannot write the events file {}: {e}", path.display()))?;
    file.set_len(0).map_err(|e| format!("cannot truncate the events file {}: {e}", path.display()))?;
    Ok(BufWriter::new(file))
}

/// The native runtime, its clock pinned when `OPENAGENT_PIN_CLOCK` (milliseconds since the
/// epoch) asks for reproducible output.
pub fn pinned_runtime() -> NativeRuntime {
    match std::env::var("OPENAGENT_PIN_CLOCK").ok().and_then(|v| v.parse().ok()) {
        Some(at) => NativeRuntime::new().with_pinned_clock(at),
        None => NativeRuntime::new(),
    }
}

/// `OPENAGENT_RUN_ID`, when set and not empty (an unfilled CI variable counts as unset: an
/// empty run id means "never started"). It names a directory, so only letters, digits, `-`, `_`
/// and `.` (not leading) are allowed.
pub fn fixed_run_id() -> Result<Option<String>, String> {
    let Some(id) = std::env::var("OPENAGENT_RUN_ID").ok().filter(|id| !id.is_empty()) else { return Ok(None) };
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if id.chars().all(allowed) && !id.starts_with('.') {
        Ok(Some(id))
    } else {
        Err(format!("OPENAGENT_RUN_ID {id:?} is not a valid run id: use letters, digits, '-', '_' and '.' (not first)"))
    }
}

/// Refuses a fixed run `id` that an earlier run has in `data_dir`, in the store or as artifacts:
/// the run would record its answer over that one's. A run that resumes the session of that id
/// is its next input, and may keep it. A store that cannot be read refuses nothing here: the run
/// goes on without it, as ever, and says so.
fn untaken(id: &str, data_dir: &Path, resumed: Option<&Resumed>) -> Result<(), String> {
    if resumed.is_some_and(|resumed| resumed.id() == id) {
        return Ok(());
    }
    let database = data_dir.join(openagent_store::DATABASE);
    let stored = database.is_file() && Store::open(data_dir).is_ok_and(|store| store.session(id).is_ok());
    if !stored && !data_dir.join("runs").join(id).exists() {
        return Ok(());
    }
    Err(format!(
        "run id {id} (OPENAGENT_RUN_ID) is taken: {} already has a run of that id; give this run an id of its own (or \
         unset OPENAGENT_RUN_ID for a new one), or add --resume {id} to continue that session",
        data_dir.display()
    ))
}

/// `r_20261122T054859Z_3fa9c1`: sortable by start time, its suffix random.
pub fn new_run_id(now_ms: u64) -> String {
    let stamp: String = format_rfc3339(now_ms)[..19].chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    // Six hex digits of the core's random id: two runs started in the same second still differ.
    format!("r_{stamp}Z_{}", &openagent_core::id::random_uuid()[..6])
}

#[cfg(test)]
mod tests {
    use std::task::{Context, Poll};

    use super::*;

    /// The first signal aborted the session, but its input did not end (a step that does not see
    /// the abort): the second ends the input as interrupted, so `run_finished` is still written.
    #[test]
    fn a_second_signal_ends_an_input_the_first_did_not_stop() {
        let abandoned = Cell::new(false);
        let mut work = pin!(until_abandoned(futures::future::pending(), &abandoned));
        let mut cx = Context::from_waker(futures::task::noop_waker_ref());
        assert!(work.as_mut().poll(&mut cx).is_pending());
        abandoned.set(true);
        assert_eq!(work.as_mut().poll(&mut cx), Poll::Ready(Ok(StopReason::Interrupted)));
    }
}
