//! The JavaScript API, exercised under Node by wasm-bindgen-test-runner: each test drives an
//! `Agent` as a page would, with a scripted `fetch` (tests/support/fake_llm.js) in place of a
//! model server.

use crate::support::*;
use js_sys::{Function, Reflect};
use openagent_wasm::Agent;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
async fn submit_streams_text_to_on_event_and_resolves_with_the_outcome() {
    let on_event = recorder();
    let fetch = scripted_fetch(js(json!([{"text": "Hello there, friend"}])));
    let options = options(&fetch, json!({}));
    Reflect::set(&options, &"onEvent".into(), &on_event).unwrap();
    let agent = Agent::new(options).unwrap();

    let outcome = data(&submit(&agent, "hi").await.unwrap());
    assert_eq!(outcome["reason"], "completed");
    assert_eq!(outcome["state"], "idle");
    assert_eq!(outcome["text"], "Hello there, friend");
    assert_eq!(outcome["usage"]["total_tokens"], 15);

    // Every event reached onEvent before the promise settled, deltas carrying only the new text.
    let events = data(&get(&on_event, "events"));
    let kinds: Vec<&str> = events.as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"session_start"));
    assert_eq!(kinds.last(), Some(&"processing_end"));
    let deltas: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "assistant_text_delta")
        .map(|e| e["data"]["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, ["Hello ", "there, ", "friend"]);
    assert!(events[0]["timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(events[0]["session_id"], agent.session_id());
}

#[test]
async fn events_iterate_with_for_await_until_the_session_ends() {
    let (agent, _fetch) = agent_with(json!([{"text": "done"}]), json!({}));
    let kinds = collect_kinds(agent.events());
    submit(&agent, "go").await.unwrap();
    agent.abort(); // closes the idle session: the iterator ends after session_end
    let kinds = data(&JsFuture::from(kinds).await.unwrap());
    let kinds: Vec<&str> = kinds.as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"session_start"));
    assert!(kinds.contains(&"assistant_text_delta"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"session_end"));
}

#[test]
async fn a_tool_call_writes_a_file_the_page_can_read() {
    let write = json!({"name": "write_file", "arguments": {"file_path": "hello.py", "content": "print('hi')\n"}});
    let (agent, fetch) = agent_with(json!([{"text": "Writing.", "toolCalls": [write]}, {"text": "Done."}]), json!({}));
    let outcome = data(&submit(&agent, "write hello.py").await.unwrap());
    assert_eq!(outcome["text"], "Done.");
    assert_eq!(agent.fs().read_text("hello.py").unwrap(), "print('hi')\n");
    assert!(agent.fs().list().contains(&"/workspace/hello.py".to_owned()));
    // The tool's result went back to the model in the second request.
    let second = &requests(&fetch)[1]["body"]["messages"];
    assert!(second.as_array().unwrap().iter().any(|m| m["role"] == "tool"), "{second}");
}

#[test]
async fn a_js_tool_runs_async_and_its_output_or_error_reaches_the_model() {
    let calls = [json!({"name": "lookup", "arguments": {"city": "Oslo"}}), json!({"name": "broken", "arguments": {}})];
    let (agent, fetch) = agent_with(json!([{"toolCalls": calls}, {"text": "ok"}]), json!({}));
    let lookup = Function::new_with_args("args", "return Promise.resolve({ city: args.city, temperature: 21 });");
    let spec = js(
        json!({"name": "lookup", "description": "Weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}),
    );
    Reflect::set(&spec, &"execute".into(), &lookup).unwrap();
    agent.register_tool(spec).unwrap();
    let broken = js(json!({"name": "broken"}));
    Reflect::set(&broken, &"execute".into(), &Function::new_no_args("throw new Error('the sensor is offline')")).unwrap();
    agent.register_tool(broken).unwrap();
    assert!(agent.tools().contains(&"lookup".to_owned()));

    submit(&agent, "weather?").await.unwrap();
    let messages = requests(&fetch)[1]["body"]["messages"].to_string();
    assert!(messages.contains(r#"{\"city\":\"Oslo\",\"temperature\":21}"#), "{messages}");
    assert!(messages.contains("the sensor is offline"), "{messages}");
}

#[test]
fn register_tool_rejects_bad_specs_with_a_clear_error() {
    let (agent, _fetch) = agent_with(json!([]), json!({}));
    let no_execute = agent.register_tool(js(json!({"name": "x"}))).unwrap_err();
    assert!(error_message(&no_execute).contains("`execute` must be a function"));
    let spec = js(json!({"name": "x", "parameters": {"type": "string"}}));
    Reflect::set(&spec, &"execute".into(), &Function::new_no_args("")).unwrap();
    assert!(error_message(&agent.register_tool(spec).unwrap_err()).contains("\"type\": \"object\""));
}

#[test]
fn the_filesystem_writes_reads_lists_removes_and_restores_snapshots() {
    let (agent, _fetch) = agent_with(json!([]), json!({"files": {"README.md": "# Hi\n", "src/a.txt": "a"}}));
    let fs = agent.fs();
    assert_eq!(fs.list(), ["/workspace/README.md", "/workspace/src/a.txt"]);
    fs.write("bin.dat", js_sys::Uint8Array::from(&[0u8, 159, 146, 150][..]).into()).unwrap();
    assert_eq!(fs.read("bin.dat").unwrap(), [0, 159, 146, 150]);
    assert!(error_message(&fs.read_text("bin.dat").unwrap_err()).contains("not UTF-8"));
    assert!(error_message(&fs.write("x", JsValue::from(3)).unwrap_err()).contains("string or a Uint8Array"));

    let snapshot = fs.snapshot().unwrap();
    assert_eq!(data(&snapshot)["version"], 1);
    fs.remove("src", Some(true)).unwrap();
    assert!(error_message(&fs.read_text("src/a.txt").unwrap_err()).contains("src/a.txt"));
    assert!(fs.restore(js(json!({"files": []}))).is_err(), "a snapshot without a version is refused");
    fs.restore(snapshot.clone()).unwrap();
    assert_eq!(fs.read_text("src/a.txt").unwrap(), "a");

    // A snapshot also seeds a new agent.
    let fetch = scripted_fetch(js(json!([])));
    let options = options(&fetch, json!({}));
    Reflect::set(&options, &"files".into(), &snapshot).unwrap();
    assert_eq!(Agent::new(options).unwrap().fs().read("bin.dat").unwrap(), [0, 159, 146, 150]);
}

#[test]
fn bad_options_are_refused_with_a_message_that_says_what_to_fix() {
    let fetch = scripted_fetch(js(json!([])));
    let refused = |extra: Value| {
        error_message(&Agent::new(options(&fetch, extra.clone())).err().unwrap_or_else(|| panic!("{extra} accepted")))
    };
    assert!(refused(json!({"apikey": "k"})).contains("unknown field `apikey`"));
    assert!(refused(json!({"provider": "openia"})).contains("unknown provider `openia`"));
    assert!(refused(json!({"baseUrl": "localhost:8080"})).contains("not an http:// or https:// URL"));
    assert!(refused(json!({"reasoningEffort": "max"})).contains("not one of minimal, low, medium, high"));
    assert!(refused(json!({"profile": "claude"})).contains("openai, anthropic, gemini, general"));
    assert!(refused(json!({"model": null})).contains("Agent.discoverModel()"));
    assert!(refused(json!({"provider": "anthropic", "baseUrl": null})).contains("`apiKey` or `getApiKey`"));
    assert!(refused(json!({"files": {"a.txt": 1}})).contains("files[\"a.txt\"] must be a string"));
    assert!(refused(json!({"subagents": "yes"})).contains("`subagents` must be true or false"));
    let options = options(&fetch, json!({}));
    Reflect::set(&options, &"onEvent".into(), &"log".into()).unwrap();
    assert!(error_message(&Agent::new(options).err().unwrap()).contains("`onEvent` must be a function"));
    assert!(error_message(&Agent::new(JsValue::from("openai")).err().unwrap()).contains("pass an object"));
}

#[test]
async fn the_general_profile_offers_subagents_only_when_asked() {
    for (extra, offered) in [(json!({}), false), (json!({"subagents": true}), true)] {
        let (agent, fetch) = agent_with(json!([{"text": "ok"}]), extra);
        submit(&agent, "hi").await.unwrap();
        let tools = requests(&fetch)[0]["body"]["tools"].to_string();
        assert_eq!(tools.contains("spawn_agent"), offered, "{tools}");
    }
}

#[test]
async fn an_on_event_that_throws_still_gets_every_later_event_in_order() {
    let read = json!({"name": "read_file", "arguments": {"file_path": "README.md"}});
    let fetch = scripted_fetch(js(json!([{"toolCalls": [read]}, {"text": "ok"}])));
    let options = options(&fetch, json!({"files": {"README.md": "hi"}}));
    // Throws at every tool event; the events of a tool round cross into JS together.
    let on_event = Function::new_with_args(
        "event",
        "(this.kinds ??= []).push(event.kind); if (event.kind.startsWith('tool_call')) throw new Error('page bug');",
    );
    let seen = js_sys::Object::new();
    Reflect::set(&options, &"onEvent".into(), &on_event.bind0(&seen)).unwrap();
    let agent = Agent::new(options).unwrap();
    assert_eq!(data(&submit(&agent, "read it").await.unwrap())["reason"], "completed");
    let kinds = data(&get(&seen, "kinds"));
    let kinds: Vec<&str> = kinds.as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
    let at = |kind: &str| kinds.iter().position(|k| *k == kind).unwrap_or_else(|| panic!("no {kind} in {kinds:?}"));
    assert!(at("tool_call_start") < at("tool_call_end") && at("tool_call_end") < at("processing_end"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"processing_end"));
}

#[test]
async fn every_tool_output_reaches_the_page_as_the_model_gets_it_through_on_event_and_events() {
    // Outputs cross beside the events' JSON, as bytes: several in one batch, one missing between.
    let read = |path: &str| json!({"name": "read_file", "arguments": {"file_path": path}});
    let calls = [read("a.txt"), read("missing.txt"), read("b.txt")];
    let files = json!({"a.txt": "quotes \" and \\ and\ttabs\r\nünïcödé ✓ 😀 \u{1}\n", "b.txt": "second\n"});
    let fetch = scripted_fetch(js(json!([{"toolCalls": calls}, {"text": "ok"}])));
    let options = options(&fetch, json!({"files": files}));
    let on_event = recorder();
    Reflect::set(&options, &"onEvent".into(), &on_event).unwrap();
    let agent = Agent::new(options).unwrap();
    let iterated = JsFuture::from(collect_events(agent.events()));
    submit(&agent, "read them").await.unwrap();
    agent.abort(); // closes the idle session: the iterator ends after session_end
    let iterated = data(&iterated.await.unwrap());
    // What the model got for each call, from the second request.
    let sent = requests(&fetch);
    let messages = sent[1]["body"]["messages"].as_array().unwrap().clone();
    let got = |id: &Value| messages.iter().find(|m| m["tool_call_id"] == *id).map(|m| m["content"].clone()).unwrap();
    for events in [data(&get(&on_event, "events")), iterated] {
        let ends: Vec<&Value> = events.as_array().unwrap().iter().filter(|e| e["kind"] == "tool_call_end").collect();
        assert_eq!(ends.len(), 3, "{events}");
        for end in [ends[0], ends[2]] {
            assert_eq!(end["data"]["output"], got(&end["data"]["call_id"]), "{end}");
        }
        assert!(ends[0]["data"]["output"].as_str().unwrap().contains("ünïcödé ✓ 😀 \u{1}"), "{}", ends[0]);
        assert_eq!(ends[1]["data"]["output"], Value::Null);
        assert!(ends[1]["data"]["error"].as_str().unwrap().contains("missing.txt"), "{}", ends[1]);
        let keys: Vec<&String> = ends[2]["data"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["call_id", "duration_ms", "error", "output", "tool_name"], "the keys in their usual order");
    }
}

#[test]
async fn the_key_goes_in_a_header_only_and_get_api_key_is_asked_per_call() {
    let read = json!({"name": "read_file", "arguments": {"file_path": "README.md"}});
    let fetch = scripted_fetch(js(json!([{"toolCalls": [read]}, {"text": "ok"}])));
    let options = options(&fetch, json!({"files": {"README.md": "hi"}}));
    let keys = Function::new_no_args("this.n = (this.n || 0) + 1; return Promise.resolve('sk-test-' + this.n);");
    let counter = js_sys::Object::new();
    Reflect::set(&options, &"getApiKey".into(), &keys.bind0(&counter)).unwrap();
    let on_event = recorder();
    Reflect::set(&options, &"onEvent".into(), &on_event).unwrap();
    let agent = Agent::new(options).unwrap();
    submit(&agent, "read it").await.unwrap();
    let sent = requests(&fetch);
    assert_eq!(sent[0]["headers"]["authorization"], "Bearer sk-test-1");
    assert_eq!(sent[1]["headers"]["authorization"], "Bearer sk-test-2");
    assert!(!data(&get(&on_event, "events")).to_string().contains("sk-test"));
}

#[test]
async fn an_authentication_error_rejects_with_its_kind_and_status_and_closes_the_agent() {
    let (agent, _fetch) =
        agent_with(json!([{"status": 401, "message": "Incorrect API key provided: sk-wro***"}]), json!({"apiKey": "sk-wrong"}));
    let error = submit(&agent, "hi").await.unwrap_err();
    assert_eq!(get(&error, "kind").as_string().as_deref(), Some("authentication"));
    assert_eq!(get(&error, "status").as_f64(), Some(401.0));
    assert!(error_message(&error).contains("Incorrect API key"));
    assert_eq!(agent.state().as_string().as_deref(), Some("closed"));
    assert_eq!(get(&submit(&agent, "again").await.unwrap_err(), "kind").as_string().as_deref(), Some("closed"));
}

#[test]
async fn a_rate_limit_is_retried_and_reported() {
    let on_event = recorder();
    let fetch = scripted_fetch(js(json!([{"status": 429, "message": "slow down", "retryAfter": 0}, {"text": "made it"}])));
    let options = options(&fetch, json!({}));
    Reflect::set(&options, &"onEvent".into(), &on_event).unwrap();
    let agent = Agent::new(options).unwrap();
    assert_eq!(data(&submit(&agent, "hi").await.unwrap())["text"], "made it");
    let events = data(&get(&on_event, "events"));
    let retry = events.as_array().unwrap().iter().find(|e| e["kind"] == "provider_retry").expect("a provider_retry event");
    assert_eq!(retry["data"]["error_kind"], "rate_limit");
    assert_eq!(retry["data"]["attempt"], 1);
}

#[test]
async fn steering_is_injected_after_the_tool_round() {
    let list = json!({"name": "list_dir", "arguments": {"path": "."}});
    let (agent, fetch) = agent_with(json!([{"toolCalls": [list], "delayMs": 50}, {"text": "ok"}]), json!({}));
    let run = agent.submit("look around".into());
    pause().await; // the first model call is under way
    agent.steer("also check the tests".into());
    JsFuture::from(run).await.unwrap();
    let first = requests(&fetch)[0]["body"]["messages"].clone();
    assert_eq!(first.as_array().unwrap().last().unwrap()["content"], "look around");
    let second = requests(&fetch)[1]["body"]["messages"].clone();
    let last = second.as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "user");
    assert_eq!(last["content"], "also check the tests");
}

#[test]
async fn abort_stops_a_hanging_call_and_closes_the_agent() {
    let (agent, fetch) = agent_with(json!([{"hang": true}]), json!({}));
    let run = agent.submit("wait forever".into());
    pause().await;
    agent.abort();
    let outcome = data(&JsFuture::from(run).await.unwrap());
    assert_eq!(outcome["reason"], "aborted");
    assert_eq!(outcome["state"], "closed");
    assert_eq!(requests(&fetch).len(), 1);
}

#[test]
async fn interrupt_stops_the_task_but_keeps_the_agent() {
    let (agent, _fetch) = agent_with(json!([{"hang": true}, {"text": "back"}]), json!({}));
    let run = agent.submit("wait".into());
    pause().await;
    agent.interrupt();
    assert_eq!(data(&JsFuture::from(run).await.unwrap())["reason"], "interrupted");
    assert_eq!(data(&submit(&agent, "again").await.unwrap())["text"], "back");
}

#[test]
async fn an_abort_signal_aborts_the_agent() {
    let controller = web_sys::AbortController::new().unwrap();
    let fetch = scripted_fetch(js(json!([{"hang": true}])));
    let options = options(&fetch, json!({}));
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    let agent = Agent::new(options).unwrap();
    let run = agent.submit("wait".into());
    pause().await;
    controller.abort();
    assert_eq!(data(&JsFuture::from(run).await.unwrap())["reason"], "aborted");
}

#[test]
async fn reasoning_effort_reaches_the_request_and_bad_values_are_refused() {
    let (agent, fetch) = agent_with(json!([{"text": "a"}, {"text": "b"}]), json!({"reasoningEffort": "low"}));
    submit(&agent, "one").await.unwrap();
    agent.set_reasoning_effort(Some("high".into())).unwrap();
    submit(&agent, "two").await.unwrap();
    let sent = requests(&fetch);
    assert_eq!(sent[0]["body"]["reasoning_effort"], "low");
    assert_eq!(sent[1]["body"]["reasoning_effort"], "high");
    assert!(error_message(&agent.set_reasoning_effort(Some("extreme".into())).unwrap_err()).contains("extreme"));
}

#[test]
async fn discover_model_asks_an_openai_compatible_server() {
    let fetch = scripted_fetch(js(json!([{"json": {"object": "list", "data": [{"id": "qwen3-coder", "object": "model"}]}}])));
    let model = JsFuture::from(Agent::discover_model(options(&fetch, json!({"model": null})))).await.unwrap();
    assert_eq!(model.as_string().as_deref(), Some("qwen3-coder"));
    assert_eq!(requests(&fetch)[0]["url"], "http://fake.test/v1/models");
}

#[test]
async fn an_output_schema_gives_a_validated_result_after_corrections() {
    let schema = json!({"type": "object", "required": ["files"], "properties": {"files": {"type": "integer", "minimum": 0}}});
    let replies = json!([
        {"text": "", "toolCalls": [{"name": "submit_result", "arguments": {"files": "two"}}]},
        {"text": "", "toolCalls": [{"name": "submit_result", "arguments": {"files": 2}}]},
    ]);
    let (agent, fetch) = agent_with(replies, json!({"outputSchema": schema}));
    let outcome = data(&submit(&agent, "count the files").await.unwrap());
    assert_eq!(outcome["reason"], "completed");
    assert_eq!(outcome["resultData"], json!({"files": 2}));
    assert_eq!(outcome["outcome"]["status"], "success");
    assert_eq!(outcome["outcome"]["metrics"]["retries"], 1);
    // The refusal named the problem, and the tool's parameters were the schema.
    let second = &requests(&fetch)[1]["body"];
    let refusal = second["messages"].as_array().unwrap().iter().find(|m| m["role"] == "tool").unwrap();
    assert!(refusal["content"].as_str().unwrap().contains("/files"), "{refusal}");
    let tools = second["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["function"]["name"] == "submit_result" && t["function"]["parameters"] == schema));

    // Without a schema the result has no data and the outcome is `done`.
    let (plain, _) = agent_with(json!([{"text": "All done."}]), json!({}));
    let outcome = data(&submit(&plain, "hi").await.unwrap());
    assert_eq!((outcome["resultText"].as_str(), &outcome["resultData"]), (Some("All done."), &Value::Null));
    assert_eq!(outcome["outcome"]["status"], "done");

    // A schema that is not an object schema is refused when the agent is made.
    let fetch = scripted_fetch(js(json!([])));
    let refused = Agent::new(options(&fetch, json!({"outputSchema": {"type": "string"}}))).err().expect("refused");
    assert!(error_message(&refused).starts_with("invalid Agent options: outputSchema:"), "{}", error_message(&refused));
}
