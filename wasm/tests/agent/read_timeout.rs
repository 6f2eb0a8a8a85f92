//! `readTimeoutMs`: a model server that goes silent ends the call with a timeout instead of
//! hanging the session (`fetch` itself waits forever).

use serde_json::{json, Value};
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::support::*;

/// What a task against `reply` ends with: the rejection's message, or the outcome.
async fn ends_with(reply: Value) -> (String, Value, js_sys::Function) {
    let (agent, fetch) = agent_with(json!([reply]), json!({"readTimeoutMs": 50, "maxRetries": 0}));
    let ended = submit(&agent, "hello").await;
    let message = ended.as_ref().err().map(error_message).unwrap_or_default();
    (message, ended.map(|outcome| data(&outcome)).unwrap_or_default(), fetch)
}

#[test]
async fn a_server_that_never_answers_is_a_timeout() {
    let (message, outcome, fetch) = ends_with(json!({"hang": true})).await;
    assert!(message.contains("sent nothing for 50 ms (the `readTimeoutMs` option)"), "{message} {outcome}");
    assert_eq!(requests(&fetch).len(), 1, "a timeout is not retried");
}

#[test]
async fn a_stream_that_stops_is_a_timeout_and_its_fetch_is_aborted() {
    let (message, outcome, fetch) = ends_with(json!({"stall": "Half an ans"})).await;
    assert!(message.contains("sent nothing for 50 ms"), "{message} {outcome}");
    assert_eq!(data(&get(&fetch, "aborted")), json!(1), "the stalled download is stopped");
}

#[test]
async fn a_slow_stream_that_keeps_sending_is_no_timeout_however_long_it_takes() {
    // Ten events 20 ms apart: 200 ms in all, four times the timeout, never 50 ms silent.
    let (message, outcome, _fetch) = ends_with(json!({"drip": "one two three four five six", "everyMs": 20})).await;
    assert_eq!(message, "", "{outcome}");
    assert_eq!(outcome["text"], "one two three four five six", "{outcome}");
}

#[test]
async fn a_finished_task_leaves_no_timer_pending_and_no_fetch_aborted() {
    let before = pending_timers();
    let replies = json!([{"toolCalls": [{"name": "read_file", "arguments": {"file_path": "a.txt"}}]}, {"text": "done"}]);
    let (agent, fetch) = agent_with(replies, json!({"files": {"a.txt": "hello"}}));
    let outcome = data(&submit(&agent, "read a.txt").await.expect("a run"));
    assert_eq!(outcome["reason"], "completed", "{outcome}");
    // Each read of a response raced a 60 s timeout; a timer left behind would keep Node up.
    assert_eq!(pending_timers(), before, "timers pending after the task (-1: not Node)");
    let signals = js_sys::Array::from(&get(&fetch, "signals"));
    assert_eq!(signals.length(), 2);
    for signal in signals.iter() {
        assert_eq!(get(&signal, "aborted").as_bool(), Some(false), "a body read to its end is not aborted");
    }
}

#[test]
fn a_read_timeout_of_the_wrong_type_is_refused() {
    let fetch = scripted_fetch(js(json!([])));
    let refused = openagent_wasm::Agent::new(options(&fetch, json!({"readTimeoutMs": "soon"}))).err().expect("refused");
    assert!(error_message(&refused).contains("`readTimeoutMs` must be a whole number"));
}
