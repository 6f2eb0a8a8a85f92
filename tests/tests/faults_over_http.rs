//! Faults over real HTTP (unified-llm-spec 6.6, 6.7, 8.8): `RetryingClient` over each codec's
//! `HttpLlmClient` over `NativeHttpClient`, against the mock LLM server's scripted faults. Sleeps
//! go to a `VirtualRuntime`, the test clock: a retry's wait is read off it exactly and costs no
//! real time. What the mock recorded says how many attempts were really made.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures::executor::block_on;
use futures::StreamExt;
use openagent_core::llm::{ErrorKind, LlmClient, LlmError, Message, Request, Response, RetryPolicy, RetryingClient, StreamEvent};
use openagent_core::runtime::{Runtime, VirtualRuntime};
use openagent_core::session::{EventData, SessionError, StopReason};
use openagent_core::tools::{register_core_tools, ToolRegistry};
use openagent_core::{CoreProfile, Session, SessionStatus};
use openagent_host::{NativeHttpClient, NativeHttpConfig};
use openagent_memenv::MemoryEnvironment;
use openagent_tests::{Api, MockServer, Reply, Step};
use serde_json::json;

use openagent_tests::over_http::{assert_no_key_in, drain, model, model_over, serve, APIS};

/// A retrying model for `api` with the test clock, and the retries it made: (retry number, delay in s).
struct Harness {
    client: Rc<RetryingClient>,
    clock: Rc<VirtualRuntime>,
    retries: Rc<RefCell<Vec<(u32, f64)>>>,
}

impl Harness {
    fn new(api: Api, server: &MockServer, policy: RetryPolicy) -> Self {
        Self::over(model(api, server), policy)
    }

    fn over(inner: Rc<dyn LlmClient>, policy: RetryPolicy) -> Self {
        let retries = Rc::new(RefCell::new(Vec::new()));
        let log = retries.clone();
        let policy = RetryPolicy { on_retry: Some(Rc::new(move |_, n, delay| log.borrow_mut().push((n, delay)))), ..policy };
        let clock = Rc::new(VirtualRuntime::new(|_| {}));
        Self { client: Rc::new(RetryingClient::new(inner, policy, clock.clone())), clock, retries }
    }

    /// Runs `call` and says how many virtual milliseconds it slept.
    fn timed<T>(&self, call: impl std::future::Future<Output = T>) -> (T, u64) {
        let start = self.clock.now_ms();
        let out = block_on(call);
        (out, self.clock.now_ms() - start)
    }

    fn complete(&self) -> (Result<Response, LlmError>, u64) {
        self.timed(self.client.complete(&request()))
    }

    /// A streamed call: its opening error, or every event it delivered.
    fn stream(&self) -> (Result<Vec<StreamEvent>, LlmError>, u64) {
        self.timed(async {
            let events = self.client.stream(&request()).await?;
            Ok(events.collect::<Vec<_>>().await)
        })
    }
}

fn request() -> Request {
    Request { model: "mock-model".into(), messages: vec![Message::user("hi")], ..Default::default() }
}

fn no_jitter() -> RetryPolicy {
    RetryPolicy { jitter: false, ..RetryPolicy::default() }
}

fn streamed_text(events: &[StreamEvent]) -> String {
    events.iter().filter_map(StreamEvent::text_delta).collect()
}

#[test]
fn a_429_with_retry_after_2_is_retried_once_after_exactly_2_s() {
    for api in APIS {
        let ok = || Step::reply(Reply::text("ok"));
        let server = serve([Step::error(429, Some(2)), ok(), Step::error(429, Some(2)), ok()]);
        let h = Harness::new(api, &server, no_jitter());
        let (response, slept) = h.complete();
        assert_eq!((response.expect("the retry succeeds").text().as_str(), slept), ("ok", 2000), "{api} complete");
        let (events, slept) = h.stream();
        assert_eq!((streamed_text(&events.expect("the retry opens")).as_str(), slept), ("ok", 2000), "{api} stream");
        assert_eq!(*h.retries.borrow(), [(1, 2.0), (1, 2.0)], "{api}: Retry-After replaced the 1 s backoff");
        assert_eq!(server.requests().len(), 4, "{api}");
    }
}

