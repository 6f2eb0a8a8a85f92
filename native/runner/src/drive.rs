//! The driver under every host: a session's events, the spinner's ticks and what comes from
//! outside (signals, typed lines, requests) as one stream of wakes, handed to the host while an
//! input runs.

use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;

use futures::channel::mpsc::UnboundedReceiver;
use futures::future::{select, Either};
use futures::stream::{self, LocalBoxStream};
use futures::StreamExt;
use openagent_core::runtime::Runtime;
use openagent_core::session::{SessionEvent, StopReason};
use openagent_core::{Session, SessionError};
use openagent_host::runtime::NativeRuntime;

use crate::human;

/// How long a run that was stopped waits for its cancelled commands to be gone before it kills
/// what is left: their own SIGTERM grace, and a little.
pub const COMMANDS_END_WITHIN: std::time::Duration = std::time::Duration::from_millis(2_500);

/// `work`, or an interrupted end as soon as `abandoned` is set: what a second signal gives, when
/// the first did not stop the input. Dropping `work` cancels its model call and its commands.
pub fn until_abandoned<'a>(
    work: impl Future<Output = Result<StopReason, SessionError>> + 'a,
    abandoned: &'a Cell<bool>,
) -> impl Future<Output = Result<StopReason, SessionError>> + 'a {
    let mut work = Box::pin(work);
    // `drive` polls the work again after every wake, so the flag is seen at the next poll.
    futures::future::poll_fn(move |cx| match abandoned.get() {
        true => std::task::Poll::Ready(Ok(StopReason::Interrupted)),
        false => work.as_mut().poll(cx),
    })
}

/// What wakes a running session's driver; `T` is what comes from outside the session while it
/// runs: a line typed in the terminal, a request over `openagent serve`'s API.
pub enum Wake<T> {
    Event(SessionEvent),
    /// Time to redraw the spinner.
    Tick,
    /// SIGINT (Ctrl-C), SIGTERM or SIGHUP.
    Signal,
    /// A line typed, or a request made, while the run goes on.
    Outside(T),
}

/// Runs `work` (an input, `session.submit(task)`, or a compaction) and hands every event,
/// spinner tick and `outside` wake (signals, typed lines) to `on_wake` until it is done, then
/// the events that came with the end.
pub async fn drive<T, R>(
    session: &Session,
    work: impl Future<Output = Result<R, SessionError>>,
    runtime: &Rc<NativeRuntime>,
    outside: LocalBoxStream<'_, Wake<T>>,
    mut on_wake: impl FnMut(Wake<T>),
) -> Result<R, SessionError> {
    let mut events = session.events();
    let ticks = stream::unfold(runtime.clone(), |runtime| async move {
        runtime.sleep(human::SPINNER_TICK.as_millis() as u64).await;
        Some((Wake::Tick, runtime))
    });
    let result = {
        let mut incoming = stream::select(stream::select(events.by_ref().map(Wake::Event), outside), ticks.boxed_local());
        let mut work = pin!(work);
        loop {
            match select(work.as_mut(), incoming.next()).await {
                Either::Left((result, _)) => break result,
                Either::Right((Some(wake), _)) => on_wake(wake),
                Either::Right((None, _)) => break work.await,
            }
        }
    };
    while let Some(event) = events.try_recv() {
        on_wake(Wake::Event(event));
    }
    result
}

/// Signals as wakes; none when they could not be taken over.
pub fn signal_wakes<'a, T: 'a>(signals: Option<&'a mut UnboundedReceiver<i32>>) -> LocalBoxStream<'a, Wake<T>> {
    match signals {
        Some(rx) => rx.map(|_| Wake::Signal).boxed_local(),
        None => stream::pending().boxed_local(),
    }
}

#[cfg(test)]
mod tests {
    use std::task::{Context, Poll};

    use super::*;

    /// The first signal aborted the session, but its input did not end (a step that does not see
    /// the abort): the second ends the input as interrupted, so `run_finished` is still written.
    #[test]
    fn a_second_signal_ends_an_input_the_first_did_not_stop() {
        let abandoned = Cell::new(false);
        let mut work = pin!(until_abandoned(futures::future::pending(), &abandoned));
        let mut cx = Context::from_waker(futures::task::noop_waker_ref());
        assert!(work.as_mut().poll(&mut cx).is_pending());
        abandoned.set(true);
        assert_eq!(work.as_mut().poll(&mut cx), Poll::Ready(Ok(StopReason::Interrupted)));
    }
}
