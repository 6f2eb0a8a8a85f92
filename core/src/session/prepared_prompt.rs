//! Beginning a session's system prompt before its first input. Spec 6.3 builds the prompt once,
//! at the start; what it needs besides the input (the git snapshot's commands, the project's
//! instruction files) can start while the host does its own start-up work, so that the first
//! model call does not wait for the two in turn.

use std::future::Future;
use std::task::{Context, Poll};

use futures::future::{FutureExt, LocalBoxFuture};

use super::{Inner, Session};
use crate::profiles::PromptContext;
use crate::runtime::format_rfc3339;

/// A system prompt begun before the first input (without the result instructions, which the loop
/// adds): still being built, or built already.
pub(super) enum PendingPrompt {
    Building(LocalBoxFuture<'static, String>),
    Built(String),
}

impl PendingPrompt {
    pub(super) async fn finish(self) -> String {
        match self {
            Self::Building(building) => building.await,
            Self::Built(prompt) => prompt,
        }
    }
}

impl Session {
    /// Begins building the system prompt now, its commands started before this returns: a host
    /// calls it right after building the session, before its own start-up work (its store, its
    /// artifacts), which then runs beside them; the first input takes the prompt up where it got.
    /// Without it, the first input builds the prompt itself. Does nothing for a session whose
    /// prompt is built (a restored one) or begun.
    pub fn prepare_prompt(&self) {
        let inner = &self.inner;
        if inner.cache.borrow().prompt_built || inner.pending_prompt.borrow().is_some() {
            return;
        }
        let mut building = base_prompt(inner, self.now()).boxed_local();
        // One poll with nobody to wake: far enough to have started what it waits for (or to have
        // finished, without git). The first input polls it again with a waker of its own.
        let pending = match building.poll_unpin(&mut Context::from_waker(&futures::task::noop_waker())) {
            Poll::Ready(prompt) => PendingPrompt::Built(prompt),
            Poll::Pending => PendingPrompt::Building(building),
        };
        *inner.pending_prompt.borrow_mut() = Some(pending);
    }
}

/// The profile's system prompt for `inner`'s environment and user instructions, dated `now_ms`:
/// owned clones of what it needs, so that it can be kept across calls.
pub(super) fn base_prompt(inner: &Inner, now_ms: u64) -> impl Future<Output = String> + 'static {
    let (profile, env, user) = (inner.profile.clone(), inner.env.clone(), inner.user_instructions.clone());
    let today = format_rfc3339(now_ms)[..10].to_owned();
    async move {
        let ctx = PromptContext { env: &*env, today, user_instructions: user.as_deref() };
        profile.build_system_prompt(&ctx).await
    }
}
