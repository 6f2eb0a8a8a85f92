//! Anthropic Messages: the message object and its SSE event sequence (unified-llm-spec 7.5, 7.7).

use openagent_tests::{Reply, Step};
use serde_json::{json, Value};

use crate::support::{full_reply, post, serve};

fn request(stream: bool) -> Value {
    json!({"model": "claude-sonnet-4-5", "max_tokens": 1024, "stream": stream, "messages": [{"role": "user", "content": "hi"}]})
}

#[test]
fn spec_7_5_anthropic_message_holds_thinking_text_and_tool_use_blocks() {
    let server = serve([Step::reply(full_reply())]);
    let answer = post(&server, "/v1/messages", &request(false));
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-type"), Some("application/json"));
    assert!(answer.header("request-id").is_some_and(|id| id.starts_with("req_")));
    let message = answer.json();
    assert_eq!((message["type"].as_str(), message["role"].as_str()), (Some("message"), Some("assistant")));
    assert_eq!(message["model"], "claude-sonnet-4-5");
    assert!(message["id"].as_str().is_some_and(|id| id.starts_with("msg_01") && id.len() == 28), "{}", message["id"]);
    let content = message["content"].as_array().expect("content blocks");
    let types: Vec<&str> = content.iter().filter_map(|b| b["type"].as_str()).collect();
    assert_eq!(types, ["thinking", "text", "tool_use", "tool_use"]);
    assert_eq!(content[0]["thinking"], "The user wants two files read.");
    assert!(content[0]["signature"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(content[1]["text"], "I will read both files.");
    assert_eq!(content[2]["input"], json!({"path": "src/main.rs"}));
    assert_eq!(content[3]["input"], json!({"path": "Cargo.toml", "limit": 20}));
    let ids: Vec<&str> = content[2..].iter().filter_map(|b| b["id"].as_str()).collect();
    assert!(ids.iter().all(|id| id.starts_with("toolu_01")) && ids[0] != ids[1], "{ids:?}");
    assert_eq!(message["stop_reason"], "tool_use");
    assert_eq!((message["usage"]["input_tokens"].as_u64(), message["usage"]["output_tokens"].as_u64()), (Some(120), Some(45)));
}

#[test]
fn spec_7_7_anthropic_stream_follows_the_event_sequence() {
    let server = serve([Step::reply(full_reply())]);
    let answer = post(&server, "/v1/messages", &request(true));
    assert!(answer.header("content-type").is_some_and(|t| t.starts_with("text/event-stream")));
    let events = answer.sse();
    for event in &events {
        let data: Value = serde_json::from_str(&event.data).expect("JSON");
        assert_eq!(event.event.as_deref(), data["type"].as_str(), "the event name is the JSON type");
    }
    let events = answer.sse_json();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(kinds[..2], ["message_start", "ping"]);
    assert_eq!(kinds[kinds.len() - 2..], ["message_delta", "message_stop"]);
    assert_eq!(events[0]["message"]["content"], json!([]));
    assert_eq!(events[0]["message"]["usage"]["input_tokens"], 120);

    // Rebuild each block from its start and deltas.
    let mut blocks: Vec<(String, String)> = Vec::new(); // (type, accumulated delta text)
    for event in &events {
        let index = event["index"].as_u64().map(|i| i as usize);
        match event["type"].as_str() {
            Some("content_block_start") => {
                assert_eq!(index, Some(blocks.len()), "blocks start in order");
                blocks.push((event["content_block"]["type"].as_str().expect("type").to_owned(), String::new()));
            }
            Some("content_block_delta") => {
                let delta = &event["delta"];
                let piece = ["thinking", "text", "partial_json"].iter().find_map(|k| delta[*k].as_str()).unwrap_or("");
                blocks[index.expect("index")].1.push_str(piece);
            }
            _ => {}
        }
    }
    let types: Vec<&str> = blocks.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(types, ["thinking", "text", "tool_use", "tool_use"]);
    assert_eq!(blocks[0].1, "The user wants two files read.");
    assert_eq!(blocks[1].1, "I will read both files.");
    assert_eq!(serde_json::from_str::<Value>(&blocks[3].1).expect("arguments JSON"), json!({"path": "Cargo.toml", "limit": 20}));
    assert!(events.iter().any(|e| e["delta"]["type"] == "signature_delta"));
    let stops = events.iter().filter(|e| e["type"] == "content_block_stop").count();
    assert_eq!(stops, 4);
    let delta = events.iter().find(|e| e["type"] == "message_delta").expect("message_delta");
    assert_eq!((delta["delta"]["stop_reason"].as_str(), delta["usage"]["output_tokens"].as_u64()), (Some("tool_use"), Some(45)));
}

#[test]
fn anthropic_text_only_reply_ends_the_turn() {
    let server = serve([Step::reply(Reply::text("Paris."))]);
    let message = post(&server, "/v1/messages", &request(false)).json();
    assert_eq!(message["content"], json!([{"type": "text", "text": "Paris."}]));
    assert_eq!(message["stop_reason"], "end_turn");
}
