//! What the session's events look like on the screen: the streamed answer, one compact line per
//! tool call (numbered: its output opens and closes with `/tools N`, the last one's with Ctrl-O),
//! each edit's diff, notes, the spinner and the status line.

use std::collections::HashMap;
use std::time::Instant;

use crossterm::style::{Color, Stylize};
use openagent_core::llm::Usage;
use openagent_core::session::{Decision, EventData, SessionEvent};

use super::diff::Changes;
use super::editor::Editor;
use super::screen::{thinking_heading, thought, Block, Screen};
use super::text::{bold, dim, fg, Line};
use openagent_runner::wording::{first_line, main_argument, summary, tool_detail};
use openagent_runner::RunEnd;

/// Output lines shown when a tool call is opened.
const OPENED_LINES: usize = 200;
/// Calls `/tools` lists, the latest.
const LISTED_CALLS: usize = 30;

/// A finished tool call, kept to be opened: what it was, and the start of its output.
struct Finished {
    /// `✓` or `✗`.
    mark: &'static str,
    title: String,
    head: Vec<String>,
    lines: usize,
}

impl Finished {
    fn new(mark: &'static str, title: String, output: &str) -> Self {
        let head = output.lines().take(OPENED_LINES).map(str::to_owned).collect();
        Self { mark, title, head, lines: output.lines().count() }
    }

    /// Its output as an opened block, call `number`.
    fn opened(&self, number: usize) -> Vec<Line> {
        let mut lines = vec![Line::styled(format!("┌ #{number} {}", self.title), dim())];
        lines.extend(self.head.iter().map(|line| Line::styled(format!("│ {line}"), dim())));
        match self.lines.checked_sub(self.head.len()).filter(|&more| more > 0) {
            Some(more) => lines.push(Line::styled(format!("└ … {more} more lines"), dim())),
            None => lines.push(Line::styled("└", dim())),
        }
        lines
    }
}

pub struct View {
    pub screen: Screen,
    pub editor: Editor,
    pub changes: Changes,
    /// Each started call's main argument.
    calls: HashMap<String, String>,
    /// Tools running now.
    running: usize,
    /// The response being streamed has streamed its thinking (so its end need not show it).
    thought: bool,
    /// Every finished call of the screen, numbered from 1, to be opened.
    finished: Vec<Finished>,
    /// The call whose output is open, by number.
    opened: Option<usize>,
    /// The session the events are of; the others are its subagents.
    pub root: Option<String>,
    /// For the status line.
    pub provider: String,
    pub model: String,
    pub usage: Usage,
    /// The prompt of the last model call, against the window.
    pub context: (u64, Option<u64>),
}

impl View {
    pub fn new(screen: Screen, editor: Editor, changes: Changes, provider: String, model: String) -> Self {
        Self {
            screen,
            editor,
            changes,
            calls: HashMap::new(),
            running: 0,
            thought: false,
            finished: Vec::new(),
            opened: None,
            root: None,
            provider,
            model,
            usage: Usage::default(),
            context: (0, None),
        }
    }

    pub fn draw(&mut self) {
        self.screen.live.status = self.status();
        self.screen.draw(self.editor.text(), self.editor.cursor(), &self.editor.offered);
    }

    fn wait(&mut self, label: &str) {
        self.screen.live.waiting = Some((label.to_owned(), Instant::now()));
    }

    /// The status line: provider and model, tokens, context use, cost, and what is running.
    pub fn status(&self) -> String {
        let mut parts = vec![format!("{} · {}", self.provider, self.model)];
        if self.usage.total_tokens > 0 {
            parts.push(format!("{} tokens", short(self.usage.total_tokens)));
        }
        match self.context {
            (used, Some(window)) if used > 0 && window > 0 => {
                parts.push(format!("{}% of {} context", used * 100 / window, short(window)));
            }
            (used, _) if used > 0 => parts.push(format!("{} in context", short(used))),
            _ => {}
        }
        if let Some(cost) = self.usage.cost_usd {
            parts.push(openagent_runner::models::dollars(cost));
        }
        if let Some((label, _)) = &self.screen.live.waiting {
            parts.push(label.clone());
        }
        parts.join(" · ")
    }

