#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::RefCell;
use std::rc::Rc;

use futures::executor::block_on;
use serde_json::{json, Value};

use super::*;
use crate::runtime::VirtualRuntime;
use crate::scripted::{ScriptStep, ScriptedClient};
use crate::types::{ContentPart, Reason, Role};

fn runtime() -> VirtualRuntime {
    VirtualRuntime::new(|_| {})
}

fn weather(calls: Rc<RefCell<Vec<Value>>>) -> Tool {
    let handler: ToolHandler = Rc::new(move |arguments: Value| {
        calls.borrow_mut().push(arguments.clone());
        Box::pin(async move {
            match arguments["city"].as_str() {
                Some("Atlantis") => Err("no such city".to_owned()),
                Some(city) => Ok(format!("{city}: 21 °C")),
                None => Err("no city".to_owned()),
            }
        })
    });
    Tool {
        definition: ToolDefinition {
            name: "weather".into(),
            description: "The weather in a city".into(),
            parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        },
        execute: Some(handler),
    }
}

fn run(client: &ScriptedClient, options: Generate) -> Result<GenerateResult, LlmError> {
    block_on(generate(client, &runtime(), options))
}

#[test]
fn a_prompt_and_a_system_message_make_one_call() {
    let client = ScriptedClient::new([ScriptStep::text("Hello.")]);
    let mut options = Generate::new("m", "Say hello");
    options.system = Some("Be brief.".into());
    let result = run(&client, options).unwrap();
    assert_eq!(result.text(), "Hello.");
    assert_eq!(result.steps.len(), 1);
    assert_eq!(result.total_usage, result.last().usage);
    let sent = &client.requests()[0];
    assert_eq!(sent.messages.iter().map(|m| m.role).collect::<Vec<_>>(), [Role::System, Role::User]);
    assert_eq!(sent.messages[1].text(), "Say hello");
}

#[test]
fn messages_are_sent_as_given_after_the_system_message() {
    let client = ScriptedClient::new([ScriptStep::text("Fine.")]);
    let mut options = Generate::new("m", "unused");
    options.prompt = None;
    options.system = Some("Be brief.".into());
    options.request.messages = vec![Message::user("Hi"), Message::assistant("Hello."), Message::user("How are you?")];
    assert_eq!(run(&client, options).unwrap().text(), "Fine.");
    let texts: Vec<String> = client.requests()[0].messages.iter().map(Message::text).collect();
    assert_eq!(texts, ["Be brief.", "Hi", "Hello.", "How are you?"]);
}

