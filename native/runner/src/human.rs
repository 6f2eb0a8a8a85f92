//! Human output: the model's text streamed on stdout, everything else on stderr (one compact
//! line per tool call, warnings, the closing summary, and a spinner while the model or a tool is
//! working), so `openagent run "…" > answer.txt` captures just the answer. The spinner and
//! colours appear only on a terminal; `NO_COLOR` turns colours off.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::rc::Rc;
use std::time::{Duration, Instant};

use openagent_core::session::{Decision, EventData, SessionEvent};

use crate::approval::PendingAnswer;
use crate::projection::RunEnd;
use crate::stdout::Stdout;
use crate::terminal::terminal_text;
use crate::wording::{main_argument, summary, tool_detail};

const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// How often the spinner moves.
pub const SPINNER_TICK: Duration = Duration::from_millis(80);

/// What the spinner shows, shared with the task that redraws it.
#[derive(Default)]
struct Spinner {
    /// What is being waited for, and since when.
    waiting: Option<(String, Instant)>,
    frame: usize,
    /// A frame is on screen and must be cleared before anything else is written.
    drawn: bool,
}

pub struct Human {
    color: bool,
    /// The spinner is drawn only when stderr is a terminal.
    spinner: Option<Rc<RefCell<Spinner>>>,
    /// stdout's last byte was not a newline.
    mid_line: bool,
    /// Tools running now, to keep the spinner up until the last one ends.
    running: usize,
    /// Each started call's main argument, for its line when it ends.
    calls: HashMap<String, String>,
    /// The interactive session's open question, if any: the spinner keeps off its line.
    question: Option<PendingAnswer>,
    /// The answer's way out, which says whether it failed.
    pub stdout: Stdout,
}

impl Human {
    /// Colours and spinner as the terminal (and `NO_COLOR`) allow.
    pub fn detect() -> Self {
        let stderr_tty = std::io::stderr().is_terminal();
        let color = stderr_tty
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            && std::env::var("TERM").as_deref() != Ok("dumb");
        let spinner = stderr_tty.then(|| Rc::new(RefCell::new(Spinner::default())));
        Self { color, spinner, mid_line: false, running: 0, calls: HashMap::new(), question: None, stdout: Stdout::default() }
    }

    /// Draws no spinner while `question` is open: its frame would overwrite the prompt.
    pub fn pause_for(&mut self, question: PendingAnswer) {
        self.question = Some(question);
    }

    /// Redraws the spinner; the run calls it every `SPINNER_TICK`. Returns false once there
    /// is no spinner to draw (not a terminal), so the caller can stop ticking.
    pub fn tick(&self) -> bool {
        let Some(spinner) = &self.spinner else { return false };
        let mut spinner = spinner.borrow_mut();
        if self.question.as_ref().is_some_and(PendingAnswer::is_open) {
            // The prompt cleared the frame's line and is there now: nothing to clear later.
            spinner.drawn = false;
            return true;
        }
        let Some((label, since)) = spinner.waiting.clone() else { return true };
        spinner.frame = (spinner.frame + 1) % FRAMES.len();
        let seconds = since.elapsed().as_secs_f32();
        let line = format!("\r\x1b[2K{} {label} {seconds:.0}s", self.paint("36", FRAMES[spinner.frame]));
        spinner.drawn = eprint_flush(&line);
        true
    }

