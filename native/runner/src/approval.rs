//! The native hosts' approvers: who answers when the approval policy says `ask`.
//! `openagent run` has no one to ask ([`CannotAsk`]); the interactive session asks on the
//! terminal ([`TerminalApprover`]); `openagent serve` asks its client over HTTP (serve/).

use std::cell::RefCell;
use std::io::{IsTerminal, Write};
use std::rc::Rc;

use async_trait::async_trait;
use futures::channel::oneshot;
use openagent_core::approval::{Approval, ApprovalRequest, Approver};

use crate::wording::main_argument;

/// Denies every `ask`, saying which flag or setting would allow the call: a run that nobody
/// watches must not wait for an answer.
pub struct CannotAsk;

#[async_trait(?Send)]
impl Approver for CannotAsk {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        // No rule lets a protected write through, so none is suggested for it.
        let how = match (request.outside_sandbox, request.protected) {
            (true, _) => {
                "Run with `--sandbox full-access` if the task needs it, or widen the sandbox \
                 (`--sandbox-network on`, `--writable-root DIR`)"
            }
            (false, true) => "Make this change yourself, or run with `--approval full-auto` if the task is to make it",
            (false, false) => {
                "Run with `--approval full-auto` (or `auto-edit` for file edits), or allow it with a rule in \
                 `permissions:` of the agent config"
            }
        };
        Approval::Deny(Some(format!("{}; this run cannot ask anyone, so it is denied. {how}", request.reason)))
    }
}

/// Where the interactive session's lines go while a question is open: the next line typed is
/// its answer, not steering.
#[derive(Clone, Default)]
pub struct PendingAnswer(Rc<RefCell<Option<oneshot::Sender<String>>>>);

impl PendingAnswer {
    /// Hands `line` to the open question, if one is waiting; gives it back otherwise.
    pub fn take_line(&self, line: String) -> Option<String> {
        match self.0.borrow_mut().take() {
            Some(tx) if !tx.is_canceled() => tx.send(line).err(),
            _ => Some(line),
        }
    }

    /// Whether a question waits for its answer now.
    pub fn is_open(&self) -> bool {
        self.0.borrow().as_ref().is_some_and(|tx| !tx.is_canceled())
    }

    async fn next_line(&self) -> Option<String> {
        let (tx, rx) = oneshot::channel();
        *self.0.borrow_mut() = Some(tx);
        rx.await.ok()
    }
}

/// Asks on the terminal: `y` allows, `n` denies (then asks for a reason, which the model
/// reads), `a` allows calls like this one for the rest of the session. Anything else asks again.
pub struct TerminalApprover {
    pub answers: PendingAnswer,
}

#[async_trait(?Send)]
impl Approver for TerminalApprover {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        let what = match main_argument(&request.arguments) {
            argument if argument.is_empty() => request.tool_name.clone(),
            argument => format!("{} {argument}", request.tool_name),
        };
        // On a terminal, first clear the spinner's frame from its line.
        let clear = if std::io::stderr().is_terminal() { "\r\x1b[2K" } else { "" };
        // Running outside the sandbox asks every time: there is no "always" to offer.
        let keys = match request.outside_sandbox {
            true => "Run it outside the sandbox? [y]es, [n]o: ".to_owned(),
            false => format!("Allow? [y]es, [n]o, [a]lways for {}: ", request.always.describe()),
        };
        say(&format!("{clear}\n? {what}\n  ({})\n  {keys}", request.reason));
        loop {
            let Some(line) = self.answers.next_line().await else {
                return Approval::Deny(Some("the question was not answered".into()));
            };
            match line.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" => return Approval::Allow,
                "a" | "always" => return Approval::AllowAlways,
                "n" | "no" => {
                    say("  Why not? (told to the model; Enter for no reason): ");
                    return denied(&self.answers.next_line().await.unwrap_or_default());
                }
                _ => say("  Please answer y (yes), n (no) or a (always): "),
            }
        }
    }
}

/// A person's no, with the reason they typed (none when blank), as the model reads it.
pub fn denied(reason: &str) -> Approval {
    let reason = reason.trim();
    Approval::Deny(Some(match reason.is_empty() {
        true => "the user denied this call".into(),
        false => format!("the user denied this call: {reason}"),
    }))
}

fn say(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}