#[test]
fn tools_run_in_parallel_their_results_go_back_and_usage_adds_up() {
    let calls = Rc::new(RefCell::new(Vec::new()));
    let client = ScriptedClient::new([
        ScriptStep::tool_calls(&[
            ("weather", json!({"city": "Oslo"})),
            ("weather", json!({"city": "Atlantis"})),
            ("weather", json!({"town": "Bergen"})),
            ("lookup", json!({})),
        ]),
        ScriptStep::text("Oslo is mild."),
    ]);
    let mut options = Generate::new("m", "weather?");
    options.tools = vec![weather(calls.clone())];
    let result = run(&client, options).unwrap();
    assert_eq!(result.text(), "Oslo is mild.");
    assert_eq!(result.steps.len(), 2);
    let results = &result.steps[0].tool_results;
    assert_eq!((results[0].content.as_ref(), results[0].is_error), ("Oslo: 21 °C", false));
    assert_eq!((results[1].content.as_ref(), results[1].is_error), ("no such city", true));
    assert!(results[2].is_error && results[2].content.starts_with("Invalid arguments for tool weather:"), "{:?}", results[2]);
    assert_eq!((results[3].content.as_ref(), results[3].is_error), ("Unknown tool: lookup", true));
    assert_eq!(calls.borrow().len(), 2, "invalid arguments never reach the handler");
    // The second request carries the assistant's calls and every result, matched by id.
    let second = &client.requests()[1];
    assert_eq!(second.tools.len(), 1);
    let answered: Vec<&str> = second
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            ContentPart::ToolResult { tool_result } => Some(tool_result.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(answered, ["call_1_1", "call_1_2", "call_1_3", "call_1_4"]);
    assert_eq!(result.total_usage, result.steps[0].usage.clone() + result.steps[1].usage.clone());
}

#[test]
fn max_tool_rounds_caps_the_loop_and_zero_hands_the_calls_back() {
    let calls = Rc::new(RefCell::new(Vec::new()));
    let call = || ScriptStep::tool_call("weather", json!({"city": "Oslo"}));
    let client = ScriptedClient::new([call(), call(), call()]);
    let mut options = Generate::new("m", "again and again");
    options.tools = vec![weather(calls.clone())];
    options.max_tool_rounds = 2;
    let result = run(&client, options.clone()).unwrap();
    assert_eq!(client.calls(), 3, "at most max_tool_rounds + 1 calls");
    assert_eq!(result.last().finish_reason.reason, Reason::ToolCalls);
    assert_eq!(result.last().tool_calls.len(), 1, "the last step's calls are the caller's");
    assert!(result.last().tool_results.is_empty());

    let client = ScriptedClient::new([call()]);
    options.max_tool_rounds = 0;
    let result = run(&client, options).unwrap();
    assert_eq!((client.calls(), result.last().tool_calls.len(), calls.borrow().len()), (1, 1, 2));
}

#[test]
fn a_call_to_a_passive_tool_ends_the_loop_for_the_caller() {
    let client = ScriptedClient::new([ScriptStep::tool_call("ask_user", json!({"question": "which?"}))]);
    let mut options = Generate::new("m", "go");
    let parameters = json!({"type": "object"});
    options.tools = vec![Tool {
        definition: ToolDefinition { name: "ask_user".into(), description: "Asks".into(), parameters },
        execute: None,
    }];
    let result = run(&client, options).unwrap();
    assert_eq!(result.last().tool_calls[0].name, "ask_user");
    assert!(result.last().tool_results.is_empty());
    assert_eq!(client.calls(), 1);
}

#[test]
fn timeouts_end_a_stalled_step_or_the_whole_generation() {
    let client = ScriptedClient::new([ScriptStep::Hang]);
    let mut options = Generate::new("m", "go");
    options.timeout.per_step_ms = Some(5_000);
    let error = run(&client, options.clone()).unwrap_err();
    assert_eq!(error.kind, ErrorKind::RequestTimeout);
    assert_eq!(error.message, "a model call took longer than its timeout of 5000 ms");

    let client = ScriptedClient::new([ScriptStep::Hang]);
    options.timeout = Timeout { total_ms: Some(30_000), per_step_ms: None };
    let error = run(&client, options).unwrap_err();
    assert_eq!(error.message, "the whole generation took longer than its timeout of 30000 ms");
}

#[test]
fn bad_options_fail_before_any_request() {
    let client = ScriptedClient::new([]);
    let mut options = Generate::new("m", "go");
    options.request.messages = vec![Message::user("earlier")];
    assert!(run(&client, options).unwrap_err().message.contains("either `prompt` or `messages`"));
    let mut options = Generate::new("m", "go");
    let mut tool = weather(Rc::default());
    tool.definition.parameters = json!({"type": 7});
    options.tools = vec![tool];
    let error = run(&client, options).unwrap_err();
    assert_eq!(error.kind, ErrorKind::InvalidRequest);
    assert!(error.message.starts_with("generate: tool weather: its parameters cannot be used"), "{}", error.message);
    let error = block_on(generate_object(&client, &runtime(), Generate::new("m", "go"), json!({"type": "nope"}), 3)).unwrap_err();
    assert!(error.message.starts_with("generate_object: the schema cannot be used"), "{}", error.message);
    assert_eq!(client.calls(), 0);
}

fn person() -> Value {
    json!({"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name", "age"]})
}

#[test]
fn generate_object_asks_for_the_schema_and_returns_the_validated_object() {
    let client = ScriptedClient::new([ScriptStep::text("```json\n{\"name\": \"Alice\", \"age\": 30}\n```")]);
    let result = block_on(generate_object(&client, &runtime(), Generate::new("m", "Alice is 30"), person(), 3)).unwrap();
    assert_eq!(result.output, Some(json!({"name": "Alice", "age": 30})));
    assert_eq!(client.requests()[0].response_format, Some(ResponseFormat::JsonSchema { json_schema: person(), strict: true }));
}

