//! Opt-in: a real session with tools against a real OpenAI-compatible server (llama.cpp's, from
//! `shared/tools/offline-llm/`), through each of its three APIs: Chat Completions, Responses and
//! Anthropic Messages. Skipped unless `OPENAGENT_E2E_LLM_URL` names the server, e.g.
//! `OPENAGENT_E2E_LLM_URL=http://127.0.0.1:8093 cargo test -p openagent-tests --test e2e_offline_llm -- --nocapture`.
//!
//! A 0.5B model proves the protocol, not answer quality: each run must reach the server, have its
//! requests accepted, stream back text or tool calls that parse, run any tool calls and send the
//! results back, and stop within its round limit without an error.

use std::rc::Rc;

use futures::StreamExt;
use openagent_core::llm::anthropic_messages::AnthropicMessages;
use openagent_core::llm::http::HttpClient;
use openagent_core::llm::openai_chat::OpenAiChat;
use openagent_core::llm::openai_responses::OpenAiResponses;
use openagent_core::llm::{ErrorKind, HttpLlmClient, LlmClient, ProviderConfig};
use openagent_core::session::{EventData, StopReason, Turn};
use openagent_core::tools::{register_core_tools, ToolRegistry};
use openagent_core::{CoreProfile, ExecutionEnvironment, GeneralProfile, Session, SessionConfig, SessionError, SessionStatus};
use openagent_host::{NativeHttpClient, NativeHttpConfig, NativeRuntime};
use openagent_memenv::MemoryEnvironment;

fn server() -> Option<String> {
    match std::env::var("OPENAGENT_E2E_LLM_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url.trim().trim_end_matches('/').to_owned()),
        _ => {
            println!("skipped: set OPENAGENT_E2E_LLM_URL to an OpenAI-compatible server (see shared/tools/offline-llm/)");
            None
        }
    }
}

/// A small model on one thread may think for a while before its first byte.
fn patient_http() -> Rc<dyn HttpClient> {
    Rc::new(NativeHttpClient::with_config(NativeHttpConfig {
        read_timeout: std::time::Duration::from_secs(180),
        ..NativeHttpConfig::default()
    }))
}

fn config(base_url: String) -> ProviderConfig {
    ProviderConfig { base_url, ..ProviderConfig::default() }
}

/// What one run did, for the report and the assertions.
struct Outcome {
    stop: StopReason,
    tool_calls: Vec<String>,
    text: String,
    model_calls: usize,
}

fn run(api: &str, client: Rc<dyn LlmClient>, streaming: bool) -> Outcome {
    let runtime = Rc::new(NativeRuntime::new());
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    runtime.block_on(env.write_file("src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n")).expect("seed file");
    let mut registry = ToolRegistry::new();
    register_core_tools(&mut registry);
    let profile =
        Rc::new(CoreProfile::new("local", registry).with_id(api).with_streaming(streaming).with_context_window_size(4096));
    let config = SessionConfig { max_tool_rounds_per_input: 3, ..SessionConfig::default() };
    let session = Session::builder(profile, env, client, runtime.clone()).config(config).build();
    let mut events = session.events();
    let stop = runtime.block_on(session.submit("Read src/main.rs with the read_file tool, then tell me what it prints."));
    session.close();
    drop(session);
    let mut outcome = Outcome { stop: StopReason::Error, tool_calls: vec![], text: String::new(), model_calls: 0 };
    runtime.block_on(async {
        while let Some(event) = events.next().await {
            match event.data {
                EventData::ToolCallEnd { tool_name, error, .. } => {
                    outcome.tool_calls.push(error.map_or(tool_name.clone(), |e| format!("{tool_name} (error: {e})")))
                }
                EventData::AssistantTextEnd { text, .. } => {
                    outcome.model_calls += 1;
                    outcome.text = text;
                }
                _ => {}
            }
        }
    });
    match stop {
        Ok(stop) => outcome.stop = stop,
        Err(e) => panic!("{api}: the run failed: {e}"),
    }
    println!(
        "{api:<22} streaming={streaming:<5} stop={:?} model calls={} tools={:?} text={:?}",
        outcome.stop,
        outcome.model_calls,
        outcome.tool_calls,
        outcome.text.chars().take(120).collect::<String>()
    );
    outcome
}

