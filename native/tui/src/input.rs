//! One input of the interactive session: recorded in the store at the first, driven with every
//! event, key and tick handed to the screen, and ended with the line saying how.

use std::rc::Rc;

use crossterm::event::{Event, KeyCode};
use crossterm::style::Color;
use futures::channel::mpsc::UnboundedReceiver;
use futures::stream::{self, StreamExt};
use openagent_core::runtime::{format_rfc3339, Runtime};
use openagent_core::{Session, SessionStatus};
use openagent_runner::{ExitReason, Launcher, Wake};

use crate::commands::{self, Parsed};
use crate::editor::Action;
use crate::view::{self, View};
use crate::{build, ctrl, restore, slash, Next, Outside, State};

impl State {
    /// Runs one input; queues what was typed too late to steer it, as the next task.
    pub(crate) fn task(
        &mut self,
        task: String,
        runtime: &Rc<openagent_host::runtime::NativeRuntime>,
        keys: &mut UnboundedReceiver<Outside>,
        signals: Option<&mut UnboundedReceiver<i32>>,
    ) {
        let input = match openagent_runner::mentions::with_mentioned_images(&task, &self.running.launcher.cwd) {
            Ok(input) => input,
            Err(message) => {
                self.view.screen.note(Color::Red, "✗", &message.to_string());
                return;
            }
        };
        self.view.screen.gap();
        self.view.screen.lines(view::echo(&task));
        self.store(&task, runtime);
        let started = runtime.now_ms();
        let result = self.drive(|session| Box::pin(session.submit(input)), runtime, keys, signals);
        let end = self.running.end(&result, runtime.now_ms().saturating_sub(started));
        self.view.finish(&end);
        let now = format_rfc3339(runtime.now_ms());
        if self.running.session.status() == SessionStatus::Closed {
            self.view.screen.note(
                Color::Yellow,
                "!",
                "the session was closed by that error; the next task starts a new conversation",
            );
            self.running.report.finish_store(&end.exit_reason, &now);
            (self.stored, self.last_exit) = (false, None);
            runtime.block_on(self.running.session.ended());
            let id = openagent_runner::new_run_id(runtime.now_ms());
            self.running.session = build(&self.running.launcher, &self.hooks, &id, self.running.session.config(), None);
            self.view.root = None;
            return;
        }
        self.last_exit = Some(end.exit_reason);
        let late = self.running.session.take_steering();
        if !late.is_empty() {
            self.queued.push_back(Next::Task(late.join("\n\n")));
        }
    }

    /// Records the session in the store at its first input.
    pub(crate) fn store(&mut self, task: &str, runtime: &Rc<openagent_host::runtime::NativeRuntime>) {
        if self.stored {
            return;
        }
        let config = self.running.session.config();
        let info = openagent_runner::RunConfig::new(task, &self.running.launcher, &config, "interactive")
            .stored_session(self.running.session.id(), format_rfc3339(runtime.now_ms()));
        self.running.report.store = openagent_runner::report::record(&self.data_dir, info, std::mem::take(&mut self.resuming));
        self.stored = true;
    }