#[test]
fn a_retry_after_longer_than_max_delay_is_not_waited_for() {
    for api in APIS {
        let server = serve([Step::error(429, Some(120)), Step::reply(Reply::text("never"))]);
        let h = Harness::new(api, &server, no_jitter());
        let (error, slept) = h.complete();
        let error = error.expect_err("not retried");
        assert_eq!((error.kind, error.retry_after, error.retryable), (ErrorKind::RateLimit, Some(120.0), true), "{api}");
        assert_eq!((slept, server.requests().len()), (0, 1), "{api}");
    }
}

#[test]
fn a_500_then_a_503_back_off_1_s_then_2_s() {
    for api in APIS {
        let server = serve([Step::error(500, None), Step::error(503, None), Step::reply(Reply::text("third time"))]);
        let h = Harness::new(api, &server, no_jitter());
        let (events, slept) = h.stream();
        assert_eq!(streamed_text(&events.expect("opens on the third try")), "third time", "{api}");
        assert_eq!((slept, h.retries.borrow().clone()), (3000, vec![(1, 1.0), (2, 2.0)]), "{api}");
        assert_eq!(server.requests().len(), 3, "{api}");
    }
}

#[test]
fn three_failures_give_up_after_the_default_two_retries() {
    for api in APIS {
        let server =
            serve([Step::error(500, None), Step::error(502, None), Step::error(503, None), Step::reply(Reply::text("x"))]);
        let h = Harness::new(api, &server, RetryPolicy::default());
        let (error, slept) = h.complete();
        let error = error.expect_err("gives up");
        assert_eq!((error.kind, error.status_code), (ErrorKind::Server, Some(503)), "{api}");
        assert_eq!((server.requests().len(), server.remaining()), (3, 1), "{api}: the first attempt and two retries");
        // Default jitter: 1 s and 2 s, each scaled by [0.5, 1.5).
        assert!((1500..4500).contains(&slept), "{api}: slept {slept} ms");
    }
}

#[test]
fn max_retries_zero_disables_retrying() {
    for api in APIS {
        let server = serve([Step::error(503, None), Step::reply(Reply::text("never"))]);
        let h = Harness::new(api, &server, RetryPolicy { max_retries: 0, ..no_jitter() });
        let (error, slept) = h.complete();
        assert_eq!((error.expect_err("not retried").kind, slept, server.requests().len()), (ErrorKind::Server, 0, 1), "{api}");
    }
}

/// Spec 6.6: a retry repeats one model call, not the steps before it: the tool ran once.
#[test]
fn a_retry_in_the_second_step_does_not_repeat_the_first() {
    for api in APIS {
        let write = Reply::default().with_tool_call("write_file", json!({"file_path": "once.txt", "content": "1"}));
        let server = serve([Step::reply(write), Step::error(500, None), Step::reply(Reply::text("done"))]);
        let session = session_over(Harness::new(api, &server, no_jitter()).client);
        let mut receiver = session.events();
        assert_eq!(block_on(session.submit("write once")).expect("completes"), StopReason::Completed, "{api}");
        let events = drain(&mut receiver);
        let starts = events.iter().filter(|e| e.kind() == "tool_call_start").count();
        assert_eq!((starts, server.requests().len()), (1, 3), "{api}: one tool run, three requests");
        assert!(error_events(&events).is_empty(), "{api}: a retried error is not the session's");
    }
}

#[test]
fn a_401_is_not_retried() {
    for api in APIS {
        let server = serve([Step::error(401, None), Step::reply(Reply::text("never")), Step::error(401, None)]);
        let h = Harness::new(api, &server, no_jitter());
        let (error, slept) = h.complete();
        let error = error.expect_err("refused");
        assert_eq!((error.kind, error.retryable, error.status_code), (ErrorKind::Authentication, false, Some(401)), "{api}");
        assert_eq!(slept, 0, "{api}");
        // The 200 in between is taken by this stream, so the third step's 401 is left.
        let (events, _) = h.stream();
        assert_eq!(streamed_text(&events.expect("second call opens")), "never", "{api}");
        let (error, _) = h.stream();
        assert_eq!(error.expect_err("refused").kind, ErrorKind::Authentication, "{api}");
        assert_eq!((server.requests().len(), h.retries.borrow().len()), (3, 0), "{api}: one request per call");
    }
}

