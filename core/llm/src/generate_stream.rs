//! [`stream`], the streaming [`generate`](crate::generate) (spec 4.4, 5.9): the same options and
//! tool loop, but the caller reads each model call's events as they arrive. Between two steps,
//! once the tools ran, a [`StreamEvent::StepFinish`] carries their results; each step's own events
//! end with its `Finish`. Every failure (options that cannot be sent, a call that fails after its
//! retries, a timeout, a broken stream) ends the stream with one [`StreamEvent::Error`].
//!
//! Only opening a call is retried, never a stream that delivered data (spec 6.6). The per-step
//! timeout bounds a call from its opening to its last event and the total one the whole
//! operation, so a stream that stalls ends with a `RequestTimeout` error instead of hanging.
//! Cancelling is dropping the [`StreamResult`]: that drops the open stream and its connection.
//!
//! ```
//! use futures::executor::block_on;
//! use futures::StreamExt;
//! use openagent_llm::runtime::VirtualRuntime;
//! use openagent_llm::{stream, Generate, ScriptStep, ScriptedClient};
//!
//! let client = ScriptedClient::new([ScriptStep::text("Hello there.")]);
//! let runtime = VirtualRuntime::new(|_| {});
//! block_on(async {
//!     let mut text = String::new();
//!     let mut result = stream(&client, &runtime, Generate::new("m", "Say hello"));
//!     while let Some(event) = result.next().await {
//!         if let openagent_llm::StreamEvent::TextDelta { delta, .. } = event {
//!             text.push_str(&delta);
//!         }
//!     }
//!     assert_eq!(text, "Hello there.");
//!     assert_eq!(result.result().await.unwrap().text(), "Hello there.");
//! });
//! ```

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::{pin, Pin};
use std::rc::Rc;
use std::task::{Context, Poll};

use futures::future::{select, Either, LocalBoxFuture};
use futures::stream::{Fuse, LocalBoxStream};
use futures::{Stream, StreamExt};

use crate::client::{EventStream, LlmClient};
use crate::error::LlmError;
use crate::generate::{timed_out, Generate, GenerateResult, ToolLoop, MODEL_CALL, WHOLE_GENERATION};
use crate::retry::{retry, RetryPolicy};
use crate::runtime::Runtime;
use crate::stream::{StreamAccumulator, StreamEvent};
use crate::types::Response;

/// What [`stream`] gives back: the events of every step as they arrive, then the result.
pub struct StreamResult<'a> {
    events: Fuse<LocalBoxStream<'a, StreamEvent>>,
    outcome: Rc<RefCell<Option<Result<GenerateResult, LlmError>>>>,
}

impl<'a> StreamResult<'a> {
    /// Every step, as [`generate`](crate::generate) gives them, once the events not yet read are
    /// drained; or the error the stream ended with.
    pub async fn result(mut self) -> Result<GenerateResult, LlmError> {
        while self.events.next().await.is_some() {}
        let outcome = self.outcome.borrow_mut().take();
        outcome.expect("a stream sets its outcome before it ends")
    }

    /// The last step's response (spec 4.4's `response()`), once the stream is drained.
    pub async fn response(self) -> Result<Response, LlmError> {
        Ok(self.result().await?.last().response.clone())
    }

    /// Only the text deltas, of every step (spec 4.4's `text_stream`).
    pub fn text_stream(self) -> impl Stream<Item = String> + 'a {
        self.events.filter_map(|event| async move { event.text_delta().map(str::to_owned) })
    }
}

impl Stream for StreamResult<'_> {
    type Item = StreamEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<StreamEvent>> {
        self.events.poll_next_unpin(cx)
    }
}

/// Runs `options` on `client` like [`generate`](crate::generate), streaming: see the module.
pub fn stream<'a>(client: &'a dyn LlmClient, runtime: &'a dyn Runtime, options: Generate) -> StreamResult<'a> {
    let outcome = Rc::new(RefCell::new(None));
    let total = options.timeout.total_ms.map(|ms| Timer::new(runtime, ms, WHOLE_GENERATION));
    let (per_step_ms, policy) = (options.timeout.per_step_ms, options.retry.clone());
    let mut run =
        Run { client, runtime, per_step_ms, policy, total, step: None, outcome: outcome.clone(), queue: VecDeque::new() };
    let phase = match ToolLoop::new(options) {
        Ok(tool_loop) => Phase::Open(tool_loop),
        Err(error) => run.fail(error),
    };
    let events = futures::stream::unfold((run, phase), |(mut run, phase)| async move {
        let phase = run.advance(phase).await;
        run.queue.pop_front().map(|event| (event, (run, phase)))
    });
    StreamResult { events: events.boxed_local().fuse(), outcome }
}

