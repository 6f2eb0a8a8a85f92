//! `generate_object`, `generate` and `stream` over each codec against the mock, over real HTTP
//! (unified-llm-spec 4.3, 4.5, 8.9 "structured output"): the schema goes in each API's own
//! structured-output field, a model that answers prose and then the wrong type is corrected
//! twice and its third answer is the validated object; a tool loop runs and sends its result back,
//! whole (`generate`) and streamed (`stream`, spec 4.4).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use futures::executor::block_on;
use futures::future::{select, Either, FutureExt, LocalBoxFuture};
use futures::StreamExt;
use openagent_core::llm::runtime::{Runtime, VirtualRuntime};
use openagent_core::llm::{
    generate, generate_object, stream, Generate, LlmClient, StreamEvent, Tool, ToolDefinition, ToolHandler,
};
use openagent_host::NativeRuntime;
use openagent_tests::over_http::{model, serve, was_streamed, APIS};
use openagent_tests::{Api, MockServer, Reply, Step, ToolCall};
use serde_json::{json, Value};

fn person() -> Value {
    json!({"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name", "age"]})
}

/// Where each API carries the schema of a structured answer.
fn schema_sent(api: Api, body: &Value) -> &Value {
    match api {
        Api::Anthropic => &body["output_config"]["format"]["schema"],
        Api::OpenAiResponses => &body["text"]["format"]["schema"],
        Api::OpenAiChat => &body["response_format"]["json_schema"]["schema"],
        Api::Gemini => &body["generationConfig"]["responseJsonSchema"],
    }
}