/// Spec 6.3, 8.8: the other client errors are raised at once too, each with its kind.
#[test]
fn a_400_403_or_404_is_not_retried() {
    let cases = [(400, ErrorKind::InvalidRequest), (403, ErrorKind::AccessDenied), (404, ErrorKind::NotFound)];
    for api in APIS {
        for (status, kind) in cases {
            let server = serve([Step::error(status, None), Step::reply(Reply::text("never"))]);
            let h = Harness::new(api, &server, no_jitter());
            let (error, _) = h.complete();
            let error = error.expect_err("refused");
            assert_eq!((error.kind, error.retryable, error.status_code), (kind, false, Some(status)), "{api} {status}");
            assert_eq!(server.requests().len(), 1, "{api} {status}");
        }
    }
}

fn session_over(client: Rc<dyn LlmClient>) -> Session {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let mut registry = ToolRegistry::new();
    register_core_tools(&mut registry);
    let profile = Rc::new(CoreProfile::new("mock-model", registry));
    Session::builder(profile, Rc::new(MemoryEnvironment::new(runtime.clone())), client, runtime).build()
}

fn error_events(events: &[openagent_core::SessionEvent]) -> Vec<Option<ErrorKind>> {
    events
        .iter()
        .filter_map(|e| match &e.data {
            EventData::Error { error_kind, .. } => Some(*error_kind),
            _ => None,
        })
        .collect()
}

#[test]
fn a_session_over_a_401_closes_with_an_authentication_error_event() {
    for api in APIS {
        let server = serve([Step::error(401, None), Step::reply(Reply::text("never"))]);
        let session = session_over(Harness::new(api, &server, no_jitter()).client);
        let mut receiver = session.events();
        let result = block_on(session.submit("hi"));
        assert!(matches!(&result, Err(SessionError::Llm(e)) if e.kind == ErrorKind::Authentication), "{api}: {result:?}");
        assert_eq!(session.status(), SessionStatus::Closed, "{api}");
        let events = drain(&mut receiver);
        assert_eq!(error_events(&events), [Some(ErrorKind::Authentication)], "{api}");
        let kinds: Vec<&str> = events.iter().map(|e| e.kind()).collect();
        assert_eq!(kinds[kinds.len() - 4..], ["error", "result", "processing_end", "session_end"], "{api}");
        assert_eq!(server.requests().len(), 1, "{api}");
        assert_no_key_in(&events);
        assert!(matches!(block_on(session.submit("again")), Err(SessionError::Closed)), "{api}");
    }
}

#[test]
fn a_dropped_stream_ends_in_an_error_event_and_is_not_retried() {
    for api in APIS {
        let long = Reply::text("one two three four five six seven eight nine ten eleven twelve");
        let server = serve([Step::drop_mid_stream(long), Step::reply(Reply::text("never"))]);
        let h = Harness::new(api, &server, no_jitter());
        let (events, slept) = h.stream();
        let events = events.expect("the stream opened before it broke");
        assert!(streamed_text(&events).starts_with("one "), "{api}: part of the text came first: {events:?}");
        let Some(StreamEvent::Error { error }) = events.last() else {
            panic!("{api}: the last event is not an error: {events:?}")
        };
        assert!(matches!(error.kind, ErrorKind::Stream | ErrorKind::Network), "{api}: {error:?}");
        assert!(!events.iter().any(|e| matches!(e, StreamEvent::Finish { .. })), "{api}: no finish after a break");
        assert_eq!((slept, server.requests().len(), server.remaining()), (0, 1, 1), "{api}: not retried");
    }
}

