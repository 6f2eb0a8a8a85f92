#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use serde_json::{json, Value};

use super::*;
use crate::error::ErrorKind;
use crate::generate::{generate, Timeout, Tool, ToolHandler};
use crate::runtime::VirtualRuntime;
use crate::scripted::{ScriptStep, ScriptedClient};
use crate::types::{Message, Reason, Request, Role, ToolDefinition};

fn runtime() -> VirtualRuntime {
    VirtualRuntime::new(|_| {})
}

/// Every event of the stream, then its result.
fn run(client: &dyn LlmClient, options: Generate) -> (Vec<StreamEvent>, Result<GenerateResult, LlmError>) {
    let runtime = runtime();
    block_on(async {
        let mut result = stream(client, &runtime, options);
        let mut events = Vec::new();
        while let Some(event) = result.next().await {
            events.push(event);
        }
        (events, result.result().await)
    })
}

fn text_of(events: &[StreamEvent]) -> String {
    events.iter().filter_map(StreamEvent::text_delta).collect()
}

fn lookup() -> Tool {
    let handler: ToolHandler =
        Rc::new(|arguments: Value| Box::pin(async move { Ok(format!("{} = teal", arguments["key"].as_str().unwrap_or("?"))) }));
    let parameters = json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]});
    Tool {
        definition: ToolDefinition { name: "lookup".into(), description: "Looks up".into(), parameters },
        execute: Some(handler),
    }
}

#[test]
fn text_arrives_as_deltas_and_the_result_follows_the_stream() {
    let client = ScriptedClient::new([ScriptStep::text("Hello there, world.")]);
    let (events, result) = run(&client, Generate::new("m", "Say hello"));
    assert!(matches!(events.first(), Some(StreamEvent::StreamStart { .. })));
    assert!(matches!(events.last(), Some(StreamEvent::Finish { .. })));
    assert_eq!(text_of(&events), "Hello there, world.");
    let result = result.unwrap();
    assert_eq!((result.text(), result.steps.len()), ("Hello there, world.", 1));

    let client = ScriptedClient::new([ScriptStep::text("Just the text.")]);
    let runtime = runtime();
    let deltas: Vec<String> = block_on(stream(&client, &runtime, Generate::new("m", "go")).text_stream().collect());
    assert_eq!(deltas, ["Just ", "the ", "text."]);
}

#[test]
fn a_tool_round_streams_two_steps_with_a_step_finish_between() {
    let client =
        ScriptedClient::new([ScriptStep::tool_call("lookup", json!({"key": "colour"})), ScriptStep::text("It is teal.")]);
    let mut options = Generate::new("m", "What colour?");
    options.tools = vec![lookup()];
    let (events, result) = run(&client, options);
    let finishes: Vec<usize> =
        events.iter().enumerate().filter(|(_, e)| matches!(e, StreamEvent::Finish { .. })).map(|(i, _)| i).collect();
    let boundary = events.iter().position(|e| matches!(e, StreamEvent::StepFinish { .. })).expect("a step boundary");
    assert_eq!(finishes.len(), 2, "each step ends with its own finish");
    assert!(finishes[0] < boundary && boundary < finishes[1], "the boundary lies between the steps");
    assert!(events[..boundary].iter().any(|e| matches!(e, StreamEvent::ToolCallEnd { tool_call } if tool_call.name == "lookup")));
    let StreamEvent::StepFinish { tool_results } = &events[boundary] else { unreachable!() };
    assert_eq!((tool_results[0].content.as_ref(), tool_results[0].is_error), ("colour = teal", false));
    assert_eq!(text_of(&events[boundary..]), "It is teal.");

    let result = result.unwrap();
    assert_eq!((result.steps.len(), result.text()), (2, "It is teal."));
    assert_eq!(result.steps[0].tool_results, *tool_results);
    assert_eq!(result.total_usage, result.steps[0].usage.clone() + result.steps[1].usage.clone());
    let second = &client.requests()[1];
    assert_eq!(second.messages.iter().map(|m| m.role).collect::<Vec<_>>(), [Role::User, Role::Assistant, Role::Tool]);
}

#[test]
fn the_result_is_what_the_events_accumulate_to_and_what_generate_gives() {
    let client = ScriptedClient::new([ScriptStep::reasoning_then_text("Think first.", "Then answer.")]);
    let (events, result) = run(&client, Generate::new("m", "go"));
    let mut acc = StreamAccumulator::new();
    events.iter().for_each(|e| acc.push(e.clone()));
    let response = result.unwrap().last().response.clone();
    assert_eq!(acc.finish(ScriptedClient::PROVIDER).unwrap(), response);
    assert_eq!((response.text().as_str(), response.reasoning().as_deref()), ("Then answer.", Some("Think first.")));

    let script = || [ScriptStep::tool_call("lookup", json!({"key": "colour"})), ScriptStep::text("It is teal.")];
    let mut options = Generate::new("m", "What colour?");
    options.tools = vec![lookup()];
    let client = ScriptedClient::new(script());
    let runtime = runtime();
    let streamed = block_on(stream(&client, &runtime, options.clone()).result()).unwrap();
    let whole = block_on(generate(&ScriptedClient::new(script()), &runtime, options.clone())).unwrap();
    assert_eq!(streamed, whole);
    let client = ScriptedClient::new(script());
    let response = block_on(stream(&client, &runtime, options).response()).unwrap();
    assert_eq!(response, whole.last().response);
}

/// Sends a stream's first events, then nothing more, ever.
struct Stalls(Vec<StreamEvent>);

#[async_trait(?Send)]
impl LlmClient for Stalls {
    fn provider(&self) -> &str {
        "stalls"
    }

