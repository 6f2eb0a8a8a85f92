//! Retries with exponential backoff and jitter (unified-llm-spec 6.6), above the codecs. Sleeping
//! goes through the host's [`Runtime`], so tests use a virtual clock and browsers use timers.
//!
//! What is retried: a call that failed with a retryable error before any response data arrived.
//! A stream that already delivered events is never retried; its error reaches the caller as the
//! stream's last event. Authentication and other client errors are never retried.

use std::future::Future;
use std::rc::Rc;

use async_trait::async_trait;

use super::client::{EventStream, LlmClient};
use super::error::LlmError;
use super::types::{Request, Response};
use crate::runtime::Runtime;

/// Called before each retry with the error, the retry number (1-based) and the delay in seconds.
pub type OnRetry = Rc<dyn Fn(&LlmError, u32, f64)>;

/// How often and how patiently to retry (spec 6.6 defaults).
#[derive(Clone)]
pub struct RetryPolicy {
    /// Retries after the first attempt; 0 disables retrying.
    pub max_retries: u32,
    /// Seconds before the first retry.
    pub base_delay: f64,
    /// No single wait is longer; a provider asking for more is not retried.
    pub max_delay: f64,
    pub backoff_multiplier: f64,
    /// Multiply each delay by a random factor in [0.5, 1.5).
    pub jitter: bool,
    pub on_retry: Option<OnRetry>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self { max_retries: 2, base_delay: 1.0, max_delay: 60.0, backoff_multiplier: 2.0, jitter: true, on_retry: None }
    }
}

impl RetryPolicy {
    /// The wait before retry `n` (0-based) of `error`, or `None` when it must not be retried.
    pub fn delay(&self, n: u32, error: &LlmError) -> Option<f64> {
        if !error.retryable || n >= self.max_retries {
            return None;
        }
        if let Some(asked) = error.retry_after {
            // The provider knows best, unless it asks for longer than we are willing to wait.
            return (asked <= self.max_delay).then_some(asked);
        }
        let backoff = (self.base_delay * self.backoff_multiplier.powi(n as i32)).min(self.max_delay);
        Some(if self.jitter { backoff * (0.5 + random_unit()) } else { backoff })
    }
}

/// A uniform random number in [0, 1).
fn random_unit() -> f64 {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        return 0.5; // no entropy: no jitter, but still the right backoff
    }
    (u64::from_le_bytes(bytes) >> 11) as f64 / (1u64 << 53) as f64
}

/// Spec 6.6's standalone `retry()`: `attempt`, made again after each failure that `policy` retries,
/// waiting on `runtime` between attempts. The high-level functions retry each model call through
/// it; a low-level caller composes it by hand (or wraps its client in a [`RetryingClient`]).
pub async fn retry<T, F: Future<Output = Result<T, LlmError>>>(
    policy: &RetryPolicy,
    runtime: &dyn Runtime,
    mut attempt: impl FnMut() -> F,
) -> Result<T, LlmError> {
    let mut n = 0;
    loop {
        let error = match attempt().await {
            Err(error) => error,
            done => return done,
        };
        let Some(seconds) = policy.delay(n, &error) else { return Err(error) };
        if let Some(on_retry) = &policy.on_retry {
            on_retry(&error, n + 1, seconds);
        }
        runtime.sleep((seconds * 1000.0).round() as u64).await;
        n += 1;
    }
}

/// Wraps any client with a retry policy: for a host that calls the low-level API and wants it
/// retried (the session does), since no client retries by itself.
pub struct RetryingClient {
    inner: Rc<dyn LlmClient>,
    policy: RetryPolicy,
    runtime: Rc<dyn Runtime>,
}

impl RetryingClient {
    pub fn new(inner: Rc<dyn LlmClient>, policy: RetryPolicy, runtime: Rc<dyn Runtime>) -> Self {
        Self { inner, policy, runtime }
    }
}

#[async_trait(?Send)]
impl LlmClient for RetryingClient {
    fn provider(&self) -> &str {
        self.inner.provider()
    }

    async fn complete(&self, request: &Request) -> Result<Response, LlmError> {
        retry(&self.policy, &*self.runtime, || self.inner.complete(request)).await
    }

