//! The interactive session on a terminal: a transcript that streams into the terminal's own
//! scrollback (rendered markdown, a compact line per tool call, a diff per edit) above a live
//! input box and status line, with slash commands, input history, completion and inline
//! approval questions. Plain text instead (the line mode, `line_mode`) when stdin or
//! stdout is not a terminal or `TERM` is `dumb`; `NO_COLOR` keeps the screen and drops its colours.
//!
//! Built on crossterm alone rather than a widget library: the transcript is printed once and left
//! to the terminal, so it scrolls and copies like any output, and only the few live rows at the
//! bottom are redrawn. A resize lays the transcript out again at the new width.
//!
//! It sits on the runner, which resolves, starts and drives each session; crossterm, syntect and
//! the other terminal crates are its own. Nothing below it imports it, and it must not depend on
//! serve or the CLI.

mod approve;
pub(crate) mod commands;
mod diff;
mod editor;
mod highlight;
mod history;
mod input;
pub mod line_mode;
mod markdown;
mod screen;
mod slash;
mod stderr;
mod text;
mod view;

use std::collections::VecDeque;
use std::io::{IsTerminal, Write};
use std::rc::Rc;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::style::Color;
use futures::channel::mpsc::{unbounded, UnboundedReceiver};
use futures::stream::StreamExt;
use openagent_core::hooks::Hooks;
use openagent_core::runtime::Runtime;
use openagent_core::Session;

use self::approve::{Question, TuiApprover};
use self::commands::Parsed;
use self::editor::{Action, Editor};
use self::screen::Screen;
use self::text::Line;
use self::view::View;
use openagent_runner::report::Output;
use openagent_runner::{ExitReason, Launcher, Plan, Report, Request, Running};

/// Whether the terminal can take the full interactive screen.
pub fn wanted() -> bool {
    std::io::stdin().is_terminal()
        && std::io::stdout().is_terminal()
        && std::env::var("TERM").is_ok_and(|term| !term.is_empty() && term != "dumb")
}

/// Puts the terminal back as it was: on every way out, a panic included.
struct RawMode;

impl RawMode {
    fn enter() -> std::io::Result<Self> {
        crossterm::terminal::enable_raw_mode()?;
        let _ = std::io::stdout().write_all(b"\x1b[?2004h").and_then(|()| std::io::stdout().flush());
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            hook(info);
        }));
        Ok(Self)
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        restore();
    }
}

fn restore() {
    stderr::release();
    let _ = std::io::stdout().write_all(b"\x1b[?2004l\x1b[0m").and_then(|()| std::io::stdout().flush());
    let _ = crossterm::terminal::disable_raw_mode();
}

/// What comes from outside a running session.
enum Outside {
    /// The terminal's keys, pastes and resizes.
    Term(Event),
    /// A line the process wrote to stderr while the screen was up.
    Said(String),
    /// The terminal is gone (hung up): nothing more will come from it.
    Gone,
}

