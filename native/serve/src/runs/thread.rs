//! The thread each open session of `openagent serve` lives on: the session started through the
//! runner, then input after input until it is aborted, closed by an error, or left idle.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::mpsc;
use std::time::Duration;

use async_trait::async_trait;
use futures::channel::mpsc::UnboundedReceiver;
use futures::channel::oneshot;
use futures::future::{select, Either};
use futures::StreamExt;
use openagent_core::approval::{Approval, ApprovalRequest, Approver};
use openagent_core::runtime::{format_rfc3339, Runtime};
use openagent_core::{Session, SessionStatus};
use openagent_host::runtime::NativeRuntime;
use openagent_runner::report::Output;
use openagent_runner::SandboxOptions;
use openagent_runner::{pinned_runtime, AgentOptions, ExitReason, Plan, Report, Request, RunConfig, RunError, Running, Wake};
use openagent_store::{Recorder, SessionResult};

use super::{Control, NewRun, Refusal, Runs, StartError};
use crate::callback::callback_message;

impl Runs {
    /// The run thread: starts the session, tells `ready`, then runs input after input until the
    /// session closes.
    pub(super) fn run(
        &self,
        id: &str,
        run: NewRun,
        mut control: UnboundedReceiver<Control>,
        ready: &mpsc::Sender<Result<(), StartError>>,
    ) {
        let runtime = Rc::new(pinned_runtime());
        let now = || format_rfc3339(runtime.now_ms());
        let waiting = Waiting::default();
        let mut running = match self.prepare(id, &run, &runtime, now(), &waiting) {
            Ok(running) => running,
            Err(error) => {
                let _ = ready.send(Err(error));
                return;
            }
        };
        let _ = ready.send(Ok(()));
        let mut input = Some(run.task);
        while let Some(text) = input.take() {
            let started = runtime.now_ms();
            let outside = control.by_ref().map(Wake::Outside).boxed_local();
            let result = running.drive(
                &runtime,
                |session| session.submit(text),
                outside,
                |session, _, wake| {
                    if let Wake::Outside(request) = wake {
                        while_running(session, &waiting, request);
                    }
                },
            );
            // Steering that came after the input's last tool round opens the next input at once:
            // a child's result must not wait for someone to send the parent a message.
            let late = running.session.take_steering();
            if !late.is_empty() && running.session.status() != SessionStatus::Closed {
                input = Some(late.join("\n\n"));
                continue;
            }
            let end = running.end(&result, runtime.now_ms().saturating_sub(started));
            let Running { session, report, .. } = &mut running;
            if let Some(store) = &mut report.store {
                if let Err(e) = store.finish(&end.exit_reason, &now()) {
                    eprintln!("warning: the session store did not record how {id}'s input ended: {e}");
                }
            }
            if let (Some(parent), Some(result)) = (&run.parent_id, session.last_result()) {
                let completed = end.exit_reason == ExitReason::Completed.as_str();
                self.report_to_parent(parent, callback_message(id, completed, &SessionResult::from(result)));
            }
            if session.status() == SessionStatus::Closed {
                break;
            }
            self.touch(id);
            input = next_input(&runtime, &mut control, session, report, || self.idle_left(id));
        }
        // A session an error closed may still be running its `session_end` hooks.
        runtime.block_on(running.session.ended());
        self.forget(id);
    }

    /// The session at work, its row in the store written; the error says what to change.
    fn prepare(
        &self,
        id: &str,
        run: &NewRun,
        runtime: &Rc<NativeRuntime>,
        created_at: String,
        waiting: &Waiting,
    ) -> Result<Running, StartError> {
        let request = Request {
            agent: AgentOptions {
                cwd: run.agent.cwd.clone().or_else(|| self.defaults.cwd.clone()),
                env_pass: self.defaults.env_pass.clone(),
                // The server's --approval is the default under the agent config's mode.
                default_approval: self.defaults.approval.unwrap_or(self.defaults.default_approval),
                // The request's policy whole, else the server's --sandbox (over the agent config's).
                sandbox: match run.agent.sandbox == SandboxOptions::default() {
                    true => self.defaults.sandbox.clone(),
                    false => run.agent.sandbox.clone(),
                },
                // The server's own: what a request says cannot make a directory's hooks trusted.
                data_dir: Some(self.data_dir.clone()),
                ..run.agent.clone()
            },
            limits: run.limits.clone(),
            data_dir: self.data_dir.clone(),
            resume: None,
        };
        let mut plan = Plan::continuing(&request, run.resume.clone(), runtime).map_err(|e| StartError::Refused(e.to_string()))?;
        plan.launcher.approver = Rc::new(waiting.clone());
        let config = RunConfig::new(&run.task, &plan.launcher, &plan.config, "serve");
        let mut stored = RunConfig { output_schema: run.output_schema.clone(), ..config }.stored_session(id, created_at);
        stored.parent_id.clone_from(&run.parent_id);
        let recorder = match run.resume {
            Some(_) => Recorder::reopen(&self.data_dir, stored),
            None => Recorder::start(&self.data_dir, stored),
        };
        let report = Report::to(Output::Silent, Some(recorder.map_err(|e| StartError::Failed(e.to_string()))?));
        plan.start(
            id,
            || report,
            |builder| match &run.output_schema {
                Some(schema) => builder.output_schema(schema.clone()).map_err(|e| RunError::OutputSchema(e.to_string())),
                None => Ok(builder),
            },
        )
        .map_err(|e| StartError::Refused(e.to_string()))
    }
}

