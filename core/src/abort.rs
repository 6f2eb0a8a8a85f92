//! Cooperative cancellation without an executor.
//!
//! An [`AbortSignal`] is shared between whoever may cancel (the host) and whatever runs (the loop,
//! tools). Waiting work races its own future against [`AbortSignal::aborted`]; losing the race drops
//! the work's future, which is how cancellation reaches an LLM stream or a running command (a
//! native environment kills the process group when its command future is dropped).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures::future::{select, Either};

#[derive(Default)]
struct State {
    aborted: bool,
    waiters: Vec<Waker>,
}

/// A cloneable, single-threaded cancellation flag that can be awaited.
#[derive(Clone, Default)]
pub struct AbortSignal {
    state: Rc<RefCell<State>>,
}

impl AbortSignal {
    pub fn new() -> Self {
        Self::default()
    }

    /// Signal cancellation and wake everything waiting on it. Idempotent.
    pub fn abort(&self) {
        let waiters = {
            let mut state = self.state.borrow_mut();
            state.aborted = true;
            std::mem::take(&mut state.waiters)
        };
        waiters.into_iter().for_each(Waker::wake);
    }

    pub fn is_aborted(&self) -> bool {
        self.state.borrow().aborted
    }

    /// Completes once [`abort`](Self::abort) has been called.
    pub fn aborted(&self) -> Aborted {
        Aborted { signal: self.clone() }
    }

    /// Runs `work` unless the signal fires first; `None` means it was aborted and `work` was dropped.
    pub async fn guard<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        if self.is_aborted() {
            return None;
        }
        let work = std::pin::pin!(work);
        match select(work, self.aborted()).await {
            Either::Left((value, _)) => Some(value),
            Either::Right(((), _)) => None,
        }
    }
}

/// The future returned by [`AbortSignal::aborted`].
pub struct Aborted {
    signal: AbortSignal,
}

impl Future for Aborted {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.signal.state.borrow_mut();
        if state.aborted {
            return Poll::Ready(());
        }
        if !state.waiters.iter().any(|w| w.will_wake(cx.waker())) {
            state.waiters.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use futures::executor::block_on;
    use futures::future::{join, pending};

    #[test]
    fn guard_runs_work_when_not_aborted() {
        let signal = AbortSignal::new();
        assert_eq!(block_on(signal.guard(async { 7 })), Some(7));
    }

    #[test]
    fn guard_drops_pending_work_when_aborted() {
        let signal = AbortSignal::new();
        let canceller = signal.clone();
        let (result, ()) = block_on(join(signal.guard(pending::<()>()), async move { canceller.abort() }));
        assert_eq!(result, None);
        assert!(signal.is_aborted());
    }
}
