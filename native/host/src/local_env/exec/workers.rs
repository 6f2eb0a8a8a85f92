//! The threads that supervise commands, kept for the next command once theirs has ended rather
//! than made anew for each: a thread's start (its stack mapped, and unmapped at its end, which
//! in a process with several threads interrupts every other core) is a tenth of a short
//! command's cost. An idle worker ends after [`IDLE_FOR`].
//!
//! A command's parent-death signal fires when the thread that forked it ends: a worker ends only
//! while idle, so never while a command it started runs.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// How long a worker waits for another command before it ends.
const IDLE_FOR: Duration = Duration::from_secs(30);

type Job = Box<dyn FnOnce() + Send>;

/// The idle workers, each by the sender of its next job; the last to have finished is taken first.
static IDLE: Mutex<Vec<(u64, Sender<Job>)>> = Mutex::new(Vec::new());

fn idle() -> std::sync::MutexGuard<'static, Vec<(u64, Sender<Job>)>> {
    // Only pushed to and taken from: a panic cannot leave it half-changed.
    IDLE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `job` on an idle worker, or on a new one when none is idle.
pub(super) fn run(job: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    let mut job: Job = Box::new(job);
    loop {
        let Some((_, worker)) = idle().pop() else { break };
        match worker.send(job) {
            Ok(()) => return Ok(()),
            // It ended between its last look and now: the next one, or a new one.
            Err(mpsc::SendError(returned)) => job = returned,
        }
    }
    std::thread::Builder::new().name("openagent-command".into()).spawn(move || work(job)).map(drop)
}

fn work(first: Job) {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (sender, jobs): (Sender<Job>, Receiver<Job>) = mpsc::channel();
    let mut job = first;
    loop {
        job();
        idle().push((id, sender.clone()));
        job = match jobs.recv_timeout(IDLE_FOR) {
            Ok(next) => next,
            Err(RecvTimeoutError::Timeout) => {
                let mut idle = idle();
                match idle.iter().position(|(worker, _)| *worker == id) {
                    Some(at) => {
                        idle.remove(at);
                        return;
                    }
                    // Taken just as the wait ended: its job is on the way.
                    None => {
                        drop(idle);
                        match jobs.recv() {
                            Ok(next) => next,
                            Err(_) => return,
                        }
                    }
                }
            }
            Err(RecvTimeoutError::Disconnected) => return,
        };
    }
}
