//! The `Runtime` seam: time, sleeping and spawning come from the host.
//!
//! The core never reads a clock or starts a task by itself, because wasm32 in a browser has
//! neither a std clock nor threads. A host passes one `Runtime` to the session; tests pass
//! [`VirtualRuntime`], whose clock only moves when something sleeps.

use std::cell::Cell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;

/// Milliseconds since the Unix epoch, as the host's wall clock reports them.
pub type EpochMillis = u64;

/// What the core needs from the host's event loop. Futures need not be `Send`.
pub trait Runtime {
    /// Wall-clock time, in milliseconds since the Unix epoch.
    fn now_ms(&self) -> EpochMillis;
    /// A future that completes after `ms` milliseconds.
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()>;
    /// Run `task` concurrently on the host's local executor.
    fn spawn_local(&self, task: LocalBoxFuture<'static, ()>);
}

/// `work`'s output, or `None` once `ms` have passed on `runtime`'s timer (`work` is dropped then).
pub async fn timeout<T>(runtime: &dyn Runtime, ms: u64, work: impl std::future::Future<Output = T>) -> Option<T> {
    futures::pin_mut!(work);
    match futures::future::select(work, runtime.sleep(ms)).await {
        futures::future::Either::Left((output, _)) => Some(output),
        futures::future::Either::Right(_) => None,
    }
}

/// A limit on silence over a series of waits (a response's head, then each chunk of its body)
/// that keeps one timer for the series: a wait that outlasts `ms` ends in `None`. A timer for each
/// wait cost a browser a promise, a closure and two timer calls a chunk; this one is armed once,
/// and when it fires early (the waits before took part of its time) it is armed again for the rest.
pub struct Silence<'r> {
    runtime: &'r dyn Runtime,
    ms: u64,
    /// The timer, armed when the series began or when it last fired early.
    timer: LocalBoxFuture<'static, ()>,
}

impl<'r> Silence<'r> {
    pub fn new(runtime: &'r dyn Runtime, ms: u64) -> Self {
        Self { runtime, ms, timer: runtime.sleep(ms) }
    }

    /// The longest a wait may take.
    pub fn ms(&self) -> u64 {
        self.ms
    }

    /// `work`'s output, or `None` once `ms` have passed since this wait began (`work` is dropped then).
    pub async fn wait<T>(&mut self, work: impl std::future::Future<Output = T>) -> Option<T> {
        let began = self.runtime.now_ms();
        futures::pin_mut!(work);
        loop {
            match futures::future::select(&mut work, &mut self.timer).await {
                futures::future::Either::Left((output, _)) => return Some(output),
                futures::future::Either::Right(((), _)) => {
                    let waited = self.runtime.now_ms().saturating_sub(began);
                    self.timer = self.runtime.sleep(self.ms.saturating_sub(waited));
                    if waited >= self.ms {
                        return None;
                    }
                }
            }
        }
    }
}

/// A deterministic runtime for tests and examples: the clock starts at a fixed instant and advances
/// only by what is slept, and sleeping completes at once. Spawned tasks are driven by the
/// `spawner` the host of the test gives (for example a `futures::executor::LocalSpawner`).
pub struct VirtualRuntime {
    now: Rc<Cell<EpochMillis>>,
    spawner: Box<dyn Fn(LocalBoxFuture<'static, ()>)>,
}

impl VirtualRuntime {
    /// 2025-01-01T00:00:00Z: a fixed start so that event timestamps are reproducible.
    pub const START: EpochMillis = 1_735_689_600_000;

    pub fn new(spawner: impl Fn(LocalBoxFuture<'static, ()>) + 'static) -> Self {
        Self { now: Rc::new(Cell::new(Self::START)), spawner: Box::new(spawner) }
    }

    /// Move the clock forward by hand.
    pub fn advance(&self, ms: u64) {
        self.now.set(self.now.get() + ms);
    }
}

impl Runtime for VirtualRuntime {
    fn now_ms(&self) -> EpochMillis {
        self.now.get()
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let now = self.now.clone();
        Box::pin(async move { now.set(now.get() + ms) })
    }

    fn spawn_local(&self, task: LocalBoxFuture<'static, ()>) {
        (self.spawner)(task)
    }
}

/// Formats epoch milliseconds as an RFC 3339 UTC timestamp with millisecond precision,
/// e.g. `2025-01-01T00:00:00.000Z`.
pub fn format_rfc3339(ms: EpochMillis) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3600, rem / 60 % 60, rem % 60, ms % 1000)
}

/// Days since 1970-01-01 to a (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_rfc3339(VirtualRuntime::START), "2025-01-01T00:00:00.000Z");
        assert_eq!(format_rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(format_rfc3339(4_102_444_799_999), "2099-12-31T23:59:59.999Z");
    }

    /// A clock that moves only when a timer is polled: a timer set for `ms` moves it to the
    /// instant it was set for (if not there yet) and completes; every timer set is logged.
    #[derive(Default)]
    struct Deadlines {
        now: Rc<Cell<EpochMillis>>,
        set: std::cell::RefCell<Vec<u64>>,
    }

    impl Runtime for Deadlines {
        fn now_ms(&self) -> EpochMillis {
            self.now.get()
        }

        fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
            self.set.borrow_mut().push(ms);
            let (now, due) = (self.now.clone(), self.now.get() + ms);
            Box::pin(async move { now.set(now.get().max(due)) })
        }

        fn spawn_local(&self, _: LocalBoxFuture<'static, ()>) {}
    }

    #[test]
    fn a_silence_allows_each_wait_its_whole_time_with_one_timer_while_none_runs_out() {
        let clock = Deadlines::default();
        let mut silence = Silence::new(&clock, 1000);
        for step in 1..=3 {
            assert_eq!(futures::executor::block_on(silence.wait(async { step })), Some(step));
            clock.now.set(clock.now.get() + 300);
        }
        assert_eq!(*clock.set.borrow(), [1000], "waits that end in time share the first timer");
        // 900 ms after the timer was set, a wait that never ends: the timer fires 100 ms in,
        // is set again for the 900 left, and the wait ends a whole second after it began.
        assert_eq!(futures::executor::block_on(silence.wait(futures::future::pending::<()>())), None);
        assert_eq!(clock.now.get(), 900 + 1000);
        assert_eq!(clock.set.borrow()[..2], [1000, 900]);
        // The series goes on after a wait that ran out: the next one gets its whole time again.
        assert_eq!(futures::executor::block_on(silence.wait(futures::future::pending::<()>())), None);
        assert_eq!(clock.now.get(), 1900 + 1000);
        assert_eq!(futures::executor::block_on(silence.wait(async { "late" })), Some("late"));
    }

    #[test]
    fn virtual_clock_moves_only_by_sleep() {
        let rt = VirtualRuntime::new(|_| {});
        let start = rt.now_ms();
        futures::executor::block_on(rt.sleep(1500));
        assert_eq!(rt.now_ms(), start + 1500);
    }
}
