//! Approval questions asked inline: the call is shown (the command, or the edit as a diff) in
//! the live part of the screen, and one key answers: `y` yes, `n` or Esc no, `a` always.

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use crossterm::event::KeyCode;
use crossterm::style::{Color, Stylize};
use futures::channel::oneshot;
use openagent_core::approval::{Approval, ApprovalRequest, Approver};
use serde_json::Value;

use super::diff::{self, FileChange};
use super::text::{bold, dim, fg, Line};
use openagent_runner::approval::denied;
use openagent_runner::wording::main_argument;

/// Lines of a command or a file's content shown in a question.
const PREVIEW_LINES: usize = 12;

/// The open question, if any, shared by the approver and the key handler.
#[derive(Clone, Default)]
pub struct Question(Rc<RefCell<Option<Open>>>);

struct Open {
    lines: Vec<Line>,
    answer: oneshot::Sender<Approval>,
    /// `n` was pressed: the input line is now the reason, which the model reads.
    reason: bool,
}

impl Question {
    /// What the screen shows for it; nothing when no question is open.
    pub fn lines(&self) -> Vec<Line> {
        self.0.borrow().as_ref().map(|open| open.lines.clone()).unwrap_or_default()
    }

    pub fn is_open(&self) -> bool {
        self.0.borrow().as_ref().is_some_and(|open| !open.answer.is_canceled())
    }

    /// After `n`: the question waits for a reason typed in the input.
    pub fn wants_reason(&self) -> bool {
        self.is_open() && self.0.borrow().as_ref().is_some_and(|open| open.reason)
    }

    /// Answers the open question with `key`: `y`, `a`, Esc (no, with no reason) or `n`, after
    /// which the input takes the reason.
    pub fn key(&self, key: KeyCode) {
        let approval = match key {
            KeyCode::Char('y' | 'Y') => Approval::Allow,
            KeyCode::Char('a' | 'A') => Approval::AllowAlways,
            KeyCode::Esc => denied(""),
            KeyCode::Char('n' | 'N') => {
                if let Some(open) = self.0.borrow_mut().as_mut() {
                    open.reason = true;
                    open.lines.pop();
                    open.lines.push(Line::styled(
                        "  Why not? Type it and press Enter (told to the model; Enter alone for no reason)",
                        fg(Color::Yellow),
                    ));
                }
                return;
            }
            _ => return,
        };
        self.answer(approval);
    }

    /// The reason typed after `n`: the call is denied with it.
    pub fn deny(&self, reason: &str) {
        self.answer(denied(reason));
    }

    fn answer(&self, approval: Approval) {
        if let Some(open) = self.0.borrow_mut().take() {
            let _ = open.answer.send(approval);
        }
    }
}

pub struct TuiApprover {
    pub question: Question,
}

#[async_trait(?Send)]
impl Approver for TuiApprover {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        let (answer, reply) = oneshot::channel();
        let mut title = Line::styled("? ", bold().with(Color::Yellow));
        let outside = if request.outside_sandbox { " outside the sandbox" } else { "" };
        title.push(format!("Allow {}{outside}", request.tool_name), bold());
        title.push(format!(" {}", main_argument(&request.arguments)), Default::default());
        let mut lines = vec![title, Line::styled(format!("  {}", request.reason), dim())];
        lines.extend(preview(&request.tool_name, &request.arguments));
        // Running outside the sandbox asks every time: there is no "always" to offer.
        let keys = match request.outside_sandbox {
            true => Line::styled("  [y]es  [n]o", fg(Color::Yellow)),
            false => {
                let mut keys = Line::styled("  [y]es  [n]o  [a]lways", fg(Color::Yellow));
                keys.push(format!(" for {}", request.always.describe()), dim());
                keys
            }
        };
        lines.push(keys);
        *self.question.0.borrow_mut() = Some(Open { lines, answer, reason: false });
        reply.await.unwrap_or(Approval::Deny(Some("the question was not answered".into())))
    }
}

/// What the call would do: an edit as a diff of its strings, a write's first lines, a command
/// whole (up to a few lines).
fn preview(tool: &str, arguments: &Value) -> Vec<Line> {
    let text = |key: &str| arguments.get(key).and_then(Value::as_str);
    let path = text("file_path").or_else(|| text("path")).unwrap_or("").to_owned();
    match (tool, text("old_string"), text("new_string"), text("content")) {
        ("edit_file", Some(old), Some(new), _) => {
            let change = FileChange { path, before: Some(old.to_owned()), after: Some(new.to_owned()) };
            diff::render(&change, 200).into_iter().skip(1).collect()
        }
        ("write_file", _, _, Some(content)) => numbered(content),
        _ => match text("command").or_else(|| text("patch")) {
            Some(body) if body.contains('\n') => numbered(body),
            _ => Vec::new(),
        },
    }
}

fn numbered(body: &str) -> Vec<Line> {
    let total = body.lines().count();
    let mut lines: Vec<Line> = body.lines().take(PREVIEW_LINES).map(|line| Line::styled(format!("  │ {line}"), dim())).collect();
    if total > PREVIEW_LINES {
        lines.push(Line::styled(format!("  │ … {} more lines", total - PREVIEW_LINES), dim()));
    }
    lines
}
