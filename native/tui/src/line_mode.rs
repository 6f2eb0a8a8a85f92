//! `openagent` with no arguments (or `openagent run --tui "<task>"`): an interactive session in
//! the terminal. Type a task and watch it stream; lines typed while it runs steer it; Ctrl-C
//! stops the run and keeps the conversation; Ctrl-C twice, or Ctrl-D, quits. One session holds
//! the history from one input to the next, and is one session in the session store, created at
//! its first input (its task) and finished when the person quits. `--resume ID` (or
//! `--continue`) takes a stored session up again instead; `/compact` compacts the conversation.
//!
//! This is the plain-text session, for pipes and dumb terminals; a terminal gets the full screen
//! (the crate's full screen), without colours under `NO_COLOR`. Slash commands are read the same way in both: here `/help`,
//! `/compact` and `/quit` work, the others say they need the full screen, and an unknown one is
//! an error. None is ever sent as a task.

use std::io::{BufRead, Write};
use std::rc::Rc;

use futures::channel::mpsc::{unbounded, UnboundedReceiver};
use futures::future::{select, Either};
use futures::stream::{self, StreamExt};
use openagent_core::runtime::{format_rfc3339, Runtime};
use openagent_core::SessionStatus;

use crate::commands::{self, Parsed};
use openagent_runner::approval::{PendingAnswer, TerminalApprover};
use openagent_runner::human::Human;
use openagent_runner::report::{record, Output};
use openagent_runner::{
    drive, new_run_id, pinned_runtime, signal_wakes, ExitReason, Launcher, Plan, Report, Request, RunConfig, Running, Wake,
};

/// What the person did while no task was running.
enum Next {
    Task(String),
    Interrupt,
    Quit,
}

/// What a line typed at the prompt is, read as the full screen reads it.
#[derive(PartialEq, Eq)]
enum Typed {
    Task,
    /// `/compact` or `/quit`, which work here.
    Command(&'static str),
    /// A command answered or refused on stderr: nothing more to do.
    Answered,
}

fn read_line(line: &str) -> Typed {
    match commands::parse(line) {
        Parsed::Task => Typed::Task,
        Parsed::Command { name: name @ ("compact" | "quit"), .. } => Typed::Command(name),
        Parsed::Command { name: "help", .. } => {
            commands::help().iter().for_each(|line| eprintln!("{line}"));
            Typed::Answered
        }
        Parsed::Command { name, .. } => {
            eprintln!(
                "/{name} needs the full-screen session (a terminal whose TERM is not dumb); here /help, /compact and /quit work"
            );
            Typed::Answered
        }
        Parsed::Unknown(message) => {
            eprintln!("error: {message}");
            Typed::Answered
        }
    }
}

/// Runs the session until the person quits; returns the exit code.
pub fn run(args: Request, first_task: Option<String>) -> u8 {
    let runtime = Rc::new(pinned_runtime());
    let mut human = Human::detect();
    let mut plan = match Plan::resolve(&args, &runtime) {
        Ok(plan) => plan,
        Err(error) => {
            human.fatal(&error.to_string());
            return ExitReason::ConfigError.code();
        }
    };
    // While the policy asks about a call, the next line typed answers it.
    let answers = PendingAnswer::default();
    plan.launcher.approver = Rc::new(TerminalApprover { answers: answers.clone() });
    human.pause_for(answers.clone());
    let config = plan.config.clone();
    let resumed = plan.resumed.as_ref().map(|resumed| (resumed.id().to_owned(), resumed.record.exit_reason.clone()));
    let agent = &plan.launcher;
    eprintln!(
        "OpenAgent{} · {} · {} · {} · approval {} · sandbox {}{}\nType a task and press Enter. While it runs, type to steer it. /compact compacts the \
         conversation; /help lists the commands. Ctrl-C stops the run; Ctrl-C twice or Ctrl-D quits.",
        agent.config.as_ref().map(|config| format!(" · agent {}", config.id)).unwrap_or_default(),
        agent.settings.kind,
        agent.model,
        agent.cwd.display(),
        agent.policy.mode.name(),
        agent.sandbox.describe(),
        resumed.as_ref().map(|(id, _)| format!("\nResuming session {id}.")).unwrap_or_default(),
    );
    let id = plan.session_id(&new_run_id(runtime.now_ms()));
    let report = Report::to(Output::Human(human), None);
    let mut running = match plan.start(&id, || report, Ok) {
        Ok(running) => running,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitReason::ConfigError.code();
        }
    };

