//! Gemini generateContent and streamGenerateContent, as SSE and as a JSON array
//! (unified-llm-spec 7.5, 7.7).

use openagent_tests::Step;
use serde_json::{json, Value};

use crate::support::{full_reply, post, serve, GEMINI_PATH, GEMINI_STREAM_ARRAY, GEMINI_STREAM_SSE};

fn request() -> Value {
    json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
}

/// (thought text, text, function calls, finish reasons) across chunks.
fn gather(chunks: &[Value]) -> (String, String, Vec<Value>, Vec<String>) {
    let (mut thought, mut text, mut calls, mut finishes) = (String::new(), String::new(), Vec::new(), Vec::new());
    for chunk in chunks {
        let candidate = &chunk["candidates"][0];
        assert_eq!(candidate["content"]["role"], "model");
        for part in candidate["content"]["parts"].as_array().expect("parts") {
            match (part["text"].as_str(), part["thought"] == true) {
                (Some(t), true) => thought.push_str(t),
                (Some(t), false) => text.push_str(t),
                (None, _) => calls.push(part.clone()),
            }
        }
        finishes.extend(candidate["finishReason"].as_str().map(str::to_owned));
    }
    (thought, text, calls, finishes)
}

fn check_calls(calls: &[Value]) {
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["functionCall"], json!({"name": "read_file", "args": {"path": "src/main.rs"}}));
    assert_eq!(calls[1]["functionCall"]["args"], json!({"path": "Cargo.toml", "limit": 20}));
    assert!(calls[0]["thoughtSignature"].as_str().is_some_and(|s| !s.is_empty()), "the first call carries the signature");
}

#[test]
fn spec_7_5_gemini_candidate_holds_thought_text_and_function_calls() {
    let server = serve([Step::reply(full_reply())]);
    let response = post(&server, GEMINI_PATH, &request()).json();
    let (thought, text, calls, finishes) = gather(std::slice::from_ref(&response));
    assert_eq!((thought.as_str(), text.as_str()), ("The user wants two files read.", "I will read both files."));
    check_calls(&calls);
    assert_eq!(finishes, ["STOP"]);
    assert_eq!(response["modelVersion"], "gemini-2.5-flash");
    assert!(response["responseId"].as_str().is_some_and(|id| !id.is_empty()));
    let usage = &response["usageMetadata"];
    assert_eq!((usage["promptTokenCount"].as_u64(), usage["candidatesTokenCount"].as_u64()), (Some(120), Some(45)));
    assert_eq!(usage["totalTokenCount"], 165);
}

#[test]
fn spec_7_7_gemini_streams_sse_with_crlf_line_ends() {
    let server = serve([Step::reply(full_reply())]);
    let answer = post(&server, GEMINI_STREAM_SSE, &request());
    assert!(answer.header("content-type").is_some_and(|t| t.starts_with("text/event-stream")));
    assert!(answer.body.windows(4).any(|w| w == b"\r\n\r\n"), "Gemini ends its SSE lines in CRLF");
    let chunks = answer.sse_json();
    assert!(chunks.len() > 3, "the reply arrives in pieces");
    let (thought, text, calls, finishes) = gather(&chunks);
    assert_eq!((thought.as_str(), text.as_str()), ("The user wants two files read.", "I will read both files."));
    check_calls(&calls);
    assert_eq!(finishes, ["STOP"], "only the last chunk finishes");
    assert_eq!(chunks[chunks.len() - 1]["usageMetadata"]["candidatesTokenCount"], 45);
    assert!(chunks.iter().all(|c| c["responseId"] == chunks[0]["responseId"]));
}

#[test]
fn gemini_streams_a_json_array_without_alt_sse() {
    let server = serve([Step::reply(full_reply())]);
    let answer = post(&server, GEMINI_STREAM_ARRAY, &request());
    let chunks = answer.json();
    let chunks = chunks.as_array().expect("a JSON array of responses");
    let (_, text, calls, finishes) = gather(chunks);
    assert_eq!(text, "I will read both files.");
    check_calls(&calls);
    assert_eq!(finishes, ["STOP"]);
}
