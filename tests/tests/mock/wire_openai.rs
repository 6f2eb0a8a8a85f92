//! OpenAI Responses and Chat Completions: objects and streams (unified-llm-spec 7.5, 7.7).

use std::collections::BTreeMap;

use openagent_tests::{Reply, Step};
use serde_json::{json, Value};

use crate::support::{full_reply, post, serve};

fn args(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("arguments are not JSON ({e}): {text}"))
}

#[test]
fn spec_7_5_responses_output_holds_reasoning_message_and_function_calls() {
    let server = serve([Step::reply(full_reply())]);
    let answer = post(&server, "/v1/responses", &json!({"model": "gpt-5", "input": "hi"}));
    assert!(answer.header("x-request-id").is_some());
    let response = answer.json();
    assert_eq!((response["object"].as_str(), response["status"].as_str()), (Some("response"), Some("completed")));
    assert!(response["id"].as_str().is_some_and(|id| id.starts_with("resp_")));
    assert_eq!(response["model"], "gpt-5");
    let output = response["output"].as_array().expect("output items");
    let types: Vec<&str> = output.iter().filter_map(|i| i["type"].as_str()).collect();
    assert_eq!(types, ["reasoning", "message", "function_call", "function_call"]);
    assert!(output[0]["id"].as_str().is_some_and(|id| id.starts_with("rs_")));
    assert_eq!(output[0]["summary"][0]["text"], "The user wants two files read.");
    assert_eq!(output[0].get("encrypted_content"), None, "only when the request includes it");
    assert_eq!(
        output[1]["content"][0],
        json!({"type": "output_text", "annotations": [], "logprobs": [], "text": "I will read both files."})
    );
    for (item, expected) in output[2..].iter().zip([json!({"path": "src/main.rs"}), json!({"path": "Cargo.toml", "limit": 20})]) {
        assert!(item["call_id"].as_str().is_some_and(|id| id.starts_with("call_")));
        assert!(item["id"].as_str().is_some_and(|id| id.starts_with("fc_")));
        assert_eq!((item["name"].as_str(), args(item["arguments"].as_str().expect("a string"))), (Some("read_file"), expected));
    }
    let usage = &response["usage"];
    assert_eq!(
        (usage["input_tokens"].as_u64(), usage["output_tokens"].as_u64(), usage["total_tokens"].as_u64()),
        (Some(120), Some(45), Some(165))
    );
    assert_eq!(usage["output_tokens_details"]["reasoning_tokens"], 0);
}

