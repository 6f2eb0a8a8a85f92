//! A session's start and end: the `session_start` event (with the warnings a restore left), the
//! close with its `session_end` event and hooks, and the hooks' runner.

use futures::channel::oneshot;

use super::{EventData, Session, SessionStatus};
use crate::hooks::{HookEvent, HookInput, HookOutcome};

impl Session {
    pub(super) fn start(&self) {
        if !self.inner.started.replace(true) {
            self.emit(EventData::SessionStart {
                provider: self.inner.profile.id().to_owned(),
                model: self.inner.profile.model().to_owned(),
                working_directory: self.inner.env.working_directory(),
            });
            let warnings = std::mem::take(&mut *self.inner.pending_warnings.borrow_mut());
            for message in warnings {
                self.emit(EventData::Warning { message });
            }
        }
    }

    /// Waits until the session is closed and its `session_end` hooks have finished: what a
    /// host awaits before it exits. Returns at once when the session is open or has no hooks.
    pub async fn ended(&self) {
        let end = self.inner.end_hooks.borrow_mut().take();
        if let Some(end) = end {
            let _ = end.await;
        }
    }

    pub(super) fn shut_down(&self, reason: &str) {
        if self.status() == SessionStatus::Closed {
            return;
        }
        self.start();
        self.inner.status.set(SessionStatus::Closed);
        self.close_subagents();
        self.emit(EventData::SessionEnd { state: SessionStatus::Closed, reason: reason.to_owned() });
        if self.inner.hooks.is_some() && self.inner.depth == 0 {
            // Closing is synchronous; the hooks run as a task of their own, awaited by `ended`.
            let (done, end) = oneshot::channel();
            *self.inner.end_hooks.borrow_mut() = Some(end);
            let session = self.clone();
            let event = HookEvent::SessionEnd { reason: reason.to_owned() };
            self.inner.runtime.spawn_local(Box::pin(async move {
                session.hook(event).await;
                let _ = done.send(());
            }));
        }
    }

    /// Runs the host's hooks for `event` and reports the ones that failed as warnings.
    pub(super) async fn hook(&self, event: HookEvent) -> HookOutcome {
        let Some(hooks) = &self.inner.hooks else {
            return HookOutcome::default();
        };
        let input = HookInput { session_id: self.inner.id.to_string(), cwd: self.inner.env.working_directory(), event };
        let outcome = hooks.run(&input).await;
        for message in &outcome.failures {
            self.emit(EventData::Warning { message: message.clone() });
        }
        outcome
    }
}
