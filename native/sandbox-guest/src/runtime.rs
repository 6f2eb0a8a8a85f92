//! [`GuestRuntime`]: the core's `Runtime` seam inside a single-threaded WASI guest.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::executor::LocalSpawner;
use futures::future::LocalBoxFuture;
use futures::task::LocalSpawnExt;
use openagent_core::runtime::{EpochMillis, Runtime};

/// The clock is WASI's (`std::time` works on wasip1); a sleep blocks the guest's only thread,
/// which is all there is to do while the agent waits; spawned tasks go to the guest's
/// `LocalPool`.
pub struct GuestRuntime {
    spawner: LocalSpawner,
}

impl GuestRuntime {
    pub fn new(spawner: LocalSpawner) -> Self {
        Self { spawner }
    }
}

impl Runtime for GuestRuntime {
    fn now_ms(&self) -> EpochMillis {
        SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as EpochMillis)
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        Box::pin(async move { std::thread::sleep(Duration::from_millis(ms)) })
    }

    fn spawn_local(&self, task: LocalBoxFuture<'static, ()>) {
        // Fails only once the pool is gone, that is when the run is over.
        let _ = self.spawner.spawn_local(task);
    }
}