    pub fn event(&mut self, event: &SessionEvent) {
        let root = self.root.get_or_insert_with(|| event.session_id.to_string());
        let own = *root == event.session_id;
        let who = if own { String::new() } else { format!("[{}] ", short_id(&event.session_id)) };
        match &event.data {
            EventData::TurnStart { .. } => self.wait("thinking"),
            EventData::AssistantReasoningDelta { delta } if own => {
                self.thought = true;
                self.screen.think(delta);
            }
            EventData::AssistantTextDelta { delta } if own => {
                if self.screen.live.waiting.as_ref().is_none_or(|(label, _)| label != "writing") {
                    self.wait("writing");
                }
                self.screen.stream(delta);
            }
            EventData::AssistantTextEnd { reasoning, total_usage, usage, .. } => {
                if own {
                    self.screen.end_stream();
                    self.usage = total_usage.clone();
                    self.context.0 = usage.input_tokens;
                }
                // A subagent's thinking is shown whole, at its end: its deltas would cut into the
                // answer being streamed.
                let streamed = own && std::mem::take(&mut self.thought);
                if let Some(reasoning) = reasoning.as_deref().filter(|r| !r.trim().is_empty() && !streamed) {
                    let mut block = vec![thinking_heading(&who)];
                    block.extend(thought(reasoning));
                    self.screen.lines(block);
                }
                if self.running == 0 {
                    self.screen.live.waiting = None;
                }
            }
            EventData::ToolCallStart { call_id, arguments, .. } => {
                self.calls.insert(call_id.clone(), main_argument(arguments));
            }
            EventData::ToolDecision { decision: Decision::Allow, tool_name, .. } => {
                self.running += 1;
                self.wait(&format!("running {tool_name}"));
            }
            EventData::ToolCallOutputDelta { delta, .. } => {
                if let Some(last) = delta.lines().rev().find(|line| !line.trim().is_empty()) {
                    if let Some((label, _)) = &mut self.screen.live.waiting {
                        let tool = label.split(" · ").next().unwrap_or("").to_owned();
                        *label = format!("{tool} · {}", first_line(last, 100));
                    }
                }
            }
            EventData::ToolCallEnd { call_id, tool_name, output, error, duration_ms } => {
                self.running = self.running.saturating_sub(1);
                if self.running == 0 {
                    self.screen.live.waiting = None;
                }
                let argument = self.calls.remove(call_id).unwrap_or_default();
                let (color, mark) = if error.is_some() { (Color::Red, "✗") } else { (Color::Green, "✓") };
                let mut line = Line::styled(format!("{who}{mark} "), fg(color));
                line.push(tool_name.clone(), bold());
                line.push(format!(" {argument} "), Default::default());
                line.push(tool_detail(output.as_deref(), error.as_deref(), *duration_ms), dim());
                line.push(format!(" · #{}", self.finished.len() + 1), dim());
                self.screen.lines(vec![line]);
                for change in self.changes.take(call_id) {
                    self.screen.push(Block::Diff(change));
                }
                let text = error.as_deref().or(output.as_deref()).unwrap_or("");
                self.finished.push(Finished::new(mark, format!("{tool_name} {argument}"), text));
            }
            EventData::ProviderRetry { attempt, delay_ms, message, .. } => {
                let seconds = *delay_ms as f64 / 1000.0;
                self.screen.note(Color::Yellow, "↻", &format!("{message}; retry {attempt} in {seconds:.1}s"));
                self.wait("waiting to retry");
            }
            EventData::TurnLimit { limit, count } => {
                self.screen.note(Color::Yellow, "■", &format!("stopped: {limit} reached ({count})"));
            }
            EventData::LoopDetection { message } | EventData::Warning { message } => {
                self.screen.note(Color::Yellow, "!", message);
            }
            EventData::SteeringInjected { content } => self.screen.note(Color::Magenta, "→", &format!("steering: {content}")),
            EventData::CompactionStart { context_window, .. } => {
                self.context.1 = Some(*context_window);
                self.wait("compacting the conversation");
            }
            EventData::CompactionEnd { tokens_before, tokens_after, summarized_turns, kept_turns, error, .. } => {
                self.screen.live.waiting = None;
                let text = match error {
                    Some(error) => format!("the conversation was not compacted: {error}"),
                    None if *summarized_turns == 0 => "nothing old enough to compact yet".to_owned(),
                    None => format!(
                        "compacted: {tokens_before} → {tokens_after} tokens ({summarized_turns} turns summarised, {kept_turns} kept)"
                    ),
                };
                self.context.0 = *tokens_after;
                self.screen.note(Color::Cyan, "⇣", &text);
            }
            _ => {}
        }
    }