#[test]
fn generate_object_sends_back_what_is_wrong_and_succeeds_on_a_later_attempt() {
    let client = ScriptedClient::new([
        ScriptStep::text("Sure! Alice is 30."),
        ScriptStep::text("{\"name\": \"Alice\", \"age\": \"thirty\"}"),
        ScriptStep::text("{\"name\": \"Alice\", \"age\": 30}"),
    ]);
    let result = block_on(generate_object(&client, &runtime(), Generate::new("m", "Alice is 30"), person(), 3)).unwrap();
    assert_eq!(result.output, Some(json!({"name": "Alice", "age": 30})));
    let requests = client.requests();
    let second = &requests[1].messages;
    assert_eq!(second.len(), 3, "the prompt, the refused answer, what is wrong");
    assert!(second[2].text().starts_with("That answer is not the JSON object asked for: it is not JSON"), "{}", second[2].text());
    let third = requests[2].messages.last().unwrap().text();
    assert!(third.contains("it does not match the schema: /age:"), "{third}");
}

#[test]
fn generate_object_fails_with_no_object_generated_naming_the_problems() {
    let client = ScriptedClient::new([ScriptStep::text("{\"name\": 1}"), ScriptStep::text("{\"name\": 2}")]);
    let error = block_on(generate_object(&client, &runtime(), Generate::new("m", "who?"), person(), 2)).unwrap_err();
    assert_eq!(error.kind, ErrorKind::NoObjectGenerated);
    assert!(error.message.starts_with("no valid object after 2 attempts: it does not match the schema:"), "{}", error.message);
    assert!(error.message.contains("/name"), "{}", error.message);
}

#[test]
fn a_failed_call_is_retried_alone_without_repeating_the_steps_before_it() {
    let calls = Rc::new(RefCell::new(Vec::new()));
    let client = ScriptedClient::new([
        ScriptStep::tool_call("weather", json!({"city": "Oslo"})),
        ScriptStep::fail(ErrorKind::RateLimit, "429"),
        ScriptStep::fail(ErrorKind::Server, "503"),
        ScriptStep::text("Oslo is mild."),
    ]);
    let mut options = Generate::new("m", "weather?");
    options.tools = vec![weather(calls.clone())];
    let result = run(&client, options.clone()).unwrap();
    assert_eq!((result.text(), result.steps.len(), client.calls()), ("Oslo is mild.", 2, 4));
    assert_eq!(calls.borrow().len(), 1, "the tool ran once: the first step was not repeated");
    let requests = client.requests();
    assert_eq!(requests[1].messages, requests[3].messages, "each retry sends the same call again");

    let client = ScriptedClient::new([ScriptStep::fail(ErrorKind::Authentication, "401"), ScriptStep::text("never")]);
    assert_eq!(run(&client, options).unwrap_err().kind, ErrorKind::Authentication);
    assert_eq!(client.calls(), 1, "an authentication error is not retried");
}

#[test]
fn every_step_is_priced_by_the_catalog_and_the_total_adds_them_up() {
    let calls = Rc::new(RefCell::new(Vec::new()));
    let script = || [ScriptStep::tool_calls(&[("weather", json!({"city": "Oslo"}))]), ScriptStep::text("Mild.")];
    // claude-haiku-4-5: $1 in, $5 out per million; each scripted answer is 10 in and 5 out.
    let mut options = Generate::new("claude-haiku-4-5", "weather?");
    options.tools = vec![weather(calls.clone())];
    let result = run(&ScriptedClient::new(script()), options).unwrap();
    let per_step = (10.0 * 1.0 + 5.0 * 5.0) / 1e6;
    assert_eq!(result.steps.iter().map(|s| s.usage.cost_usd).collect::<Vec<_>>(), [Some(per_step), Some(per_step)]);
    assert_eq!(result.total_usage.cost_usd, Some(2.0 * per_step));

    // A host's catalog reprices it; a model no catalog knows is unpriced.
    let patch = serde_json::from_value(
        json!({"models": [{"id": "claude-haiku-4-5", "input_cost_per_million": 0, "output_cost_per_million": 0}]}),
    );
    let mut options = Generate::new("claude-haiku-4-5", "weather?");
    options.tools = vec![weather(calls.clone())];
    options.catalog = Some(Rc::new(crate::catalog::Catalog::builtin().clone().with_overrides(patch.unwrap()).unwrap()));
    assert_eq!(run(&ScriptedClient::new(script()), options).unwrap().total_usage.cost_usd, Some(0.0));
    let mut options = Generate::new("local-model", "weather?");
    options.tools = vec![weather(calls)];
    assert_eq!(run(&ScriptedClient::new(script()), options).unwrap().total_usage.cost_usd, None);
}
