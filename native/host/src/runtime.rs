//! [`NativeRuntime`]: the core's `Runtime` seam on a thread-local executor, with `futures-timer`'s
//! sleeps (one timer thread for the whole process).

use std::cell::RefCell;
use std::future::Future;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::executor::{LocalPool, LocalSpawner};
use futures::future::LocalBoxFuture;
use futures::task::LocalSpawnExt;
use openagent_core::runtime::{EpochMillis, Runtime};

/// Time from the system clock, sleeps from `futures-timer`'s timer thread, and spawned tasks on a
/// `futures` `LocalPool` that this runtime owns.
///
/// Nothing runs by itself: the host drives the pool with [`NativeRuntime::block_on`], which runs
/// the given future and every spawned task until that future completes. Sleeps wake the pool from
/// the timer thread, so a waiting `block_on` uses no CPU. A runtime dropped drops its pending
/// tasks with their sleeps.
///
/// ```
/// use std::rc::Rc;
/// use openagent_core::Runtime;
/// use openagent_host::NativeRuntime;
///
/// let runtime = Rc::new(NativeRuntime::new());
/// let rt = runtime.clone();
/// let answer = runtime.block_on(async move {
///     rt.sleep(5).await;
///     42
/// });
/// assert_eq!(answer, 42);
/// ```
pub struct NativeRuntime {
    pool: RefCell<LocalPool>,
    spawner: LocalSpawner,
    /// A clock that reads this instant forever, for reproducible output.
    pinned: Option<EpochMillis>,
}

impl NativeRuntime {
    pub fn new() -> Self {
        let pool = LocalPool::new();
        let spawner = pool.spawner();
        Self { pool: RefCell::new(pool), spawner, pinned: None }
    }

    /// A runtime whose clock always reads `at` (sleeps still take real time), so timestamps and
    /// durations in events are the same on every run of the same inputs.
    pub fn with_pinned_clock(mut self, at: EpochMillis) -> Self {
        self.pinned = Some(at);
        self
    }

    /// Runs `future` to completion on this thread, driving spawned tasks meanwhile.
    ///
    /// # Panics
    /// If called from inside a future this runtime is already driving: `.await` it there instead.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        let mut pool = self.pool.try_borrow_mut().expect("NativeRuntime::block_on cannot be nested; await the future instead");
        pool.run_until(future)
    }
}

impl Default for NativeRuntime {
    fn default() -> Self {
        Self::new()
    }
}

/// The system clock in milliseconds since the epoch; a clock set before 1970 reads as the epoch
/// rather than failing.
pub fn system_now_ms() -> EpochMillis {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as EpochMillis)
}

impl Runtime for NativeRuntime {
    fn now_ms(&self) -> EpochMillis {
        self.pinned.unwrap_or_else(system_now_ms)
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        Box::pin(futures_timer::Delay::new(Duration::from_millis(ms)))
    }

    fn spawn_local(&self, task: LocalBoxFuture<'static, ()>) {
        // Spawning fails only once the pool is gone, and the pool lives as long as `self`.
        let _ = self.spawner.spawn_local(task);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::time::Instant;

    use futures::channel::oneshot;
    use futures::future::join_all;

    use super::*;

    #[test]
    fn now_is_the_system_clock() {
        let before = SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970").as_millis() as u64;
        let now = NativeRuntime::new().now_ms();
        assert!(now >= before && now < before + 60_000, "{now} vs {before}");
    }

    #[test]
    fn sleeps_finish_in_deadline_order_and_not_early() {
        let rt = NativeRuntime::new();
        let order = Rc::new(RefCell::new(Vec::new()));
        let start = Instant::now();
        let sleeps = [60, 20, 40, 20].map(|ms| {
            let (sleep, order) = (rt.sleep(ms), order.clone());
            async move {
                sleep.await;
                order.borrow_mut().push(ms);
            }
        });
        rt.block_on(join_all(sleeps));
        assert_eq!(*order.borrow(), [20, 20, 40, 60]);
        assert!(start.elapsed() >= Duration::from_millis(60));
    }

    #[test]
    fn a_pending_long_sleep_blocks_nothing() {
        let rt = Rc::new(NativeRuntime::new());
        let long = rt.sleep(3_600_000);
        rt.spawn_local(Box::pin(long));
        rt.block_on(rt.sleep(10));
    }

    #[test]
    fn spawned_tasks_run_while_the_host_blocks_on() {
        let rt = Rc::new(NativeRuntime::new());
        let (tx, rx) = oneshot::channel();
        let inner = rt.clone();
        rt.spawn_local(Box::pin(async move {
            inner.sleep(5).await;
            let _ = tx.send("done");
        }));
        assert_eq!(rt.block_on(rx), Ok("done"));
    }
}
