//! [`Turns`]: a client's requests go one at a time.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::task::{Poll, Waker};

/// An async lock around nothing: whoever holds the [`Turn`] goes, the others wait for it.
/// (futures' `Mutex<()>` did this with a slab of waiters, 0.9 KB raw of the browser bundle.)
#[derive(Default)]
pub(crate) struct Turns {
    taken: Cell<bool>,
    waiting: RefCell<Vec<Waker>>,
}

/// The turn, until dropped.
pub(crate) struct Turn<'a>(&'a Turns);

impl Turns {
    /// Waits until no one else has the turn, then takes it.
    pub(crate) async fn take(&self) -> Turn<'_> {
        poll_fn(|cx| {
            if self.taken.replace(true) {
                self.waiting.borrow_mut().push(cx.waker().clone());
                Poll::Pending
            } else {
                Poll::Ready(Turn(self))
            }
        })
        .await
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.0.taken.set(false);
        // Every waiter is woken and tries again, in the order they came: the first polled takes
        // the turn, and one that was dropped meanwhile (its request timed out) strands no one.
        for waker in self.0.waiting.take() {
            waker.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::future::Future;
    use std::pin::pin;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::task::{Context, Wake};

    use futures::task::noop_waker_ref;

    use super::*;

    #[derive(Default)]
    struct Woken(AtomicBool);

    impl Wake for Woken {
        fn wake(self: Arc<Self>) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[test]
    fn one_holder_at_a_time_and_a_dropped_waiter_strands_no_one() {
        let turns = Turns::default();
        let mut cx = Context::from_waker(noop_waker_ref());
        let Poll::Ready(first) = pin!(turns.take()).as_mut().poll(&mut cx) else { panic!("a free turn is taken at once") };
        // A second waits, then gives up (dropped); a third waits behind both.
        let mut second = Box::pin(turns.take());
        assert!(second.as_mut().poll(&mut cx).is_pending());
        let woken = Arc::new(Woken::default());
        let third_waker = woken.clone().into();
        let mut third_cx = Context::from_waker(&third_waker);
        let mut third = pin!(turns.take());
        assert!(third.as_mut().poll(&mut third_cx).is_pending());
        drop(second);
        assert!(!woken.0.load(Ordering::SeqCst));
        drop(first);
        assert!(woken.0.load(Ordering::SeqCst), "the one still waiting is woken when the turn is free");
        let Poll::Ready(third) = third.as_mut().poll(&mut third_cx) else { panic!("and takes it") };
        assert!(pin!(turns.take()).as_mut().poll(&mut cx).is_pending(), "which is then held");
        drop(third);
        assert!(pin!(turns.take()).as_mut().poll(&mut cx).is_ready());
    }
}