    pub fn event(&mut self, event: &SessionEvent) {
        match &event.data {
            EventData::TurnStart { .. } => self.wait("thinking"),
            EventData::AssistantTextDelta { delta } => {
                self.clear_spinner();
                self.stdout.write(&terminal_text(delta));
                if let Some(last) = delta.chars().last() {
                    self.mid_line = last != '\n';
                }
            }
            EventData::AssistantTextEnd { .. } => {
                self.end_line();
                self.stop_waiting();
            }
            EventData::ToolDecision { decision: Decision::Allow, tool_name, .. } => {
                self.running += 1;
                self.wait(&format!("running {tool_name}"));
            }
            EventData::ToolCallStart { call_id, arguments, .. } => {
                self.calls.insert(call_id.clone(), main_argument(arguments));
            }
            EventData::ToolCallEnd { call_id, tool_name, output, error, duration_ms } => {
                self.running = self.running.saturating_sub(1);
                if self.running == 0 {
                    self.stop_waiting();
                }
                let argument = self.calls.remove(call_id).unwrap_or_default();
                self.tool_line(tool_name, &argument, output.as_deref(), error.as_deref(), *duration_ms);
            }
            EventData::ProviderRetry { attempt, delay_ms, message, .. } => {
                let seconds = *delay_ms as f64 / 1000.0;
                self.note("33", "↻", &format!("{message}; retry {attempt} in {seconds:.1}s"));
                self.wait("waiting to retry");
            }
            EventData::TurnLimit { limit, count } => self.note("33", "■", &format!("stopped: {limit} reached ({count})")),
            EventData::LoopDetection { message } | EventData::Warning { message } => self.note("33", "!", message),
            EventData::SteeringInjected { content } => self.note("35", "→", &format!("steering: {content}")),
            EventData::CompactionStart { .. } => self.wait("compacting the conversation"),
            EventData::CompactionEnd { tokens_before, tokens_after, summarized_turns, kept_turns, error, .. } => {
                self.stop_waiting();
                match error {
                    Some(error) => self.note("33", "!", &format!("the conversation was not compacted: {error}")),
                    None if *summarized_turns == 0 => self.note("36", "⇣", "nothing old enough to compact yet"),
                    None => self.note(
                        "36",
                        "⇣",
                        &format!(
                            "compacted: {tokens_before} → {tokens_after} tokens ({summarized_turns} turns summarised, {kept_turns} kept)"
                        ),
                    ),
                }
            }
            _ => {}
        }
    }

    /// The closing line on stderr: what happened, or the error.
    pub fn finish(&mut self, end: &RunEnd) {
        self.end_line();
        self.stop_waiting();
        if let Some(data) = &end.result_data {
            // The structured result is the run's answer: stdout, pretty, after any text.
            let pretty = serde_json::to_string_pretty(data).expect("a JSON value serialises");
            self.stdout.write(&(terminal_text(&pretty) + "\n"));
        }
        let summary = summary(end);
        match &end.error {
            None if end.ok() => self.note("32", "✓", &summary),
            None => {
                self.note("33", "■", &summary);
                // Why a run without an error still failed: the give-up reason, the attempts spent.
                let why = end.outcome.as_ref().map(|outcome| outcome.summary.as_str()).filter(|why| !why.is_empty());
                if let Some(why) = why {
                    self.note("33", " ", why);
                }
            }
            Some(error) => {
                self.note("31", "✗", &summary);
                self.note("31", " ", &format!("error: {error}"));
            }
        }
    }

    /// A run that could not start.
    pub fn fatal(&mut self, message: &str) {
        self.note("31", "✗", &format!("error: {message}"));
    }

    /// The one line for a finished tool call: its mark, name, main argument and time; a failure
    /// adds the first line of its error.
    fn tool_line(&mut self, tool: &str, argument: &str, output: Option<&str>, error: Option<&str>, duration_ms: u64) {
        let (code, mark) = if error.is_some() { ("31", "✗") } else { ("32", "✓") };
        let detail = tool_detail(output, error, duration_ms);
        let (tool, argument, detail) = (terminal_text(tool), terminal_text(argument), terminal_text(&detail));
        let text = format!("{} {argument} {}", self.paint("1", &tool), self.paint("2", &detail));
        self.line(code, mark, &text);
    }

    /// A line on stderr; `text` may come from the model, a tool or the provider.
    fn note(&mut self, code: &str, mark: &str, text: &str) {
        self.line(code, mark, &terminal_text(text));
    }

    /// A line on stderr whose `text` is fit for the terminal already (painted, say).
    fn line(&mut self, code: &str, mark: &str, text: &str) {
        self.end_line();
        self.clear_spinner();
        eprint_flush(&format!("{} {text}\n", self.paint(code, mark)));
    }

    fn wait(&mut self, label: &str) {
        if let Some(spinner) = &self.spinner {
            spinner.borrow_mut().waiting = Some((terminal_text(label).into_owned(), Instant::now()));
        }
    }

    fn stop_waiting(&mut self) {
        self.clear_spinner();
        if let Some(spinner) = &self.spinner {
            spinner.borrow_mut().waiting = None;
        }
    }

    fn clear_spinner(&self) {
        if let Some(spinner) = &self.spinner {
            if std::mem::take(&mut spinner.borrow_mut().drawn) {
                eprint_flush("\r\x1b[2K");
            }
        }
    }

    /// Ends the streamed text's line before anything else is written.
    fn end_line(&mut self) {
        if std::mem::take(&mut self.mid_line) {
            self.stdout.write("\n");
        }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

/// Writes to stderr now; says whether it worked.
fn eprint_flush(text: &str) -> bool {
    let mut err = std::io::stderr().lock();
    err.write_all(text.as_bytes()).and_then(|()| err.flush()).is_ok()
}