#[test]
fn generate_object_corrects_two_bad_answers_and_returns_the_third_validated_in_every_wire_format() {
    for api in APIS {
        let server = serve([
            Step::reply(Reply::text("Sure! Alice is 30.")),
            Step::reply(Reply::text(r#"{"name": "Alice", "age": "thirty"}"#)),
            Step::reply(Reply::text(r#"{"name": "Alice", "age": 30}"#)),
        ]);
        let client = model(api, &server);
        let options = Generate::new("mock-model", "Extract the person: 'Alice is 30 years old'");
        let result = block_on(generate_object(&*client, &VirtualRuntime::new(|_| {}), options, person(), 3))
            .unwrap_or_else(|e| panic!("{api}: {e}"));
        assert_eq!(result.output, Some(json!({"name": "Alice", "age": 30})), "{api}");
        assert_eq!(result.steps.len(), 1, "{api}: the last attempt's steps");
        let requests = server.requests();
        assert_eq!(requests.len(), 3, "{api}");
        for request in &requests {
            assert_eq!(schema_sent(api, &request.body), &person(), "{api}: {}", request.body);
        }
        let third = requests[2].body.to_string();
        assert!(third.contains("it does not match the schema: /age"), "{api}: the correction is sent: {third}");
    }
}

#[test]
fn generate_object_gives_up_with_no_object_generated_in_every_wire_format() {
    for api in APIS {
        let server = serve([Step::reply(Reply::text("no")), Step::reply(Reply::text("still no"))]);
        let client = model(api, &server);
        let options = Generate::new("mock-model", "who?");
        let error = block_on(generate_object(&*client, &VirtualRuntime::new(|_| {}), options, person(), 2)).unwrap_err();
        assert_eq!(error.kind, openagent_core::llm::ErrorKind::NoObjectGenerated, "{api}");
        assert!(error.message.starts_with("no valid object after 2 attempts: it is not JSON"), "{api}: {}", error.message);
    }
}

/// `api`'s codec at a mock that plays one tool round (a call to `lookup`, then the answer), the
/// options that offer `lookup`, and the arguments `lookup` is called with.
fn tool_round(api: Api) -> (MockServer, Rc<dyn LlmClient>, Generate, Rc<RefCell<Vec<Value>>>) {
    let call = ToolCall { name: "lookup".into(), arguments: json!({"key": "colour"}), id: Some("call_1".into()) };
    let server = serve([
        Step::reply(Reply { tool_calls: vec![call], ..Reply::default() }),
        Step::reply(Reply::text("The colour is teal.")),
    ]);
    let client = model(api, &server);
    let seen = Rc::new(RefCell::new(Vec::new()));
    let mut options = Generate::new("mock-model", "What colour?");
    options.tools = vec![lookup(seen.clone())];
    (server, client, options, seen)
}

/// A `lookup` tool that answers "colour = teal" and keeps the arguments it was called with.
fn lookup(seen: Rc<RefCell<Vec<Value>>>) -> Tool {
    let handler: ToolHandler = Rc::new(move |arguments: Value| {
        seen.borrow_mut().push(arguments);
        Box::pin(async { Ok("colour = teal".to_owned()) })
    });
    let parameters = json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]});
    Tool {
        definition: ToolDefinition { name: "lookup".into(), description: "Looks up".into(), parameters },
        execute: Some(handler),
    }
}

#[test]
fn generate_runs_a_tool_and_its_result_reaches_the_next_request_in_every_wire_format() {
    for api in APIS {
        let (server, client, options, seen) = tool_round(api);
        let result = block_on(generate(&*client, &VirtualRuntime::new(|_| {}), options)).unwrap_or_else(|e| panic!("{api}: {e}"));
        assert_eq!(result.text(), "The colour is teal.", "{api}");
        assert_eq!(result.steps.len(), 2, "{api}");
        assert_eq!(*seen.borrow(), [json!({"key": "colour"})], "{api}");
        let second = server.requests()[1].body.to_string();
        assert!(second.contains("colour = teal"), "{api}: {second}");
        assert!(result.total_usage.input_tokens >= result.last().usage.input_tokens, "{api}");
    }
}

/// Spec 4.4, 5.9: `stream()` streams both calls of a tool round over each API's SSE, with the
/// tool's result between them, and its result is the two steps.
#[test]
fn stream_runs_a_tool_round_over_streamed_calls_in_every_wire_format() {
    for api in APIS {
        let (server, client, options, seen) = tool_round(api);
        let runtime = VirtualRuntime::new(|_| {});
        let (events, result) = block_on(async {
            let mut streamed = stream(&*client, &runtime, options);
            let events: Vec<StreamEvent> = streamed.by_ref().collect().await;
            (events, streamed.result().await)
        });
        let result = result.unwrap_or_else(|e| panic!("{api}: {e}"));
        let boundary = events.iter().position(|e| matches!(e, StreamEvent::StepFinish { .. })).expect("a step boundary");
        let StreamEvent::StepFinish { tool_results } = &events[boundary] else { unreachable!() };
        assert_eq!(&*tool_results[0].content, "colour = teal", "{api}");
        assert!(events[..boundary].iter().any(|e| matches!(e, StreamEvent::ToolCallEnd { .. })), "{api}");
        let text: String = events[boundary..].iter().filter_map(StreamEvent::text_delta).collect();
        assert_eq!(
            (text.as_str(), result.text(), result.steps.len()),
            ("The colour is teal.", "The colour is teal.", 2),
            "{api}"
        );
        assert_eq!(*seen.borrow(), [json!({"key": "colour"})], "{api}");
        let requests = server.requests();
        assert!(requests.iter().all(was_streamed), "{api}: both calls were streamed");
        assert!(requests[1].body.to_string().contains("colour = teal"), "{api}: {}", requests[1].body);
    }
}

/// Spec 4.7: cancelling is dropping. A generation and a stream dropped while their first call
/// waits on a slow server return at once, and nothing after that call happens: the tool it was
/// about to ask for never runs, and no second request is made.
#[test]
fn a_generation_or_stream_dropped_mid_call_returns_at_once_and_calls_nothing_more_in_every_wire_format() {
    let threads: Vec<_> = APIS
        .into_iter()
        .map(|api| {
            std::thread::spawn(move || {
                for streamed in [false, true] {
                    let call = ToolCall { name: "lookup".into(), arguments: json!({"key": "colour"}), id: Some("call_1".into()) };
                    let server = serve([
                        Step::slow_first_byte(800, Reply { tool_calls: vec![call], ..Reply::default() }),
                        Step::reply(Reply::text("never asked for")),
                    ]);
                    let client = model(api, &server);
                    let seen = Rc::new(RefCell::new(Vec::new()));
                    let mut options = Generate::new("mock-model", "What colour?");
                    options.tools = vec![lookup(seen.clone())];
                    let runtime = NativeRuntime::new();
                    let started = Instant::now();
                    let finished = runtime.block_on(async {
                        let generation: LocalBoxFuture<'_, ()> = match streamed {
                            false => Box::pin(generate(&*client, &runtime, options).map(drop)),
                            true => Box::pin(stream(&*client, &runtime, options).for_each(|_| async {})),
                        };
                        matches!(select(generation, Box::pin(runtime.sleep(100))).await, Either::Left(_))
                    });
                    assert!(!finished && started.elapsed() < Duration::from_millis(700), "{api} {streamed}: returned at once");
                    // Past the slow answer: had the call gone on, the tool would have run and a
                    // second request gone out.
                    std::thread::sleep(Duration::from_millis(1000));
                    assert_eq!((server.requests().len(), seen.borrow().len()), (1, 0), "{api} {streamed}");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}
