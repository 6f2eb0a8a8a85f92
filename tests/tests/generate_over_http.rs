//! `generate_object` and `generate` over each codec against the mock, over real HTTP
//! (unified-llm-spec 4.3, 4.5, 8.9 "structured output"): the schema goes in each API's own
//! structured-output field, a model that answers prose and then the wrong type is corrected
//! twice and its third answer is the validated object; a tool loop runs and sends its result back.

use std::cell::RefCell;
use std::rc::Rc;

use futures::executor::block_on;
use openagent_core::llm::runtime::VirtualRuntime;
use openagent_core::llm::{generate, generate_object, Generate, Tool, ToolDefinition, ToolHandler};
use openagent_tests::over_http::{model, serve, APIS};
use openagent_tests::{Api, Reply, Step, ToolCall};
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

#[test]
fn generate_runs_a_tool_and_its_result_reaches_the_next_request_in_every_wire_format() {
    for api in APIS {
        let call = ToolCall { name: "lookup".into(), arguments: json!({"key": "colour"}), id: Some("call_1".into()) };
        let server = serve([
            Step::reply(Reply { tool_calls: vec![call], ..Reply::default() }),
            Step::reply(Reply::text("The colour is teal.")),
        ]);
        let client = model(api, &server);
        let seen = Rc::new(RefCell::new(Vec::new()));
        let record = seen.clone();
        let handler: ToolHandler = Rc::new(move |arguments: Value| {
            record.borrow_mut().push(arguments);
            Box::pin(async { Ok("colour = teal".to_owned()) })
        });
        let parameters = json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]});
        let mut options = Generate::new("mock-model", "What colour?");
        options.tools = vec![Tool {
            definition: ToolDefinition { name: "lookup".into(), description: "Looks up".into(), parameters },
            execute: Some(handler),
        }];
        let result = block_on(generate(&*client, &VirtualRuntime::new(|_| {}), options)).unwrap_or_else(|e| panic!("{api}: {e}"));
        assert_eq!(result.text(), "The colour is teal.", "{api}");
        assert_eq!(result.steps.len(), 2, "{api}");
        assert_eq!(*seen.borrow(), [json!({"key": "colour"})], "{api}");
        let second = server.requests()[1].body.to_string();
        assert!(second.contains("colour = teal"), "{api}: {second}");
        assert!(result.total_usage.input_tokens >= result.last().usage.input_tokens, "{api}");
    }
}