#[test]
fn a_session_reports_a_dropped_stream_and_takes_the_next_input() {
    for api in APIS {
        let cut = Reply::text("this answer will be cut off halfway through its words");
        let server = serve([Step::drop_mid_stream(cut), Step::reply(Reply::text("second answer"))]);
        let session = session_over(Harness::new(api, &server, no_jitter()).client);
        let mut receiver = session.events();
        let result = block_on(session.submit("first"));
        assert!(matches!(&result, Err(SessionError::Llm(e)) if e.kind == ErrorKind::Stream), "{api}: {result:?}");
        assert_eq!(session.status(), SessionStatus::Idle, "{api}");
        let events = drain(&mut receiver);
        assert_eq!(error_events(&events), [Some(ErrorKind::Stream)], "{api}");
        let end = EventData::ProcessingEnd { state: SessionStatus::Idle, reason: StopReason::Error };
        assert_eq!(events.last().map(|e| &e.data), Some(&end), "{api}");

        assert_eq!(block_on(session.submit("second")).expect("usable again"), StopReason::Completed, "{api}");
        let events = drain(&mut receiver);
        let text = events.iter().find_map(|e| match &e.data {
            EventData::AssistantTextEnd { text, .. } => Some(text.clone()),
            _ => None,
        });
        assert_eq!(text.as_deref(), Some("second answer"), "{api}");
        assert_eq!(server.requests().len(), 2, "{api}");
        assert_no_key_in(&events);
    }
}

#[test]
fn a_slow_first_byte_still_succeeds() {
    for api in APIS {
        let server = serve([Step::slow_first_byte(300, Reply::text("late")), Step::slow_first_byte(300, Reply::text("later"))]);
        let h = Harness::new(api, &server, no_jitter());
        let (response, _) = h.complete();
        assert_eq!(response.expect("waited for").text(), "late", "{api}");
        let (events, _) = h.stream();
        assert_eq!(streamed_text(&events.expect("waited for")), "later", "{api}");
        assert_eq!((server.requests().len(), h.retries.borrow().len()), (2, 0), "{api}");
    }
}

/// A whole (non-streamed) body cut short delivered nothing to the caller: a network error, retried.
#[test]
fn a_whole_body_cut_short_is_a_network_error_and_is_retried() {
    for api in APIS {
        let server = serve([Step::drop_mid_stream(Reply::text("cut")), Step::reply(Reply::text("whole"))]);
        let h = Harness::new(api, &server, no_jitter());
        let (response, slept) = h.complete();
        assert_eq!((response.expect("the retry succeeds").text().as_str(), slept), ("whole", 1000), "{api}");
        assert_eq!(server.requests().len(), 2, "{api}");
    }
}

/// Spec 6.3: a timeout is not retryable, so a server too slow for the read timeout is tried once.
#[test]
fn a_read_timeout_is_a_timeout_error_and_is_not_retried() {
    for api in APIS {
        let server = serve([Step::slow_first_byte(1500, Reply::text("too late")), Step::reply(Reply::text("never"))]);
        let impatient =
            NativeHttpClient::with_config(NativeHttpConfig { read_timeout: Duration::from_millis(200), ..Default::default() });
        let h = Harness::over(model_over(api, &server, impatient), no_jitter());
        let (error, _) = h.stream();
        let error = error.expect_err("timed out");
        assert_eq!((error.kind, error.retryable), (ErrorKind::RequestTimeout, false), "{api}: {error}");
        assert!(error.message.contains("read_timeout"), "{api}: the message names the setting: {error}");
        assert_eq!((server.requests().len(), server.remaining()), (1, 1), "{api}");
    }
}

/// Each API's own way of saying "cut off at the output limit" (`max_tokens`, `length`,
/// `MAX_TOKENS`, an `incomplete` response) ends the input as such, streamed and whole.
#[test]
fn an_answer_cut_off_at_the_output_limit_is_not_a_completed_one_on_every_api() {
    for api in APIS {
        for streaming in [true, false] {
            let server = serve([Step::reply(Reply::text("The first half of the answer").cut_off())]);
            let runtime = Rc::new(VirtualRuntime::new(|_| {}));
            let mut registry = ToolRegistry::new();
            register_core_tools(&mut registry);
            let profile = Rc::new(CoreProfile::new("mock-model", registry).with_streaming(streaming));
            let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
            let session = Session::builder(profile, env, model(api, &server), runtime).build();
            let stop = block_on(session.submit("write an essay"));
            assert_eq!(stop, Ok(StopReason::OutputLimit), "{api}, streaming {streaming}");
            let result = session.last_result().expect("a result");
            assert_eq!(result.result_text, "The first half of the answer", "{api}, streaming {streaming}");
        }
    }
}