/// Where the operation is.
enum Phase {
    /// The next call is to be opened.
    Open(ToolLoop),
    /// A call's events are being read.
    Read { tool_loop: ToolLoop, events: EventStream, acc: StreamAccumulator, failed: bool },
    /// The outcome is set; only queued events remain.
    Done,
}

/// A timeout's sleep, started once and polled until it fires.
struct Timer {
    sleep: LocalBoxFuture<'static, ()>,
    ms: u64,
    what: &'static str,
}

impl Timer {
    fn new(runtime: &dyn Runtime, ms: u64, what: &'static str) -> Self {
        Self { sleep: runtime.sleep(ms), ms, what }
    }
}

/// The error of whichever timer fires first; never, without timers.
async fn expiry(total: &mut Option<Timer>, step: &mut Option<Timer>) -> LlmError {
    async fn fired(timer: &mut Option<Timer>) -> LlmError {
        match timer {
            Some(timer) => {
                (&mut timer.sleep).await;
                timed_out(timer.what, timer.ms)
            }
            None => futures::future::pending().await,
        }
    }
    match select(pin!(fired(total)), pin!(fired(step))).await {
        Either::Left((error, _)) | Either::Right((error, _)) => error,
    }
}

/// What the operation holds across its phases.
struct Run<'a> {
    client: &'a dyn LlmClient,
    runtime: &'a dyn Runtime,
    per_step_ms: Option<u64>,
    policy: RetryPolicy,
    total: Option<Timer>,
    /// The current call's timer, from its opening.
    step: Option<Timer>,
    outcome: Rc<RefCell<Option<Result<GenerateResult, LlmError>>>>,
    /// Events to hand out before going on.
    queue: VecDeque<StreamEvent>,
}

impl Run<'_> {
    /// `work`, or the timeout error when a timer fires first.
    async fn in_time<T>(&mut self, work: impl Future<Output = T>) -> Result<T, LlmError> {
        match select(pin!(work), pin!(expiry(&mut self.total, &mut self.step))).await {
            Either::Left((output, _)) => Ok(output),
            Either::Right((error, _)) => Err(error),
        }
    }

    /// Sets the outcome; an error is also the stream's last event.
    fn end(&self, outcome: Result<GenerateResult, LlmError>) -> Phase {
        self.outcome.borrow_mut().replace(outcome);
        Phase::Done
    }

    fn fail(&mut self, error: LlmError) -> Phase {
        self.queue.push_back(StreamEvent::Error { error: error.clone() });
        self.end(Err(error))
    }

    /// Moves on until an event is queued or the operation is done.
    async fn advance(&mut self, mut phase: Phase) -> Phase {
        while self.queue.is_empty() {
            phase = match phase {
                Phase::Done => return Phase::Done,
                Phase::Open(tool_loop) => self.open(tool_loop).await,
                Phase::Read { tool_loop, events, acc, failed } => self.read(tool_loop, events, acc, failed).await,
            };
        }
        phase
    }

    /// Opens the next call, retrying only its opening.
    async fn open(&mut self, tool_loop: ToolLoop) -> Phase {
        self.step = self.per_step_ms.map(|ms| Timer::new(self.runtime, ms, MODEL_CALL));
        let (client, runtime, policy) = (self.client, self.runtime, self.policy.clone());
        let opening = retry(&policy, runtime, || client.stream(&tool_loop.request));
        match self.in_time(opening).await {
            Ok(Ok(events)) => Phase::Read { tool_loop, events, acc: StreamAccumulator::new(), failed: false },
            Ok(Err(error)) | Err(error) => self.fail(error),
        }
    }

    /// Hands out the call's next event; at its end, records the step and runs its tools.
    async fn read(
        &mut self,
        mut tool_loop: ToolLoop,
        mut events: EventStream,
        mut acc: StreamAccumulator,
        failed: bool,
    ) -> Phase {
        match self.in_time(events.next()).await {
            Err(error) => self.fail(error),
            Ok(Some(event)) => {
                // Handed out as well as folded in: the stream's reader gets its own copy.
                acc.push(event.clone());
                let failed = failed || matches!(event, StreamEvent::Error { .. });
                self.queue.push_back(event);
                Phase::Read { tool_loop, events, acc, failed }
            }
            Ok(None) => {
                self.step = None;
                let response = match acc.finish(self.client.provider()) {
                    Ok(response) => response,
                    // The stream's own error event was handed out already.
                    Err(error) if failed => return self.end(Err(error)),
                    Err(error) => return self.fail(error),
                };
                match self.in_time(tool_loop.step(response)).await {
                    Err(error) => self.fail(error),
                    Ok(false) => self.end(Ok(tool_loop.result())),
                    Ok(true) => {
                        self.queue.push_back(StreamEvent::StepFinish { tool_results: tool_loop.last_results().to_vec() });
                        Phase::Open(tool_loop)
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "generate_stream_tests.rs"]
mod tests;