    /// Drives `work` on the session, handing the screen every event, key and tick until it ends.
    pub(crate) fn drive<R>(
        &mut self,
        work: impl FnOnce(
            &Session,
        )
            -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<R, openagent_core::SessionError>> + '_>>,
        runtime: &Rc<openagent_host::runtime::NativeRuntime>,
        keys: &mut UnboundedReceiver<Outside>,
        signals: Option<&mut UnboundedReceiver<i32>>,
    ) -> Result<R, openagent_core::SessionError> {
        let in_store = self.in_store();
        let State { running, view, question, leaving, queued, .. } = self;
        // A SIGTERM or SIGHUP stops the run as Ctrl-C does, and then ends the session.
        let signals = match signals {
            Some(rx) => rx
                .map(|signal| {
                    leaving.set(leaving.get() || signal != libc::SIGINT);
                    Wake::Signal
                })
                .boxed_local(),
            None => stream::pending().boxed_local(),
        };
        let outside = stream::select(signals, keys.by_ref().map(Wake::Outside)).boxed_local();
        let mut presses = 0;
        let cwd = running.launcher.cwd.clone();
        let on_wake = |session: &Session, agent: &Launcher, wake: Wake<Outside>| {
            match wake {
                Wake::Outside(Outside::Term(Event::Key(key))) if question.is_open() => {
                    if ctrl(&key, 'c') {
                        question.key(KeyCode::Esc);
                        interrupt(session, view, &mut presses);
                    } else if !question.wants_reason() {
                        question.key(key.code);
                    } else if key.code == KeyCode::Enter && key.modifiers.is_empty() {
                        question.deny(view.editor.text());
                        view.editor.clear();
                    } else {
                        view.editor.key(key, &cwd);
                    }
                }
                Wake::Outside(Outside::Term(Event::Key(key))) if ctrl(&key, 'o') => view.toggle_output(None),
                Wake::Outside(Outside::Term(Event::Key(key))) => match view.editor.key(key, &cwd) {
                    Action::Submit(line) => match commands::parse(&line) {
                        Parsed::Task => {
                            session.steer(line);
                            view.screen.live.notice = Some("steering: it goes to the model at its next step".into());
                        }
                        Parsed::Command { name, arg } => {
                            if !slash::answer(name, arg, session, agent, view, in_store) {
                                // Not while the run changes the session: it runs once the run ends.
                                let line = if arg.is_empty() { format!("/{name}") } else { format!("/{name} {arg}") };
                                view.screen.note(Color::DarkGrey, "·", &format!("{line} runs when this run ends"));
                                queued.push_back(Next::Command(name, arg.to_owned()));
                            }
                        }
                        Parsed::Unknown(message) => view.screen.note(Color::Red, "✗", &message),
                    },
                    Action::Interrupt => interrupt(session, view, &mut presses),
                    _ => {}
                },
                Wake::Outside(Outside::Term(Event::Paste(text))) => view.editor.paste(&text),
                Wake::Outside(Outside::Term(Event::Resize(columns, rows))) => view.screen.resize(columns.into(), rows.into()),
                Wake::Outside(Outside::Said(line)) => view.screen.note(Color::DarkGrey, "·", &line),
                Wake::Outside(Outside::Gone) => leaving.set(true),
                Wake::Outside(Outside::Term(_)) => {}
                Wake::Signal => interrupt(session, view, &mut presses),
                Wake::Tick => view.screen.tick(),
                Wake::Event(event) => view.event(&event),
            }
            view.screen.live.question = question.lines();
            view.draw();
        };
        let result = running.drive(runtime, work, outside, on_wake);
        // "stopping…" or "steering…" was about the run that just ended. One Ctrl-C ends a run
        // at once, so the second of two lands here: it quits, as "stopping…" said it would.
        self.view.screen.live.notice = None;
        if presses > 0 {
            self.arm();
        }
        result
    }

    /// The next Ctrl-C on an empty input quits, and the screen says so.
    pub(crate) fn arm(&mut self) {
        self.armed = true;
        self.view.screen.live.notice = Some("Ctrl-C again, or Ctrl-D, to quit".into());
    }
}

/// Ctrl-C while a run goes on: the first stops it, the second quits at once.
fn interrupt(session: &Session, view: &mut View, presses: &mut usize) {
    *presses += 1;
    if *presses > 1 {
        view.screen.close();
        restore();
        openagent_host::signals::end_commands(openagent_runner::COMMANDS_END_WITHIN);
        std::process::exit(i32::from(ExitReason::Interrupted.code()));
    }
    session.interrupt();
    view.screen.live.notice = Some("stopping… (Ctrl-C again quits)".into());
}