    let mut lines = stdin_lines();
    let mut signals = openagent_host::signals::interrupts().map_err(|e| eprintln!("warning: Ctrl-C will quit at once: {e}")).ok();
    let now = || format_rfc3339(runtime.now_ms());
    // The session's row is written at its first task (a resumed one's taken up again then), so
    // a session opened and left without a task leaves no trace. `stored` says it was written.
    let mut stored = false;
    let mut resuming = resumed.is_some();
    // How the conversation's latest input ended: for a resumed session, how it last ended.
    let mut last_exit = resumed.and_then(|(_, exit_reason)| exit_reason);
    let mut pending = first_task;
    while let Some(task) = pending.take().or_else(|| runtime.block_on(next_task(&mut lines, signals.as_mut()))) {
        let compact = match read_line(&task) {
            Typed::Answered => continue,
            Typed::Command("quit") => break,
            typed => typed == Typed::Command("compact"),
        };
        if compact && !stored && !resuming {
            eprintln!("Nothing to compact yet: give the session a task first.");
            continue;
        }
        let input = match openagent_runner::mentions::with_mentioned_images(&task, &running.launcher.cwd) {
            Ok(input) => input,
            Err(message) => {
                eprintln!("{message}");
                continue;
            }
        };
        if !stored {
            let info =
                RunConfig::new(&task, &running.launcher, &config, "interactive").stored_session(running.session.id(), now());
            running.report.store = record(&args.data_dir, info, std::mem::take(&mut resuming));
            stored = true;
        }
        let started = runtime.now_ms();
        let mut presses = 0;
        let outside = stream::select(signal_wakes(signals.as_mut()), lines.by_ref().map(Wake::Outside));
        let on_outside = |session: &openagent_core::Session, _: &Launcher, wake: Wake<String>| match wake {
            Wake::Outside(line) => {
                let line = answers.take_line(line).filter(|line| !line.trim().is_empty());
                // A command typed while it runs is answered or refused, never steering.
                if let Some(line) = line.filter(|line| read_line(line) == Typed::Task) {
                    session.steer(line);
                }
            }
            Wake::Signal => {
                presses += 1;
                if presses > 1 {
                    openagent_host::signals::end_commands(openagent_runner::COMMANDS_END_WITHIN);
                    std::process::exit(i32::from(ExitReason::Interrupted.code()));
                }
                session.interrupt();
            }
            Wake::Event(_) | Wake::Tick => {}
        };
        if compact {
            if let Err(error) = running.drive(&runtime, |session| session.compact(), outside.boxed_local(), on_outside) {
                eprintln!("The conversation was not compacted: {}", running.launcher.explain(&error));
            }
            continue;
        }
        let result = running.drive(&runtime, |session| session.submit(input), outside.boxed_local(), on_outside);
        let end = running.end(&result, runtime.now_ms().saturating_sub(started));
        running.report.output.finish(&now(), &end);
        let Running { launcher: agent, session, report } = &mut running;
        if session.status() == SessionStatus::Closed {
            eprintln!("The session was closed by that error; the next task starts a new conversation.");
            report.finish_store(&end.exit_reason, &now());
            (stored, last_exit) = (false, None);
            runtime.block_on(session.ended());
            *session = agent.session(&new_run_id(runtime.now_ms()), config.clone(), None);
        } else {
            last_exit = Some(end.exit_reason);
            // A line typed after the input's last tool round steered nothing: it is the next task,
            // not lost.
            let late = session.take_steering();
            if !late.is_empty() {
                pending = Some(late.join("\n\n"));
            }
        }
    }
    let Running { session, report, .. } = &mut running;
    if stored {
        report.finish_store(last_exit.as_deref().unwrap_or(ExitReason::Completed.as_str()), &now());
    }
    // Quitting ends the session, once its `session_end` hooks are done (they say if they fail).
    session.close();
    let ended = async {
        session.ended().await;
        Ok::<_, openagent_core::SessionError>(())
    };
    let quiet = stream::pending().boxed_local();
    let _ = runtime.block_on(drive(session, ended, &runtime, quiet, |wake: Wake<()>| report.wake_on(&wake, session)));
    // An input interrupted just before quitting may have commands still ending.
    openagent_host::signals::end_commands(openagent_runner::COMMANDS_END_WITHIN);
    match &report.output {
        Output::Human(human) => human.stdout.end(0),
        _ => 0,
    }
}

/// The next task; none when the person quits (Ctrl-D, or Ctrl-C twice in a row).
async fn next_task(lines: &mut UnboundedReceiver<String>, mut signals: Option<&mut UnboundedReceiver<i32>>) -> Option<String> {
    match next_input(lines, signals.as_deref_mut()).await {
        Next::Task(task) => Some(task),
        Next::Interrupt => {
            eprintln!("(Ctrl-C again, or Ctrl-D, to quit)");
            match next_input(lines, signals).await {
                Next::Task(task) => Some(task),
                Next::Interrupt | Next::Quit => None,
            }
        }
        Next::Quit => None,
    }
}

/// Waits for the next task, Ctrl-C, or the end of input. Blank lines are skipped.
async fn next_input(lines: &mut UnboundedReceiver<String>, signals: Option<&mut UnboundedReceiver<i32>>) -> Next {
    let mut signals = signal_wakes::<String>(signals);
    loop {
        prompt();
        match select(lines.next(), signals.next()).await {
            Either::Left((Some(line), _)) if line.trim().is_empty() => continue,
            Either::Left((Some(line), _)) => return Next::Task(line),
            Either::Left((None, _)) => return Next::Quit,
            Either::Right(_) => return Next::Interrupt,
        }
    }
}

fn prompt() {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(b"\n> ").and_then(|()| err.flush());
}

/// stdin, line by line, from a thread (reading blocks); the channel closes at end of input.
fn stdin_lines() -> UnboundedReceiver<String> {
    let (tx, rx) = unbounded();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.unbounded_send(line).is_err() {
                break;
            }
        }
    });
    rx
}