    async fn complete(&self, _: &Request) -> Result<Response, LlmError> {
        futures::future::pending().await
    }

    async fn stream(&self, _: &Request) -> Result<EventStream, LlmError> {
        Ok(Box::pin(futures::stream::iter(self.0.clone()).chain(futures::stream::pending())))
    }
}

#[test]
fn a_stalled_stream_ends_with_a_timeout_error_instead_of_hanging() {
    let started = vec![StreamEvent::TextDelta { text_id: "t".into(), delta: "Half an ans".into() }];
    let mut options = Generate::new("m", "go");
    options.timeout.per_step_ms = Some(5_000);
    let (events, result) = run(&Stalls(started.clone()), options.clone());
    assert_eq!(events[0], started[0], "what arrived before the stall is handed out");
    let Some(StreamEvent::Error { error }) = events.last() else { panic!("{events:?}") };
    assert_eq!(
        (error.kind, error.message.as_str()),
        (ErrorKind::RequestTimeout, "a model call took longer than its timeout of 5000 ms")
    );
    assert_eq!(result.unwrap_err(), *error);

    options.timeout = Timeout { total_ms: Some(30_000), per_step_ms: None };
    let (events, _) = run(&ScriptedClient::new([ScriptStep::Hang]), options);
    let [StreamEvent::Error { error }] = events.as_slice() else { panic!("{events:?}") };
    assert_eq!(error.message, "the whole generation took longer than its timeout of 30000 ms");
}

#[test]
fn only_the_opening_is_retried_never_a_stream_that_delivered_data() {
    let waits = Rc::new(RefCell::new(Vec::new()));
    let seen = waits.clone();
    let broken = vec![
        StreamEvent::TextDelta { text_id: "a".into(), delta: "partial".into() },
        StreamEvent::Error { error: LlmError::new(ErrorKind::Stream, "connection reset") },
    ];
    let client = ScriptedClient::new([
        ScriptStep::fail(ErrorKind::Server, "503"),
        ScriptStep::Events(broken.clone()),
        ScriptStep::text("never asked for"),
    ]);
    let mut options = Generate::new("m", "go");
    options.retry = RetryPolicy {
        jitter: false,
        on_retry: Some(Rc::new(move |_, n, delay| seen.borrow_mut().push((n, delay)))),
        ..RetryPolicy::default()
    };
    let (events, result) = run(&client, options.clone());
    assert_eq!(events, broken, "the broken stream's events, its error once, nothing after");
    assert_eq!(result.unwrap_err().message, "connection reset");
    assert_eq!((client.calls(), waits.borrow().clone()), (2, vec![(1, 1.0)]));

    let client = ScriptedClient::new([ScriptStep::fail(ErrorKind::Server, "503"), ScriptStep::text("never asked for")]);
    options.retry.max_retries = 0;
    let (events, _) = run(&client, options);
    assert!(matches!(events.as_slice(), [StreamEvent::Error { error }] if error.message == "503"), "{events:?}");
    assert_eq!(client.calls(), 1, "max_retries = 0 disables retrying");
}

#[test]
fn bad_options_and_a_cut_off_stream_end_in_one_error_event() {
    let mut options = Generate::new("m", "go");
    options.request.messages = vec![Message::user("earlier")];
    let client = ScriptedClient::new([]);
    let (events, result) = run(&client, options);
    assert!(matches!(events.as_slice(), [StreamEvent::Error { error }] if error.kind == ErrorKind::InvalidRequest));
    assert_eq!((result.unwrap_err().kind, client.calls()), (ErrorKind::InvalidRequest, 0));

    let cut = vec![StreamEvent::TextDelta { text_id: "a".into(), delta: "no finish".into() }];
    let (events, result) = run(&ScriptedClient::new([ScriptStep::Events(cut)]), Generate::new("m", "go"));
    assert!(matches!(events.last(), Some(StreamEvent::Error { error }) if error.kind == ErrorKind::Stream), "{events:?}");
    assert_eq!(result.unwrap_err().kind, ErrorKind::Stream);
}

#[test]
fn the_last_step_of_a_capped_loop_hands_its_calls_back() {
    let call = || ScriptStep::tool_call("lookup", json!({"key": "k"}));
    let client = ScriptedClient::new([call(), call()]);
    let mut options = Generate::new("m", "again");
    options.tools = vec![lookup()];
    let (events, result) = run(&client, options);
    assert_eq!(events.iter().filter(|e| matches!(e, StreamEvent::StepFinish { .. })).count(), 1);
    let result = result.unwrap();
    assert_eq!((result.steps.len(), result.last().finish_reason.reason), (2, Reason::ToolCalls));
    assert!(result.last().tool_results.is_empty());
}

#[test]
fn dropping_the_stream_cancels_what_was_still_to_come() {
    let ran = Rc::new(RefCell::new(0));
    let counter = ran.clone();
    let mut tool = lookup();
    tool.execute = Some(Rc::new(move |_| {
        *counter.borrow_mut() += 1;
        Box::pin(async { Ok("ran".to_owned()) })
    }));
    let client = ScriptedClient::new([ScriptStep::tool_call("lookup", json!({"key": "k"})), ScriptStep::text("never asked for")]);
    let mut options = Generate::new("m", "go");
    options.tools = vec![tool];
    let runtime = runtime();
    block_on(async {
        let mut streamed = stream(&client, &runtime, options);
        while let Some(event) = streamed.next().await {
            if matches!(event, StreamEvent::ToolCallEnd { .. }) {
                break;
            }
        }
    });
    assert_eq!((client.calls(), *ran.borrow()), (1, 0), "no tool ran and no second call was made");
}