fn check(api: &str, outcome: &Outcome) {
    assert!(outcome.model_calls >= 1, "{api}: no model response");
    assert!(matches!(outcome.stop, StopReason::Completed | StopReason::RoundLimit), "{api}: stopped by {:?}", outcome.stop);
    assert!(outcome.model_calls <= 4, "{api}: the round limit of 3 was not kept");
}

#[test]
fn a_session_with_tools_runs_against_a_real_server_over_each_api() {
    let Some(url) = server() else { return };
    let http = patient_http();
    let apis: Vec<(&str, Rc<dyn LlmClient>)> = vec![
        ("chat-completions", Rc::new(HttpLlmClient::new(OpenAiChat::new(config(format!("{url}/v1"))), http.clone()))),
        ("responses", Rc::new(HttpLlmClient::new(OpenAiResponses::new(config(format!("{url}/v1"))), http.clone()))),
        ("anthropic-messages", Rc::new(HttpLlmClient::new(AnthropicMessages::new(config(url.clone())), http))),
    ];
    for (api, client) in apis {
        for streaming in [true, false] {
            let outcome = run(api, client.clone(), streaming);
            check(api, &outcome);
        }
    }
}

/// Spec 9.13's inputs, as far as they run offline, through the general profile (the one for
/// OpenAI-compatible servers) against the real model: every input must finish within its round
/// limit without an error, with any tool calls parsed, run and answered.
#[test]
fn the_smoke_inputs_run_through_the_general_profile_against_a_real_server() {
    let Some(url) = server() else { return };
    let runtime = Rc::new(NativeRuntime::new());
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let client = Rc::new(HttpLlmClient::new(OpenAiChat::new(config(format!("{url}/v1"))), patient_http()));
    let profile = Rc::new(GeneralProfile::new("local").with_context_window_size(4096));
    let config = SessionConfig { max_tool_rounds_per_input: 2, ..SessionConfig::default() };
    let session = Session::builder(profile, env.clone(), client, runtime.clone()).config(config).build();
    let mut events = session.events();
    runtime.block_on(env.write_file("big.txt", &format!("{}\n", "x".repeat(99)).repeat(1000))).expect("seed");
    for input in [
        "Create a file called hello.py that prints 'Hello World'",
        "Read hello.py and add a second print statement that says 'Goodbye'",
        "Run hello.py and show the output",
        "Read big.txt",
    ] {
        let stop = match runtime.block_on(session.submit(input)) {
            Ok(stop) => stop,
            // A small local context (4096 tokens here) cannot hold a 50 000-character tool result:
            // the server refuses it, which must be a context-length error that leaves the session
            // usable (spec 9.11), not a crash.
            Err(SessionError::Llm(e)) if e.kind == ErrorKind::ContextLength => {
                println!("general profile: {input:?} -> context length error, as expected here: {e}");
                assert_eq!(session.status(), SessionStatus::Idle);
                continue;
            }
            Err(e) => panic!("{input:?}: {e}"),
        };
        let mut tools = Vec::new();
        while let Some(event) = events.try_recv() {
            if let EventData::ToolCallEnd { tool_name, error, .. } = event.data {
                tools.push(
                    error.map_or(tool_name.clone(), |e| {
                        format!("{tool_name} (error: {})", e.chars().take(60).collect::<String>())
                    }),
                );
            }
        }
        println!("general profile: {input:?} -> {stop:?}, tools {tools:?}");
        assert!(matches!(stop, StopReason::Completed | StopReason::RoundLimit), "{input:?} stopped by {stop:?}");
    }
    let files: Vec<String> = env.list_all_files();
    println!("general profile: files afterwards {files:?}");
}

