//! One timer thread for all of a runtime's sleeps: deadlines wait in a binary heap, and the thread
//! sleeps on a condition variable until the earliest one is due, then completes its oneshot. So a
//! thousand pending sleeps cost one thread, and a sleep never blocks its caller.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use futures::channel::oneshot;

pub(crate) struct Timer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    due: BinaryHeap<Reverse<Entry>>,
    /// Breaks ties between equal deadlines, so sleeps of equal length finish in the order made.
    next_seq: u64,
    stop: bool,
}

struct Entry {
    deadline: Instant,
    seq: u64,
    done: oneshot::Sender<()>,
}

impl Timer {
    /// # Panics
    /// If the operating system refuses to start the timer thread.
    pub(crate) fn new() -> Self {
        let shared = Arc::new(Shared::default());
        let worker = shared.clone();
        let thread = thread::Builder::new()
            .name("openagent-timer".into())
            .spawn(move || worker.run())
            .expect("the operating system refused to start the timer thread");
        Self { shared, thread: Some(thread) }
    }

    /// A receiver that completes after `duration` (or is cancelled if the timer stops first).
    pub(crate) fn after(&self, duration: Duration) -> oneshot::Receiver<()> {
        let (done, fired) = oneshot::channel();
        let deadline = Instant::now() + duration;
        let mut state = self.shared.lock();
        let seq = state.next_seq;
        state.next_seq += 1;
        state.due.push(Reverse(Entry { deadline, seq, done }));
        drop(state);
        self.shared.changed.notify_one();
        fired
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.changed.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The lock guards a plain heap that no panic can leave half-changed.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn run(&self) {
        let mut state = self.lock();
        while !state.stop {
            let now = Instant::now();
            while state.due.peek().is_some_and(|Reverse(entry)| entry.deadline <= now) {
                if let Some(Reverse(entry)) = state.due.pop() {
                    let _ = entry.done.send(()); // the sleeper may have gone: nothing to do
                }
            }
            state = match state.due.peek() {
                Some(Reverse(entry)) => {
                    let wait = entry.deadline.saturating_duration_since(now);
                    self.changed.wait_timeout(state, wait).unwrap_or_else(PoisonError::into_inner).0
                }
                None => self.changed.wait(state).unwrap_or_else(PoisonError::into_inner),
            };
        }
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.deadline, self.seq).cmp(&(other.deadline, other.seq))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Entry {}
