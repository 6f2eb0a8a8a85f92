//! A session on the OpenAI Responses API with `chain` on, through real HTTP to the mock server:
//! after the first request, each names the response before it and carries only the tool results
//! that followed; the tools still run and the run ends as it would sent whole.

use std::rc::Rc;

use futures::executor::block_on;
use openagent_core::session::StopReason;
use openagent_core::{ExecutionEnvironment, OpenAiProfile, Session};
use openagent_host::NativeRuntime;
use openagent_memenv::MemoryEnvironment;
use openagent_tests::over_http::{drain, model, serve};
use openagent_tests::{Api, Reply, Step};
use serde_json::{json, Value};

#[test]
fn each_round_sends_only_the_results_that_followed_the_last_response() {
    let server = serve([
        Step::reply(Reply::text("Writing it.").with_tool_call("write_file", json!({"file_path": "a.txt", "content": "one\n"}))),
        Step::reply(Reply::default().with_tool_call("read_file", json!({"file_path": "a.txt"}))),
        Step::reply(Reply::text("a.txt says one.")),
    ]);
    let runtime = Rc::new(NativeRuntime::new());
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let profile = Rc::new(OpenAiProfile::new("mock-model").with_provider_options(json!({"chain": true})));
    let session = Session::builder(profile, env.clone(), model(Api::OpenAiResponses, &server), runtime).build();
    let mut receiver = session.events();
    let result = block_on(session.submit("Write a.txt, then read it.")).expect("the run");
    drain(&mut receiver);
    assert_eq!(result, StopReason::Completed);
    assert_eq!(block_on(env.read_file("a.txt", None, None)).unwrap(), "one\n");

    let bodies: Vec<Value> = server.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(bodies.len(), 3);
    assert_eq!(bodies[0].get("previous_response_id"), None);
    assert!(bodies[0]["input"].as_array().unwrap().iter().any(|item| item["role"] == "user"), "{}", bodies[0]);
    for (i, body) in bodies.iter().enumerate().skip(1) {
        let previous = body["previous_response_id"].as_str().unwrap_or_else(|| panic!("request {i}: {body}"));
        assert!(previous.starts_with("resp"), "{previous}");
        let kinds: Vec<&str> = body["input"].as_array().unwrap().iter().map(|item| item["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["function_call_output"], "request {i}: {body}");
        assert_eq!(body["store"], true);
    }
    assert_ne!(bodies[1]["previous_response_id"], bodies[2]["previous_response_id"]);
}
