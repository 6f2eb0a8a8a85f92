//! The core `Session` over each real codec, through real HTTP to the mock LLM server: the model
//! writes a file, edits it, reads it back, then answers (three tool rounds). What is checked is
//! what only the whole stack can show: the tools ran in the environment, the events tell the
//! story, each API's follow-up requests carry the results back by call id (Gemini: by function
//! name), usage adds up, and the key reached the server but no event.

use std::rc::Rc;

use futures::executor::block_on;
use openagent_core::llm::SharedText;
use openagent_core::session::{EventData, SessionEvent, StopReason};
use openagent_core::tools::{register_core_tools, ToolRegistry};
use openagent_core::{CoreProfile, ExecutionEnvironment, Session, SessionStatus};
use openagent_host::NativeRuntime;
use openagent_memenv::MemoryEnvironment;
use openagent_tests::{Api, MockServer, Reply, Step};
use serde_json::json;

use openagent_tests::over_http::{
    assert_no_key_in, drain, gemini_call_signatures, key_sent, model, reasoning_sent, serve, tool_calls_sent, tool_results_sent,
    was_streamed, wire_id, APIS, KEY,
};

const NOTE: &str = "notes/hello.txt";
const DRAFT_TEXT: &str = "hullo over HTTP\n";
const NOTE_TEXT: &str = "hello over HTTP\n";
const FIRST_TEXT: &str = "I will write the note first.";
const LAST_TEXT: &str = "The note says hello over HTTP.";

/// Write, edit, read, answer; each reply with its own usage so the totals can be checked.
fn write_edit_read_answer() -> Vec<Step> {
    let edit = json!({"file_path": NOTE, "old_string": "hullo", "new_string": "hello"});
    vec![
        Step::reply(
            Reply::text(FIRST_TEXT)
                .with_tool_call("write_file", json!({"file_path": NOTE, "content": DRAFT_TEXT}))
                .with_usage(100, 20),
        ),
        Step::reply(Reply::default().with_tool_call("edit_file", edit).with_usage(120, 8)),
        Step::reply(Reply::default().with_tool_call("read_file", json!({"file_path": NOTE})).with_usage(150, 10)),
        Step::reply(Reply::text(LAST_TEXT).with_usage(200, 12)),
    ]
}

struct Run {
    server: MockServer,
    session: Session,
    env: Rc<MemoryEnvironment>,
    events: Vec<SessionEvent>,
    stop: StopReason,
}

fn run(api: Api, streaming: bool, steps: Vec<Step>, input: &str) -> Run {
    let server = serve(steps);
    let runtime = Rc::new(NativeRuntime::new());
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let mut registry = ToolRegistry::new();
    register_core_tools(&mut registry);
    let profile = Rc::new(CoreProfile::new("mock-model", registry).with_streaming(streaming));
    let session = Session::builder(profile, env.clone(), model(api, &server), runtime.clone()).build();
    let mut receiver = session.events();
    let stop = runtime.block_on(session.submit(input)).unwrap_or_else(|e| panic!("{api} streaming={streaming}: {e}"));
    let events = drain(&mut receiver);
    Run { server, session, env, events, stop }
}

/// The session's tool calls, each as (the id `api` answers it by on the wire, tool name).
fn tool_call_ids(api: Api, events: &[SessionEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match &e.data {
            EventData::ToolCallStart { call_id, tool_name, .. } => {
                Some((wire_id(api, call_id, tool_name).to_owned(), tool_name.clone()))
            }
            _ => None,
        })
        .collect()
}

