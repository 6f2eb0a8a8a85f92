//! [`join_all`]: several futures at once, their outputs in order.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::Poll;

/// Runs `futures` concurrently and returns their outputs in their order. Each wake polls every
/// unfinished future: fine for a round of tool calls. futures_util's `join_all` does the same up
/// to 30 futures and switches to a `FuturesOrdered` beyond, whose task queue and heap the browser
/// bundle carried for that branch alone.
pub(crate) async fn join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut running: Vec<Option<Pin<Box<F>>>> = futures.into_iter().map(|future| Some(Box::pin(future))).collect();
    let mut outputs: Vec<Option<F::Output>> = running.iter().map(|_| None).collect();
    poll_fn(|cx| {
        let mut finished = true;
        for (slot, output) in running.iter_mut().zip(&mut outputs) {
            let Some(future) = slot else { continue };
            match future.as_mut().poll(cx) {
                Poll::Ready(value) => {
                    *output = Some(value);
                    *slot = None;
                }
                Poll::Pending => finished = false,
            }
        }
        if finished {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::cell::RefCell;
    use std::task::Context;

    use futures::channel::oneshot;
    use futures::task::noop_waker_ref;
    use futures::FutureExt;

    use super::*;

    #[test]
    fn outputs_come_in_the_futures_order_whatever_order_they_finish_in() {
        let finished = RefCell::new(Vec::new());
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..3).map(|_| oneshot::channel::<u32>()).unzip();
        let waiting = receivers.into_iter().enumerate().map(|(i, receiver)| {
            let finished = &finished;
            async move {
                let value = receiver.await.unwrap_or_default();
                finished.borrow_mut().push(i);
                value
            }
        });
        let mut joined = Box::pin(join_all(waiting));
        let mut cx = Context::from_waker(noop_waker_ref());
        assert!(joined.as_mut().poll(&mut cx).is_pending());
        let mut senders: Vec<_> = senders.into_iter().map(Some).collect();
        // The last is released first and the first last; the join ends with the last of them.
        for (i, value) in [(2, 30), (0, 10), (1, 20)] {
            assert!(joined.as_mut().poll(&mut cx).is_pending());
            let _ = senders[i].take().map(|sender| sender.send(value));
        }
        assert_eq!(joined.as_mut().poll(&mut cx), Poll::Ready(vec![10, 20, 30]));
        assert_eq!(*finished.borrow(), [2, 0, 1]);
    }

    #[test]
    fn no_futures_join_at_once() {
        let none: Vec<std::future::Ready<u8>> = Vec::new();
        assert_eq!(join_all(none).now_or_never(), Some(Vec::new()));
    }
}