/// The calls of a session that wait for their approval, by call id: the session's approver.
/// The `approval_requested` event (in the store, so on the SSE stream) tells the client, and
/// `POST /sessions/{id}/approvals/{call_id}` answers.
#[derive(Clone, Default)]
struct Waiting(Rc<RefCell<HashMap<String, oneshot::Sender<Approval>>>>);

#[async_trait(?Send)]
impl Approver for Waiting {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        let (tx, rx) = oneshot::channel();
        self.0.borrow_mut().insert(request.call_id.clone(), tx);
        let answer = rx.await;
        self.0.borrow_mut().remove(&request.call_id);
        answer.unwrap_or_else(|_| Approval::Deny(Some("the approval was not answered".into())))
    }
}

/// A request that came while the session works on an input.
fn while_running(session: &Session, waiting: &Waiting, request: Control) {
    // An answer nobody waits for any more (the HTTP client gave up) is dropped.
    match request {
        Control::Steer(message, answer) => {
            session.steer(message);
            let _ = answer.send(Ok(()));
        }
        Control::Input(_, answer) => {
            let _ = answer.send(Err(Refusal::Running));
        }
        Control::Abort(answer) => {
            session.abort();
            let _ = answer.send(Ok(()));
        }
        Control::Callback(message) => session.steer(message),
        Control::Approve(call_id, approval, answer) => {
            let waiter = waiting.0.borrow_mut().remove(&call_id);
            let answered = waiter.is_some_and(|tx| tx.send(approval).is_ok());
            let _ = answer.send(if answered { Ok(()) } else { Err(Refusal::NoSuchCall) });
        }
    }
}

/// Waits for the session's next input; `None` once it is aborted, or closed when `idle_left`
/// (asked again whenever a wait ends) says it has waited long enough.
fn next_input(
    runtime: &NativeRuntime,
    control: &mut UnboundedReceiver<Control>,
    session: &Session,
    report: &mut Report,
    idle_left: impl Fn() -> Option<Duration>,
) -> Option<String> {
    // The sleep under way is kept across requests that do not end the wait (a refused steer), so
    // that a client sending them cannot pile up sleeps in the timer.
    let mut sleep = None;
    loop {
        // The server keeps a sender for as long as the session is open: `None` cannot come first.
        let request = match idle_left() {
            None => runtime.block_on(control.next())?,
            Some(left) if left.is_zero() => {
                close(runtime, session, report);
                return None;
            }
            Some(left) => {
                let timer = sleep.get_or_insert_with(|| runtime.sleep(millis(left)));
                match runtime.block_on(select(control.next(), timer)) {
                    Either::Left((request, _)) => request?,
                    // A request for the session may have come meanwhile: the time left is asked
                    // again rather than the session closed.
                    Either::Right(_) => {
                        sleep = None;
                        continue;
                    }
                }
            }
        };
        match request {
            Control::Input(message, answer) => {
                // Running in the store before the caller hears back, so that a result read after
                // the answer is this input's, not the last one's.
                resume(report);
                let _ = answer.send(Ok(()));
                return Some(message);
            }
            Control::Callback(message) => {
                resume(report);
                return Some(message);
            }
            Control::Steer(_, answer) => {
                let _ = answer.send(Err(Refusal::NotRunning));
            }
            Control::Approve(_, _, answer) => {
                let _ = answer.send(Err(Refusal::NoSuchCall));
            }
            Control::Abort(answer) => {
                close(runtime, session, report);
                let _ = answer.send(Ok(()));
                return None;
            }
        }
    }
}

/// Closes a session that waits for its next input, once its `session_end` hooks are done.
fn close(runtime: &NativeRuntime, session: &Session, report: &mut Report) {
    // Closing an idle session emits its `session_end` at once; it goes to the store too, with
    // what its hooks report.
    let mut events = session.events();
    session.abort();
    runtime.block_on(session.ended());
    while let Some(event) = events.try_recv() {
        report.event(&event);
    }
}

/// A wait in whole milliseconds, at least one: a wait of less than a millisecond must not spin.
fn millis(wait: Duration) -> u64 {
    u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1)
}

fn resume(report: &mut Report) {
    if let Some(store) = &mut report.store {
        if let Err(e) = store.resume() {
            eprintln!("warning: the session store did not record the new input: {e}");
        }
    }
}