fn check_write_edit_read_answer(api: Api, streaming: bool) {
    let what = format!("{api} streaming={streaming}");
    let r = run(api, streaming, write_edit_read_answer(), "Write a note, fix it, then read it back.");
    assert_eq!((r.stop, r.session.status()), (StopReason::Completed, SessionStatus::Idle), "{what}");
    assert_eq!(block_on(r.env.read_file(NOTE, None, None)).expect("the note exists"), NOTE_TEXT, "{what}");

    // Events: three tool calls that succeeded, the text as deltas, a completed end.
    let calls = tool_call_ids(api, &r.events);
    let names: Vec<&str> = calls.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["write_file", "edit_file", "read_file"], "{what}");
    let ends: Vec<(&str, &Option<SharedText>, &Option<String>)> = r
        .events
        .iter()
        .filter_map(|e| match &e.data {
            EventData::ToolCallEnd { call_id, output, error, .. } => Some((call_id.as_str(), output, error)),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 3, "{what}");
    assert!(ends.iter().all(|(_, _, error)| error.is_none()), "{what}: {ends:?}");
    assert!(ends[2].1.as_deref().is_some_and(|o| o.contains("hello over HTTP")), "{what}: {ends:?}");
    let deltas: Vec<&str> = r
        .events
        .iter()
        .filter_map(|e| match &e.data {
            EventData::AssistantTextDelta { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas.concat(), format!("{FIRST_TEXT}{LAST_TEXT}"), "{what}");
    assert!(!streaming || deltas.len() > 2, "{what}: a stream delivers text in pieces: {deltas:?}");
    let last = &r.events.last().expect("events").data;
    assert_eq!(*last, EventData::ProcessingEnd { state: SessionStatus::Idle, reason: StopReason::Completed }, "{what}");

    // Requests: four, all to this API, streamed as the profile says, carrying the key.
    let requests = r.server.requests();
    assert_eq!(requests.len(), 4, "{what}");
    for request in &requests {
        assert_eq!(request.api, Some(api), "{what}");
        assert_eq!(was_streamed(request), streaming, "{what}: {} {:?}", request.path, request.body["stream"]);
        assert_eq!(key_sent(api, request), Some(KEY), "{what}: the key header arrived");
    }
    // Follow-ups replay the calls and carry each result back under its call id, in order.
    let second = &requests[1].body;
    assert_eq!(tool_calls_sent(api, second), calls[..1], "{what}");
    let results = tool_results_sent(api, second);
    assert_eq!(results.len(), 1, "{what}: {results:?}");
    assert_eq!(results[0].0, calls[0].0, "{what}");
    assert!(results[0].1.contains(NOTE), "{what}: the write_file output: {results:?}");
    let final_request = &requests[3].body;
    assert_eq!(tool_calls_sent(api, final_request), calls, "{what}");
    let results = tool_results_sent(api, final_request);
    let ids: Vec<&String> = results.iter().map(|(id, _)| id).collect();
    assert_eq!(ids, calls.iter().map(|(id, _)| id).collect::<Vec<_>>(), "{what}");
    assert!(results[2].1.contains("hello over HTTP"), "{what}: the read_file output: {results:?}");

    // Usage: four calls' worth, in the session and in the last text-end event.
    let total = r.session.total_usage();
    assert_eq!((total.input_tokens, total.output_tokens, total.total_tokens), (570, 50, 620), "{what}");
    let last_total = r.events.iter().rev().find_map(|e| match &e.data {
        EventData::AssistantTextEnd { total_usage, .. } => Some(total_usage.clone()),
        _ => None,
    });
    assert_eq!(last_total.as_ref(), Some(&total), "{what}");

    assert_no_key_in(&r.events);
    assert!(!format!("{:?}", r.session.history()).contains(KEY), "{what}: the key is not in the history");
}

#[test]
fn anthropic_messages_session_writes_edits_reads_and_answers_streamed() {
    check_write_edit_read_answer(Api::Anthropic, true);
}

#[test]
fn anthropic_messages_session_writes_edits_reads_and_answers_whole() {
    check_write_edit_read_answer(Api::Anthropic, false);
}

#[test]
fn openai_responses_session_writes_edits_reads_and_answers_streamed() {
    check_write_edit_read_answer(Api::OpenAiResponses, true);
}

#[test]
fn openai_responses_session_writes_edits_reads_and_answers_whole() {
    check_write_edit_read_answer(Api::OpenAiResponses, false);
}

#[test]
fn openai_chat_session_writes_edits_reads_and_answers_streamed() {
    check_write_edit_read_answer(Api::OpenAiChat, true);
}

#[test]
fn openai_chat_session_writes_edits_reads_and_answers_whole() {
    check_write_edit_read_answer(Api::OpenAiChat, false);
}

#[test]
fn gemini_session_writes_edits_reads_and_answers_streamed() {
    check_write_edit_read_answer(Api::Gemini, true);
}

#[test]
fn gemini_session_writes_edits_reads_and_answers_whole() {
    check_write_edit_read_answer(Api::Gemini, false);
}

/// Two calls in one reply: both run, and both results go back in one request, in call order.
#[test]
fn parallel_tool_calls_go_back_together_in_call_order() {
    for api in APIS {
        let steps = vec![
            Step::reply(
                Reply::default()
                    .with_tool_call("write_file", json!({"file_path": "a.txt", "content": "A"}))
                    .with_tool_call("write_file", json!({"file_path": "b.txt", "content": "B"})),
            ),
            Step::reply(Reply::text("Both written.")),
        ];
        let r = run(api, true, steps, "Write a.txt and b.txt.");
        assert_eq!(r.stop, StopReason::Completed, "{api}");
        for (path, text) in [("a.txt", "A"), ("b.txt", "B")] {
            assert_eq!(block_on(r.env.read_file(path, None, None)).expect("written"), text, "{api}");
        }
        let calls = tool_call_ids(api, &r.events);
        let requests = r.server.requests();
        let results = tool_results_sent(api, &requests[1].body);
        let ids: Vec<&String> = results.iter().map(|(id, _)| id).collect();
        assert_eq!(ids, calls.iter().map(|(id, _)| id).collect::<Vec<_>>(), "{api}");
        assert!(results[0].1.contains("a.txt") && results[1].1.contains("b.txt"), "{api}: {results:?}");
    }
}

/// Reasoning from the provider reaches the session's text-end event and, streamed or whole, goes
/// back on the next call as each API needs it: Anthropic refuses a tool-use turn replayed without
/// its signed thinking, and a stateless Responses call needs the reasoning item.
#[test]
fn reasoning_is_reported_and_replayed_as_each_api_needs_it() {
    for api in APIS {
        for streaming in [true, false] {
            let what = format!("{api} streaming={streaming}");
            let steps = vec![
                Step::reply(
                    Reply::text(FIRST_TEXT)
                        .with_reasoning("The user wants a note.")
                        .with_tool_call("write_file", json!({"file_path": NOTE, "content": NOTE_TEXT})),
                ),
                Step::reply(Reply::text("Done.")),
            ];
            let r = run(api, streaming, steps, "Write a note.");
            assert_eq!(r.stop, StopReason::Completed, "{what}");
            let reasoning = r.events.iter().find_map(|e| match &e.data {
                EventData::AssistantTextEnd { reasoning, .. } => Some(reasoning.clone()),
                _ => None,
            });
            assert_eq!(reasoning.flatten().as_deref(), Some("The user wants a note."), "{what}");
            let follow_up = &r.server.requests()[1].body;
            let replayed = reasoning_sent(api, follow_up);
            // Chat Completions has no field for reasoning; the codec drops it unless told otherwise.
            let expected: &[&str] = if api == Api::OpenAiChat { &[] } else { &["The user wants a note."] };
            assert_eq!(replayed, expected, "{what}");
            if api == Api::Gemini {
                // The signature Gemini put on its call must go back on that call.
                assert_eq!(gemini_call_signatures(follow_up).len(), 1, "{what}: {follow_up}");
            }
        }
    }
}