    /// Opens the output of call `number` (the last one when `None`) under the transcript, or
    /// closes it if it is the one open. One is open at a time.
    pub fn toggle_output(&mut self, number: Option<usize>) {
        let Some(number) = number.or(Some(self.finished.len()).filter(|&n| n > 0)) else {
            self.screen.note(Color::DarkGrey, "·", "no tool output yet");
            return;
        };
        let Some(call) = number.checked_sub(1).and_then(|index| self.finished.get(index)) else {
            let message = format!("there is no tool call #{number}: /tools lists them");
            self.screen.note(Color::Red, "✗", &message);
            return;
        };
        let lines = call.opened(number);
        if let Some(open) = self.opened.take() {
            self.screen.close_output(open);
            if open == number {
                return;
            }
        }
        self.screen.push(Block::Output(number, lines));
        self.opened = Some(number);
    }

    /// `/tools`: the calls so far, the latest last.
    pub fn tool_list(&self) -> Vec<Line> {
        if self.finished.is_empty() {
            return vec![Line::styled("  no tool calls yet", dim())];
        }
        let skipped = self.finished.len().saturating_sub(LISTED_CALLS);
        let mut lines: Vec<Line> = self.finished[skipped..]
            .iter()
            .enumerate()
            .map(|(index, call)| {
                let mut line = Line::styled(format!("  #{:<4}", skipped + index + 1), dim());
                line.push(format!("{} ", call.mark), Default::default());
                line.push(call.title.clone(), Default::default());
                line.push(format!(" · {} lines", call.lines), dim());
                line
            })
            .collect();
        lines.push(Line::styled("  /tools N opens or closes call N's output; Ctrl-O the last one's", dim()));
        lines
    }

    /// The input's end: the summary line, or the error.
    pub fn finish(&mut self, end: &RunEnd) {
        self.screen.end_stream();
        self.screen.live.waiting = None;
        (self.running, self.thought) = (0, false);
        let summary = summary(end);
        match &end.error {
            None if end.ok() => self.screen.note(Color::Green, "✓", &summary),
            None => self.screen.note(Color::Yellow, "■", &summary),
            Some(error) => {
                self.screen.note(Color::Red, "✗", &summary);
                self.screen.note(Color::Red, " ", &format!("error: {error}"));
            }
        }
    }
}

/// A paste longer than this many lines, or characters, is echoed collapsed.
const ECHO_MAX_LINES: usize = 20;
const ECHO_MAX_CHARS: usize = 2000;
/// Lines of a collapsed paste echoed before the count of the rest.
const ECHO_HEAD: usize = 5;

/// The input as the transcript echoes it: its lines as they were typed; a large paste by its
/// first lines and how many more there were (the model gets it all).
pub fn echo(task: &str) -> Vec<Line> {
    let lines: Vec<&str> = task.lines().collect();
    let collapsed = lines.len() > ECHO_MAX_LINES || task.chars().count() > ECHO_MAX_CHARS;
    let shown = if collapsed { ECHO_HEAD.min(lines.len()) } else { lines.len() };
    let mut echoed: Vec<Line> = lines[..shown]
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let mut row = Line::styled(if index == 0 { "› " } else { "  " }, bold().with(Color::Cyan));
            match collapsed && line.chars().count() > ECHO_MAX_CHARS / ECHO_HEAD {
                true => row.push(format!("{}…", line.chars().take(ECHO_MAX_CHARS / ECHO_HEAD).collect::<String>()), bold()),
                false => row.push(*line, bold()),
            }
            row
        })
        .collect();
    if collapsed {
        let (count, characters) = (lines.len(), task.chars().count());
        let lines = if count == 1 { "1 line".to_owned() } else { format!("{count} lines") };
        echoed.push(Line::styled(format!("  [… pasted {lines}, {characters} characters]"), dim()));
    }
    echoed
}

/// `12.3k`, `1.2M`.
fn short(n: u64) -> String {
    match n {
        0..1000 => n.to_string(),
        1000..1_000_000 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

fn short_id(id: &str) -> &str {
    id.rsplit(['/', ':']).next().unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(Line::text).collect()
    }

    #[test]
    fn a_task_is_echoed_with_its_line_breaks_and_a_large_paste_collapsed() {
        assert_eq!(texts(&echo("fix this:\n  indented\nthen that")), ["› fix this:", "    indented", "  then that"]);
        let pasted: String = (1..=300).map(|n| format!("line {n} of the paste\n")).collect();
        let echoed = texts(&echo(&pasted));
        assert_eq!(echoed.len(), ECHO_HEAD + 1, "{echoed:?}");
        assert_eq!(echoed[0], "› line 1 of the paste");
        assert_eq!(echoed[ECHO_HEAD], format!("  [… pasted 300 lines, {} characters]", pasted.chars().count()));
        let one_long_line = "x".repeat(5000);
        let echoed = texts(&echo(&one_long_line));
        assert_eq!(echoed, [format!("› {}…", "x".repeat(400)), "  [… pasted 1 line, 5000 characters]".into()]);
    }
}