/// What the person asked for at the prompt, or typed during a run for after it.
enum Next {
    Task(String),
    Command(&'static str, String),
    Quit,
}

/// The session and everything the loop keeps about it.
struct State {
    /// The session at work, its agent and its report.
    running: Running,
    view: View,
    data_dir: std::path::PathBuf,
    limits: openagent_runner::LimitFlags,
    /// The session's row is in the store (written at its first input).
    stored: bool,
    /// It was taken up from the store: its row is reopened, not created.
    resuming: bool,
    last_exit: Option<String>,
    question: Question,
    /// The session's hooks, with the diff of each edit.
    hooks: Rc<diff::DiffHooks>,
    /// Ctrl-C was pressed with nothing to stop: the next one quits.
    armed: bool,
    /// A SIGTERM or SIGHUP came while a run went on: the session ends once it has stopped.
    leaving: std::cell::Cell<bool>,
    /// What to do before the prompt takes input again: commands typed during a run, and a line
    /// typed too late to steer it.
    queued: VecDeque<Next>,
    /// The reasoning effort chosen with `/effort`, which every later conversation keeps
    /// (`/clear`, `/resume`, `/fork`); `None`: none chosen here.
    effort: Option<Option<String>>,
}

/// Runs the session until the person quits; returns the exit code.
pub fn run(args: Request, first_task: Option<String>) -> u8 {
    highlight::warm_up();
    let runtime = Rc::new(openagent_runner::pinned_runtime());
    let mut plan = match Plan::resolve(&args, &runtime) {
        Ok(plan) => plan,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitReason::ConfigError.code();
        }
    };
    let question = Question::default();
    let changes = diff::Changes::default();
    plan.launcher.approver = Rc::new(TuiApprover { question: question.clone() });
    let inner: Option<Rc<dyn Hooks>> = plan.launcher.hooks.clone().map(|hooks| hooks as Rc<dyn Hooks>);
    let hooks = Rc::new(diff::DiffHooks::new(inner, plan.launcher.cwd.clone(), changes.clone()));
    let _raw = match RawMode::enter() {
        Ok(raw) => raw,
        Err(e) => {
            eprintln!("error: cannot take over the terminal: {e}");
            return ExitReason::ConfigError.code();
        }
    };
    // A terminal that does not know its size says 0 × 0.
    let (columns, rows) = crossterm::terminal::size().ok().filter(|&(c, r)| c > 0 && r > 0).unwrap_or((80, 24));
    let mut screen = Screen::new(Box::new(std::io::stdout()), columns.into(), rows.into());
    screen.colour = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    screen.open();
    let editor = Editor::with_history(args.data_dir.join("history"));
    let view = View::new(screen, editor, changes, plan.launcher.settings.kind.to_string(), plan.launcher.model.clone());
    let resumed = plan.resumed.clone();
    let id = plan.session_id(&openagent_runner::new_run_id(runtime.now_ms()));
    let running = match plan.start(&id, || Report::to(Output::Silent, None), |builder| Ok(builder.hooks(hooks.clone()))) {
        Ok(running) => running,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitReason::ConfigError.code();
        }
    };
    let mut state = State {
        running,
        view,
        data_dir: args.data_dir.clone(),
        limits: args.limits.clone(),
        stored: false,
        resuming: false,
        last_exit: None,
        question,
        hooks,
        armed: false,
        leaving: Default::default(),
        queued: first_task.map(Next::Task).into_iter().collect(),
        effort: None,
    };
    if let Some(resumed) = &resumed {
        state.taken_up(resumed);
    }
    state.view.context.1 = state.window();
    state.welcome();

    let mut keys = terminal_events();
    let mut signals = openagent_host::signals::interrupts().ok();
    loop {
        let next = match state.queued.pop_front() {
            Some(next) => next,
            None => runtime.block_on(state.prompt(&mut keys, signals.as_mut())),
        };
        match next {
            Next::Quit => break,
            Next::Command(name, arg) => state.command(name, &arg, &runtime, &mut keys, signals.as_mut()),
            Next::Task(task) => state.task(task, &runtime, &mut keys, signals.as_mut()),
        }
        if state.leaving.get() {
            break;
        }
    }
    state.quit(&runtime);
    0
}

/// A session of `agent` with the screen's hooks: a new one, or one continuing `restore`.
fn build(
    agent: &Launcher,
    hooks: &Rc<diff::DiffHooks>,
    id: &str,
    config: openagent_core::session::SessionConfig,
    restore: Option<openagent_core::session::SessionSnapshot>,
) -> Session {
    agent.build(agent.builder(id, config).hooks(hooks.clone()), restore)
}

/// The terminal's events, from a thread (reading blocks); key releases are left out. The
/// channel closes when the terminal hangs up, which crossterm does not report: it would read
/// nothing from it forever, as fast as it can.
fn terminal_events() -> UnboundedReceiver<Outside> {
    let (tx, rx) = unbounded();
    stderr::capture(tx.clone());
    std::thread::spawn(move || {
        while !hung_up() {
            match crossterm::event::poll(std::time::Duration::from_millis(200)) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(_) => break,
            }
            let Ok(event) = crossterm::event::read() else { break };
            if matches!(&event, Event::Key(key) if key.kind == KeyEventKind::Release) {
                continue;
            }
            if tx.unbounded_send(Outside::Term(event)).is_err() {
                break;
            }
        }
        // Said, as the channel stays open while stderr's reader holds it.
        let _ = tx.unbounded_send(Outside::Gone);
    });
    rx
}