    /// Retries only the opening of the stream: once it is open, its events are the caller's.
    async fn stream(&self, request: &Request) -> Result<EventStream, LlmError> {
        retry(&self.policy, &*self.runtime, || self.inner.stream(request)).await
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::cell::RefCell;

    use futures::executor::block_on;
    use futures::StreamExt;

    use super::*;
    use crate::runtime::VirtualRuntime;
    use crate::{ErrorKind, ScriptStep, ScriptedClient, StreamEvent};

    fn setup(steps: Vec<ScriptStep>, policy: RetryPolicy) -> (RetryingClient, Rc<ScriptedClient>, Rc<VirtualRuntime>) {
        let scripted = Rc::new(ScriptedClient::new(steps));
        let runtime = Rc::new(VirtualRuntime::new(|_| {}));
        (RetryingClient::new(scripted.clone(), policy, runtime.clone()), scripted, runtime)
    }

    fn no_jitter() -> RetryPolicy {
        RetryPolicy { jitter: false, ..RetryPolicy::default() }
    }

    #[test]
    fn transient_errors_are_retried_with_exponential_backoff() {
        let waits = Rc::new(RefCell::new(Vec::new()));
        let seen = waits.clone();
        let policy = RetryPolicy { on_retry: Some(Rc::new(move |_, n, d| seen.borrow_mut().push((n, d)))), ..no_jitter() };
        let steps = vec![
            ScriptStep::fail(ErrorKind::Server, "503"),
            ScriptStep::fail(ErrorKind::RateLimit, "429"),
            ScriptStep::text("ok"),
        ];
        let (client, scripted, runtime) = setup(steps, policy);
        let start = runtime.now_ms();
        let response = block_on(client.complete(&Request::default())).unwrap();
        assert_eq!(response.text(), "ok");
        assert_eq!(scripted.calls(), 3);
        assert_eq!(*waits.borrow(), [(1, 1.0), (2, 2.0)]);
        assert_eq!(runtime.now_ms() - start, 3000, "slept 1 s then 2 s on the runtime's clock");
    }

    #[test]
    fn gives_up_after_max_retries() {
        let steps = (0..5).map(|_| ScriptStep::fail(ErrorKind::Server, "down")).collect();
        let (client, scripted, _) = setup(steps, no_jitter());
        assert_eq!(block_on(client.complete(&Request::default())).unwrap_err().kind, ErrorKind::Server);
        assert_eq!(scripted.calls(), 3, "the first attempt and two retries");
    }

    #[test]
    fn authentication_errors_are_never_retried() {
        let (client, scripted, _) =
            setup(vec![ScriptStep::fail(ErrorKind::Authentication, "bad key"), ScriptStep::text("x")], no_jitter());
        assert_eq!(block_on(client.complete(&Request::default())).unwrap_err().kind, ErrorKind::Authentication);
        assert_eq!(scripted.calls(), 1);
    }

    #[test]
    fn retry_after_is_honoured_and_too_long_a_wait_is_not_retried() {
        let mut asked = LlmError::new(ErrorKind::RateLimit, "slow down").with_retry_after(5.0);
        let (client, _, runtime) = setup(vec![ScriptStep::Fail(asked.clone()), ScriptStep::text("ok")], no_jitter());
        let start = runtime.now_ms();
        block_on(client.complete(&Request::default())).unwrap();
        assert_eq!(runtime.now_ms() - start, 5000);

        asked.retry_after = Some(120.0);
        let (client, scripted, _) = setup(vec![ScriptStep::Fail(asked), ScriptStep::text("ok")], no_jitter());
        let err = block_on(client.complete(&Request::default())).unwrap_err();
        assert_eq!((err.retry_after, scripted.calls()), (Some(120.0), 1));
    }

    #[test]
    fn jitter_stays_within_half_to_one_and_a_half() {
        let policy = RetryPolicy::default();
        let error = LlmError::new(ErrorKind::Server, "x");
        for _ in 0..200 {
            let d = policy.delay(1, &error).unwrap();
            assert!((1.0..3.0).contains(&d), "{d}");
        }
        assert_eq!(RetryPolicy { max_retries: 0, ..policy }.delay(0, &error), None);
    }

    #[test]
    fn a_stream_is_retried_only_before_it_opens() {
        let broken = vec![
            StreamEvent::TextDelta { text_id: "a".into(), delta: "partial".into() },
            StreamEvent::Error { error: LlmError::new(ErrorKind::Stream, "connection reset") },
        ];
        let steps = vec![ScriptStep::fail(ErrorKind::Server, "503"), ScriptStep::Events(broken), ScriptStep::text("never")];
        let (client, scripted, _) = setup(steps, no_jitter());
        let events: Vec<StreamEvent> = block_on(async { client.stream(&Request::default()).await.unwrap().collect().await });
        assert!(matches!(events.last(), Some(StreamEvent::Error { .. })), "the error reaches the caller");
        assert_eq!(scripted.calls(), 2, "retried the failed opening, not the broken stream");
    }
}
