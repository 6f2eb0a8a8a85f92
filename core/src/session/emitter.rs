//! How events reach their subscribers: a queue per subscription, on the session's thread. A
//! channel that can cross threads allocated, locked and freed a node for every event, a fifth of
//! a tool round; a session never leaves its thread, and neither do its events.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures::stream::{FusedStream, Stream};

use super::events::SessionEvent;

/// Fans events out to every subscriber; a subscriber that went away is dropped. When the last
/// session that emits through it is gone, every subscription ends.
#[derive(Default)]
pub(crate) struct Emitter {
    subscribers: RefCell<Vec<Rc<Queue>>>,
}

#[derive(Default)]
struct Queue {
    events: RefCell<VecDeque<SessionEvent>>,
    /// The task waiting for the next event.
    waker: Cell<Option<Waker>>,
    /// No event will come any more.
    ended: Cell<bool>,
}

impl Queue {
    fn push(&self, event: SessionEvent) {
        self.events.borrow_mut().push_back(event);
        self.wake();
    }

    /// The next event. A queue that held many (a host that fell behind) gives its room back once
    /// it is empty.
    fn pop(&self) -> Option<SessionEvent> {
        let mut events = self.events.borrow_mut();
        let event = events.pop_front();
        if events.is_empty() && events.capacity() > 256 {
            *events = VecDeque::new();
        }
        event
    }

    fn wake(&self) {
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
    }
}

impl Emitter {
    pub fn subscribe(&self) -> Events {
        let queue = Rc::new(Queue::default());
        self.subscribers.borrow_mut().push(queue.clone());
        Events { queue }
    }

    pub fn emit(&self, event: SessionEvent) {
        let mut subscribers = self.subscribers.borrow_mut();
        // The subscription holds the other reference: alone here, it was dropped.
        subscribers.retain(|queue| Rc::strong_count(queue) > 1);
        if let Some((last, others)) = subscribers.split_last() {
            for queue in others {
                queue.push(event.clone());
            }
            last.push(event);
        }
    }
}

impl Drop for Emitter {
    fn drop(&mut self) {
        for queue in self.subscribers.get_mut() {
            queue.ended.set(true);
            queue.wake();
        }
    }
}

/// A subscription to a session's events, in the order they were emitted: a [`Stream`] that
/// ends once the session (and every subagent) is gone.
pub struct Events {
    queue: Rc<Queue>,
}

impl Events {
    /// The next event already emitted, without waiting.
    pub fn try_recv(&mut self) -> Option<SessionEvent> {
        self.queue.pop()
    }
}

impl Drop for Events {
    /// The emitter lets the queue go at its next event; what waits in it goes now.
    fn drop(&mut self) {
        self.queue.events.take();
    }
}

impl Stream for Events {
    type Item = SessionEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<SessionEvent>> {
        let queue = &self.queue;
        if let Some(event) = queue.pop() {
            return Poll::Ready(Some(event));
        }
        if queue.ended.get() {
            return Poll::Ready(None);
        }
        queue.waker.set(Some(cx.waker().clone()));
        Poll::Pending
    }
}

impl FusedStream for Events {
    fn is_terminated(&self) -> bool {
        self.queue.ended.get() && self.queue.events.borrow().is_empty()
    }
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events").field("waiting", &self.queue.events.borrow().len()).finish()
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::future::Future;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    use futures::task::ArcWake;
    use futures::StreamExt;

    use super::*;
    use crate::session::EventData;

    fn warning(message: &str) -> SessionEvent {
        SessionEvent {
            timestamp: "2026-01-01T00:00:00.000Z".into(),
            session_id: "s".into(),
            data: EventData::Warning { message: message.into() },
        }
    }

    fn message(event: Option<SessionEvent>) -> Option<String> {
        match event?.data {
            EventData::Warning { message } => Some(message),
            _ => None,
        }
    }

    #[test]
    fn every_subscriber_gets_every_event_in_order_and_the_stream_ends_with_the_emitter() {
        let emitter = Emitter::default();
        let (mut first, mut second) = (emitter.subscribe(), emitter.subscribe());
        emitter.emit(warning("a"));
        emitter.emit(warning("b"));
        assert_eq!(message(first.try_recv()).as_deref(), Some("a"));
        drop(emitter);
        assert!(!first.is_terminated(), "an event is still waiting");
        let rest: Vec<_> = futures::executor::block_on(first.by_ref().map(|e| message(Some(e)).unwrap()).collect());
        assert_eq!(rest, ["b"]);
        assert!(first.is_terminated());
        assert_eq!(message(second.try_recv()).as_deref(), Some("a"));
        assert_eq!(message(second.try_recv()).as_deref(), Some("b"));
        assert!(second.try_recv().is_none());
    }

    #[test]
    fn a_waiting_subscriber_is_woken_and_a_dropped_one_is_let_go() {
        struct Flag(AtomicBool);
        impl ArcWake for Flag {
            fn wake_by_ref(flag: &Arc<Self>) {
                flag.0.store(true, Ordering::SeqCst);
            }
        }
        let emitter = Emitter::default();
        let mut events = emitter.subscribe();
        drop(emitter.subscribe());
        let woken = Arc::new(Flag(AtomicBool::new(false)));
        let waker = futures::task::waker(woken.clone());
        let mut next = events.next();
        assert!(Pin::new(&mut next).poll(&mut Context::from_waker(&waker)).is_pending());
        emitter.emit(warning("late"));
        assert!(woken.0.load(Ordering::SeqCst), "the waiting task is woken");
        assert_eq!(emitter.subscribers.borrow().len(), 1, "the dropped subscription is let go");
        assert_eq!(message(futures::executor::block_on(next)).as_deref(), Some("late"));
    }

    #[test]
    fn a_queue_gives_back_its_room_once_drained_and_when_dropped() {
        let emitter = Emitter::default();
        let mut events = emitter.subscribe();
        for _ in 0..1000 {
            emitter.emit(warning("backlog"));
        }
        let queue = events.queue.clone();
        assert!(queue.events.borrow().capacity() >= 1000);
        while events.try_recv().is_some() {}
        assert_eq!(queue.events.borrow().capacity(), 0, "drained, its room is given back");
        for _ in 0..1000 {
            emitter.emit(warning("again"));
        }
        drop(events);
        assert_eq!(queue.events.borrow().capacity(), 0, "dropped, nothing waits in it");
    }
}