/// Whether the terminal on stdin has hung up.
fn hung_up() -> bool {
    let mut status = libc::pollfd { fd: libc::STDIN_FILENO, events: libc::POLLIN, revents: 0 };
    // SAFETY: poll(2) on one live pollfd, without waiting.
    let polled = unsafe { libc::poll(&mut status, 1, 0) };
    polled < 0 || status.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0
}

fn ctrl(key: &KeyEvent, c: char) -> bool {
    key.code == KeyCode::Char(c) && key.modifiers.contains(KeyModifiers::CONTROL)
}

impl State {
    fn welcome(&mut self) {
        let mut line = Line::styled("OpenAgent ", text::bold());
        line.push(
            format!(
                "· {} · {} · {} · approval {}",
                self.running.launcher.settings.kind,
                self.running.launcher.model,
                self.running.launcher.cwd.display(),
                self.running.launcher.policy.mode.name()
            ),
            text::dim(),
        );
        let hint = Line::styled(
            "Type a task and press Enter; /help lists the commands. While it runs, what you type steers it.",
            text::dim(),
        );
        self.view.screen.lines(vec![line, hint]);
        self.view.draw();
    }

    /// The model's context window, when known.
    fn window(&self) -> Option<u64> {
        let configured = self.running.session.config().context_window.map(|tokens| tokens as u64);
        configured.or_else(|| self.running.launcher.catalog.get(&self.running.launcher.model).map(|info| info.context_window))
    }

    /// Waits at the prompt for a task, a command, or the end.
    async fn prompt(&mut self, keys: &mut UnboundedReceiver<Outside>, mut signals: Option<&mut UnboundedReceiver<i32>>) -> Next {
        loop {
            self.view.draw();
            let signal = async {
                match signals.as_deref_mut() {
                    Some(signals) => signals.next().await,
                    None => futures::future::pending().await,
                }
            };
            let event = match futures::future::select(keys.next(), Box::pin(signal)).await {
                futures::future::Either::Left((Some(Outside::Term(event)), _)) => event,
                futures::future::Either::Left((Some(Outside::Said(line)), _)) => {
                    self.view.screen.note(Color::DarkGrey, "·", &line);
                    continue;
                }
                // The terminal is gone, or a SIGTERM or SIGHUP asks the session to end.
                futures::future::Either::Left((None | Some(Outside::Gone), _)) => return Next::Quit,
                futures::future::Either::Right((Some(signal), _)) if signal != libc::SIGINT => return Next::Quit,
                futures::future::Either::Right(_) => Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            };
            let key = match event {
                Event::Key(key) => key,
                Event::Paste(text) => {
                    self.view.editor.paste(&text);
                    continue;
                }
                Event::Resize(columns, rows) => {
                    self.view.screen.resize(columns.into(), rows.into());
                    continue;
                }
                _ => continue,
            };
            let was_armed = std::mem::take(&mut self.armed);
            self.view.screen.live.notice = None;
            if ctrl(&key, 'o') {
                self.view.toggle_output(None);
                continue;
            }
            match self.view.editor.key(key, &self.running.launcher.cwd) {
                Action::Submit(line) => match commands::parse(&line) {
                    Parsed::Task => return Next::Task(line),
                    Parsed::Command { name: "quit", .. } => return Next::Quit,
                    Parsed::Command { name, arg } => return Next::Command(name, arg.to_owned()),
                    Parsed::Unknown(message) => self.view.screen.note(Color::Red, "✗", &message),
                },
                Action::Interrupt if !self.view.editor.is_empty() => self.view.editor.clear(),
                Action::Interrupt if was_armed => return Next::Quit,
                Action::Interrupt => self.arm(),
                Action::Quit => return Next::Quit,
                Action::Edited | Action::None => {}
            }
        }
    }
}

fn help_lines() -> Vec<Line> {
    commands::help().into_iter().map(|line| Line::styled(line, text::dim())).collect()
}
