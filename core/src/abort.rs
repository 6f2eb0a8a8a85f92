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
    pub fn guard<F: Future>(&self, work: F) -> Guarded<F> {
        Guarded { work, signals: [Some(self.clone()), None] }
    }

    /// Completes once aborted, and otherwise has `cx` woken when it is.
    fn poll_aborted(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.state.borrow_mut();
        if state.aborted {
            return Poll::Ready(());
        }
        if !state.waiters.iter().any(|w| w.will_wake(cx.waker())) {
            state.waiters.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

pin_project_lite::pin_project! {
    /// The future of [`AbortSignal::guard`]: the work itself and the signals it races, no more.
    /// (Nesting async guards kept a copy of the work's future at each level: a session's tool
    /// round was a 6 KB future, copied as it was handed down.)
    pub struct Guarded<F> {
        #[pin]
        work: F,
        signals: [Option<AbortSignal>; 2],
    }
}

impl<F: Future> Guarded<F> {
    /// The same work, also stopped by `signal`.
    pub fn or(mut self, signal: AbortSignal) -> Self {
        self.signals[1] = Some(signal);
        self
    }
}

impl<F: Future> Future for Guarded<F> {
    type Output = Option<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let signals = || this.signals.iter().flatten();
        if signals().any(AbortSignal::is_aborted) {
            return Poll::Ready(None);
        }
        if let Poll::Ready(value) = this.work.poll(cx) {
            return Poll::Ready(Some(value));
        }
        match signals().any(|signal| signal.poll_aborted(cx).is_ready()) {
            true => Poll::Ready(None),
            false => Poll::Pending,
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
        self.signal.poll_aborted(cx)
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
    fn a_guard_with_two_signals_stops_at_either_and_holds_the_work_once() {
        let (first, second) = (AbortSignal::new(), AbortSignal::new());
        let work = async { [0u8; 1000] };
        let guarded = first.guard(work).or(second.clone());
        // The work's future, two signals and an array's slack: no copy of the work per signal.
        assert!(std::mem::size_of_val(&guarded) < 1100, "{}", std::mem::size_of_val(&guarded));
        let (result, ()) = block_on(join(first.guard(pending::<()>()).or(second.clone()), async { second.abort() }));
        assert_eq!(result, None);
        assert_eq!(block_on(first.guard(async { 7 }).or(AbortSignal::new())), Some(7));
        first.abort();
        assert_eq!(
            block_on(AbortSignal::new().guard(async { 7 }).or(first)),
            None,
            "an aborted signal stops work before it starts"
        );
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