#[test]
fn responses_return_encrypted_reasoning_when_included() {
    let server = serve([Step::reply(full_reply())]);
    let body = json!({"model": "gpt-5", "input": "hi", "store": false, "include": ["reasoning.encrypted_content"]});
    let response = post(&server, "/v1/responses", &body).json();
    assert!(response["output"][0]["encrypted_content"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(response["store"], false);
}

#[test]
fn spec_7_7_responses_stream_runs_from_created_to_completed() {
    let server = serve([Step::reply(full_reply())]);
    let answer = post(&server, "/v1/responses", &json!({"model": "gpt-5", "input": "hi", "stream": true}));
    for event in answer.sse() {
        let data: Value = serde_json::from_str(&event.data).expect("JSON");
        assert_eq!(event.event.as_deref(), data["type"].as_str());
    }
    let events = answer.sse_json();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(kinds[..2], ["response.created", "response.in_progress"]);
    assert_eq!(kinds.last(), Some(&"response.completed"));
    for (i, event) in events.iter().enumerate() {
        assert_eq!(event["sequence_number"], i, "sequence numbers count up from 0");
    }
    assert_eq!(events[0]["response"]["status"], "in_progress");
    let completed = &events[events.len() - 1]["response"];
    assert_eq!(completed["id"], events[0]["response"]["id"]);
    assert_eq!((completed["status"].as_str(), completed["usage"]["output_tokens"].as_u64()), (Some("completed"), Some(45)));

    let joined = |kind: &str| {
        let mut by_item: BTreeMap<u64, String> = BTreeMap::new();
        for e in events.iter().filter(|e| e["type"] == kind) {
            by_item
                .entry(e["output_index"].as_u64().expect("output_index"))
                .or_default()
                .push_str(e["delta"].as_str().expect("delta"));
        }
        by_item
    };
    assert_eq!(joined("response.reasoning_summary_text.delta")[&0], "The user wants two files read.");
    assert_eq!(joined("response.output_text.delta")[&1], "I will read both files.");
    assert_eq!(args(&joined("response.function_call_arguments.delta")[&3]), json!({"path": "Cargo.toml", "limit": 20}));
    let added = events.iter().filter(|e| e["type"] == "response.output_item.added").count();
    let done: Vec<&Value> = events.iter().filter(|e| e["type"] == "response.output_item.done").map(|e| &e["item"]).collect();
    assert_eq!((added, done.len()), (4, 4));
    assert_eq!(
        done.iter().map(|item| (*item).clone()).collect::<Vec<_>>(),
        completed["output"].as_array().expect("output").clone()
    );
    assert!(done[2]["call_id"].as_str().is_some_and(|id| id.starts_with("call_")));
}

#[test]
fn spec_7_5_chat_completion_has_one_choice_with_tool_calls() {
    let server = serve([Step::reply(full_reply())]);
    let completion = post(&server, "/v1/chat/completions", &json!({"model": "llama", "messages": []})).json();
    assert_eq!(completion["object"], "chat.completion");
    assert!(completion["id"].as_str().is_some_and(|id| id.starts_with("chatcmpl-")));
    let choice = &completion["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    let message = &choice["message"];
    assert_eq!((message["role"].as_str(), message["content"].as_str()), (Some("assistant"), Some("I will read both files.")));
    assert_eq!(message["reasoning_content"], "The user wants two files read.");
    let calls = message["tool_calls"].as_array().expect("tool calls");
    assert_eq!(calls.len(), 2);
    assert!(calls[0]["id"].as_str().is_some_and(|id| id.starts_with("call_")));
    assert_eq!(calls[1]["type"], "function");
    assert_eq!(args(calls[1]["function"]["arguments"].as_str().expect("a string")), json!({"path": "Cargo.toml", "limit": 20}));
    let usage = &completion["usage"];
    assert_eq!(
        (usage["prompt_tokens"].as_u64(), usage["completion_tokens"].as_u64(), usage["total_tokens"].as_u64()),
        (Some(120), Some(45), Some(165))
    );
}

#[test]
fn spec_7_7_chat_stream_sends_deltas_then_done() {
    let server = serve([Step::reply(full_reply()), Step::reply(Reply::text("Hi there"))]);
    let body = json!({"model": "llama", "messages": [], "stream": true, "stream_options": {"include_usage": true}});
    let answer = post(&server, "/v1/chat/completions", &body);
    let events = answer.sse();
    assert_eq!(events.last().map(|e| e.data.as_str()), Some("[DONE]"));
    let chunks = answer.sse_json();
    assert!(chunks.iter().all(|c| c["object"] == "chat.completion.chunk" && c["id"] == chunks[0]["id"]));
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let deltas: Vec<&Value> = chunks.iter().filter_map(|c| c["choices"].get(0)).map(|c| &c["delta"]).collect();
    let text: String = deltas.iter().filter_map(|d| d["content"].as_str()).collect();
    let reasoning: String = deltas.iter().filter_map(|d| d["reasoning_content"].as_str()).collect();
    assert_eq!((text.as_str(), reasoning.as_str()), ("I will read both files.", "The user wants two files read."));
    let mut calls: BTreeMap<u64, (String, String, String)> = BTreeMap::new();
    for call in deltas.iter().filter_map(|d| d["tool_calls"].as_array()).flatten() {
        let entry = calls.entry(call["index"].as_u64().expect("index")).or_default();
        entry.0.push_str(call["id"].as_str().unwrap_or(""));
        entry.1.push_str(call["function"]["name"].as_str().unwrap_or(""));
        entry.2.push_str(call["function"]["arguments"].as_str().unwrap_or(""));
    }
    assert_eq!(calls.len(), 2);
    assert!(calls[&0].0.starts_with("call_") && calls[&0].1 == "read_file");
    assert_eq!(args(&calls[&1].2), json!({"path": "Cargo.toml", "limit": 20}));
    let finishes: Vec<&str> = chunks.iter().filter_map(|c| c["choices"][0]["finish_reason"].as_str()).collect();
    assert_eq!(finishes, ["tool_calls"]);
    let last = &chunks[chunks.len() - 1];
    assert_eq!((last["choices"].clone(), last["usage"]["completion_tokens"].as_u64()), (json!([]), Some(45)));

    let without_usage =
        post(&server, "/v1/chat/completions", &json!({"model": "llama", "messages": [], "stream": true})).sse_json();
    assert!(without_usage.iter().all(|c| c.get("usage").is_none()), "usage only when asked for");
}
