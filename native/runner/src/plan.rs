//! The three steps every native host takes to run a session, so that `openagent run`, each
//! input of the interactive session, serve's sessions and the line mode read alike:
//!
//! 1. [`Plan::resolve`]: everything that can refuse (the directory, the agent config, the MCP,
//!    hooks and models files and their trust, the provider and model, the stored session to
//!    resume), resolved before anything is written;
//! 2. [`Plan::start`]: the session built, its system prompt begun, on the host's [`Report`] (which holds the run's
//!    artifacts and its row in the store);
//! 3. [`Running::drive`]: one input driven until it ends, every event reported, and
//!    [`Running::end`]: how it ended, explained.
//!
//! Under step 3 is the driver ([`drive`]): a session's events, the spinner's ticks and what comes
//! from outside (signals, typed lines, requests) as one stream of wakes.

use std::cell::Cell;
use std::future::Future;
use std::path::Path;
use std::pin::pin;
use std::rc::Rc;

use futures::channel::mpsc::UnboundedReceiver;
use futures::future::{select, Either};
use futures::stream::{self, LocalBoxStream};
use futures::StreamExt;
use openagent_core::runtime::{format_rfc3339, Runtime};
use openagent_core::session::{SessionBuilder, StopReason};
use openagent_core::{Session, SessionConfig, SessionError};
use openagent_host::runtime::NativeRuntime;
use openagent_store::Store;

use crate::artifacts::RunConfig;
use crate::error::RunError;
use crate::human;
use crate::launcher::{working_directory, AgentOptions, Launcher};
use crate::projection::RunEnd;
use crate::report::Report;
use crate::request::Request;
use crate::resume::{ResumeFrom, Resumed};
pub use crate::wake::Wake;

/// A session resolved and ready to start: its agent, the stored session it continues, its
/// settings. Nothing of it has been written yet.
pub struct Plan {
    pub launcher: Launcher,
    pub resumed: Option<Resumed>,
    pub config: SessionConfig,
}

impl Plan {
    /// Resolves `request`: for a resumed session, its stored agent where the request says
    /// nothing; the error says what to change.
    pub fn resolve(request: &Request, runtime: &Rc<NativeRuntime>) -> Result<Self, RunError> {
        let resumed = request.resume.as_ref().map(|from| load_resumed(from, &request.data_dir, &request.agent)).transpose()?;
        Self::continuing(request, resumed, runtime)
    }

    /// [`Plan::resolve`], for a host that has loaded the stored session to resume itself.
    pub fn continuing(request: &Request, resumed: Option<Resumed>, runtime: &Rc<NativeRuntime>) -> Result<Self, RunError> {
        let launcher = prepare_agent(&request.agent, resumed.as_ref(), runtime)?;
        let config = launcher.session_config(&request.limits, resumed.as_ref().map(|resumed| &resumed.snapshot));
        Ok(Self { launcher, resumed, config })
    }

    /// The session's id: a resumed session keeps its own, a new one is named `new`.
    pub fn session_id(&self, new: &str) -> String {
        self.resumed.as_ref().map_or(new, Resumed::id).to_owned()
    }

    /// What the run's artifacts and its row in the store record of it, for `task` reported as
    /// `output` (`human`, `json`, `interactive`, `serve`).
    pub fn run_config(&self, task: &str, output: &str) -> RunConfig {
        RunConfig {
            resumed_from: self.resumed.as_ref().map(|resumed| resumed.id().to_owned()),
            forked_from: self.resumed.as_ref().and_then(|resumed| resumed.record.forked_from.clone()),
            ..RunConfig::new(task, &self.launcher, &self.config, output)
        }
    }

    /// Builds the session `id` (continuing the resumed one), with what `extend` adds to its
    /// builder (an output schema, a host's hooks), reporting to the report `report` makes. The
    /// session's system prompt is begun first (its git snapshot's commands started), so that
    /// making the report (the run's artifacts, its row in the store) runs beside them.
    pub fn start(
        self,
        id: &str,
        report: impl FnOnce() -> Report,
        extend: impl FnOnce(SessionBuilder) -> Result<SessionBuilder, RunError>,
    ) -> Result<Running, RunError> {
        let builder = extend(self.launcher.builder(id, self.config))?;
        let session = self.launcher.build(builder, self.resumed.map(|resumed| resumed.snapshot));
        session.prepare_prompt();
        Ok(Running { launcher: self.launcher, session, report: report() })
    }
}

/// A session at work, and where its events go.
pub struct Running {
    pub launcher: Launcher,
    pub session: Session,
    pub report: Report,
}

impl Running {
    /// Drives the input `work` gives until it is done: every event and spinner tick goes to the
    /// report (with the rolling snapshot at each turn), then every wake to `on_wake`, with the
    /// session and its agent (a screen draws events; signals and typed lines are the host's);
    /// then keeps the input's snapshot.
    pub fn drive<'s, T, R, F>(
        &'s mut self,
        runtime: &Rc<NativeRuntime>,
        work: impl FnOnce(&'s Session) -> F,
        outside: LocalBoxStream<'s, Wake<T>>,
        mut on_wake: impl FnMut(&Session, &Launcher, Wake<T>),
    ) -> Result<R, SessionError>
    where
        F: Future<Output = Result<R, SessionError>> + 's,
    {
        let Self { session, report, launcher } = self;
        let session: &'s Session = session;
        let result = runtime.block_on(drive(session, work(session), runtime, outside, |wake| {
            report.wake_on(&wake, session);
            on_wake(session, launcher, wake);
        }));
        report.checkpoint(session, true, &format_rfc3339(runtime.now_ms()));
        result
    }

    /// How the input that gave `result` ended, in `duration_ms`: what its events added up to
    /// (counted again from zero for the next input), explained.
    pub fn end(&mut self, result: &Result<StopReason, SessionError>, duration_ms: u64) -> RunEnd {
        std::mem::take(&mut self.report.tally).end(result, &self.launcher, &self.session, duration_ms)
    }
}

/// The agent `flags` ask for; for a `resumed` session, the one it had where they say nothing.
pub fn prepare_agent(flags: &AgentOptions, resumed: Option<&Resumed>, runtime: &Rc<NativeRuntime>) -> Result<Launcher, RunError> {
    let Some(resumed) = resumed else { return Launcher::prepare(flags, runtime.clone()) };
    Launcher::prepare(&resumed.options(flags), runtime.clone()).map_err(|error| match &flags.cwd {
        Some(_) => error,
        None => RunError::ResumedDirectory { session: resumed.id().to_owned(), error: Box::new(error) },
    })
}

/// The stored session `from` names, with its snapshot; the error says what is wrong and, for a
/// session not found, how to list them.
pub fn load_resumed(from: &ResumeFrom, data_dir: &Path, flags: &AgentOptions) -> Result<Resumed, RunError> {
    let cwd = working_directory(flags)?;
    let store = Store::open(data_dir)?;
    Resumed::load(&store, from, &cwd).map_err(RunError::Resume)
}

/// How long a run that was stopped waits for its cancelled commands to be gone before it kills
/// what is left: their own SIGTERM grace, and a little.
pub const COMMANDS_END_WITHIN: std::time::Duration = std::time::Duration::from_millis(2_500);

/// `work`, or an interrupted end as soon as `abandoned` is set: what a second signal gives, when
/// the first did not stop the input. Dropping `work` cancels its model call and its commands.
pub fn until_abandoned<'a>(
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