/// Compaction against the real model, in a window of 4096 tokens (the server's own `n_ctx` in
/// the README's command): long inputs fill the window, the session has the model summarise the
/// older turns, and the next answer still comes without an error.
#[test]
fn a_small_window_compacts_with_the_real_model_and_the_next_answer_still_works() {
    let Some(url) = server() else { return };
    let runtime = Rc::new(NativeRuntime::new());
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let client = Rc::new(HttpLlmClient::new(OpenAiChat::new(config(format!("{url}/v1"))), patient_http()));
    let profile = Rc::new(CoreProfile::new("local", ToolRegistry::new()).with_context_window_size(4096));
    let config = SessionConfig { max_output_tokens: Some(120), ..SessionConfig::default() };
    let session = Session::builder(profile, env, client, runtime.clone()).config(config).build();
    let mut events = session.events();
    let filler = "The build runs on two cores, the tests run in Node and in Chromium, and every release is \
                  checked against the bundle budget before it ships. ";
    let notes = ["Kestrel", "Marmot", "Heron", "Otter", "Lynx"].map(|name| {
        format!("Project note about the {name} module. {}Reply with one short sentence that names the module.", filler.repeat(16))
    });
    for note in notes.iter().chain([&"In one sentence: which modules did the notes mention?".to_owned()]) {
        let stop = runtime.block_on(session.submit(note.as_str())).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stop, StopReason::Completed);
    }
    let (mut compactions, mut answer) = (Vec::new(), String::new());
    while let Some(event) = events.try_recv() {
        match event.data {
            EventData::CompactionEnd { reason, tokens_before, tokens_after, summarized_turns, error, .. } => {
                assert!(error.is_none(), "the summary failed: {error:?}");
                compactions.push((reason, tokens_before, tokens_after, summarized_turns));
            }
            EventData::AssistantTextEnd { text, .. } => answer = text,
            _ => {}
        }
    }
    println!("compactions (reason, tokens before, after, turns summarised): {compactions:?}");
    println!("last answer: {answer:?}");
    let summary = session.history().iter().find_map(|turn| match turn {
        Turn::Summary { content, .. } => Some(content.clone()),
        _ => None,
    });
    println!("summary: {summary:?}");
    assert!(compactions.iter().any(|c| c.3 > 0), "no compaction in a 4096-token window");
    assert!(!answer.trim().is_empty(), "no answer after compaction");
}

/// The LLM layer's high-level API against the real model: `generate` with a tool (the loop must
/// run the call the model makes and send the result back, within its rounds), and
/// `generate_object` (llama.cpp constrains the answer to the schema; it must come back validated).
#[test]
fn generate_with_a_tool_and_generate_object_run_against_a_real_server() {
    use openagent_core::llm::{generate, generate_object, Generate, Tool, ToolDefinition, ToolHandler};
    use serde_json::{json, Value};

    let Some(url) = server() else { return };
    let runtime = NativeRuntime::new();
    let client = HttpLlmClient::new(OpenAiChat::new(config(format!("{url}/v1"))), patient_http());
    let calls = Rc::new(std::cell::Cell::new(0));
    let counted = calls.clone();
    let handler: ToolHandler = Rc::new(move |_arguments: Value| {
        counted.set(counted.get() + 1);
        Box::pin(async { Ok("Oslo: 21 degrees, sunny".to_owned()) })
    });
    let parameters = json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
    let definition =
        ToolDefinition { name: "get_weather".into(), description: "The current weather in a city".into(), parameters };
    let mut options = Generate::new("local", "What is the weather in Oslo? Use the get_weather tool.");
    options.tools = vec![Tool { definition, execute: Some(handler) }];
    options.max_tool_rounds = 2;
    options.request.max_tokens = Some(200);
    let result = runtime.block_on(generate(&client, &runtime, options)).expect("generate runs");
    println!(
        "generate: {} steps, {} tool calls run, {} tokens in total, final text {:?}",
        result.steps.len(),
        calls.get(),
        result.total_usage.total_tokens,
        result.text()
    );
    assert!(result.steps.len() <= 3, "within max_tool_rounds + 1 calls");
    assert!(result.total_usage.total_tokens > 0);
    if calls.get() > 0 {
        assert!(result.steps[0].tool_results.iter().any(|r| r.content.contains("Oslo: 21")), "the result went back");
    }

    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name", "age"]});
    let mut options = Generate::new("local", "Extract the person as JSON: 'Alice is 30 years old.'");
    options.request.max_tokens = Some(100);
    let result = runtime.block_on(generate_object(&client, &runtime, options, schema, 3)).expect("an object");
    let output = result.output.expect("validated");
    println!("generate_object: {output}");
    assert!(output["name"].is_string() && output["age"].is_i64(), "{output}");
}
