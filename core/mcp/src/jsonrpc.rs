//! JSON-RPC 2.0 messages as MCP uses them: requests and notifications out, and the server's
//! messages in, sorted by kind.

use serde_json::{json, Map, Value};

use crate::McpError;

pub fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

pub fn notification(method: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": method})
}

/// A message from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// An answer: `Ok(result)` or `Err((code, message))`.
    Response {
        id: Value,
        outcome: Result<Value, (i64, String)>,
    },
    /// The server asks something of the client (`ping`, or a capability we did not declare).
    Request {
        id: Value,
        method: String,
    },
    Notification {
        method: String,
    },
}

/// Sorts one message. Anything that is not a JSON-RPC 2.0 object of one of the three kinds is a
/// protocol error that names what was wrong.
pub fn classify(message: Value) -> Result<Incoming, McpError> {
    let Value::Object(mut object) = message else {
        return Err(McpError::Protocol(format!("expected a JSON-RPC object, got {}", preview(&message))));
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(McpError::Protocol(format!("a message without \"jsonrpc\": \"2.0\": {}", preview(&Value::Object(object)))));
    }
    let method = object.get("method").and_then(Value::as_str).map(str::to_owned);
    match (take(&mut object, "id"), method) {
        (Some(id), Some(method)) => Ok(Incoming::Request { id, method }),
        (None, Some(method)) => Ok(Incoming::Notification { method }),
        (Some(id), None) => Ok(Incoming::Response { id, outcome: outcome(&mut object)? }),
        (None, None) => {
            Err(McpError::Protocol(format!("a message with neither id nor method: {}", preview(&Value::Object(object)))))
        }
    }
}

fn outcome(object: &mut Map<String, Value>) -> Result<Result<Value, (i64, String)>, McpError> {
    if let Some(result) = take(object, "result") {
        return Ok(Ok(result));
    }
    match take(object, "error") {
        Some(error) => {
            let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
            let message = error.get("message").and_then(Value::as_str).unwrap_or("(no message)");
            Ok(Err((code, message.to_owned())))
        }
        None => Err(McpError::Protocol("a response with neither result nor error".into())),
    }
}

/// A field's value, left `null` in the message (read no further): `Map::remove` would bring the
/// B-tree's rebalancing code into the browser bundle, which nothing else there needs.
fn take(object: &mut Map<String, Value>, key: &str) -> Option<Value> {
    object.get_mut(key).map(Value::take)
}

/// Parses one message from text (a stdio line, an HTTP body, an SSE event's data).
pub fn parse(text: &str) -> Result<Value, McpError> {
    // `from_slice`, as response bodies are read: `from_str` would put a second JSON reader in the browser bundle.
    serde_json::from_slice(text.as_bytes()).map_err(|e| McpError::Protocol(format!("not JSON ({e}): {}", clip(text))))
}

fn preview(value: &Value) -> String {
    clip(&openagent_core::llm::json_text::to_string(value))
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn sorts_the_three_kinds() {
        let ok = classify(json!({"jsonrpc": "2.0", "id": 1, "result": {"a": 1}})).expect("response");
        assert_eq!(ok, Incoming::Response { id: json!(1), outcome: Ok(json!({"a": 1})) });
        let err = classify(json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "nope"}})).expect("error");
        assert_eq!(err, Incoming::Response { id: json!(2), outcome: Err((-32601, "nope".into())) });
        let ping = classify(json!({"jsonrpc": "2.0", "id": "s1", "method": "ping"})).expect("request");
        assert_eq!(ping, Incoming::Request { id: json!("s1"), method: "ping".into() });
        let note = classify(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})).expect("note");
        assert_eq!(note, Incoming::Notification { method: "notifications/tools/list_changed".into() });
    }

    #[test]
    fn malformed_messages_are_protocol_errors() {
        for bad in [json!([1]), json!({"id": 1, "result": {}}), json!({"jsonrpc": "2.0"}), json!({"jsonrpc": "2.0", "id": 1})] {
            assert!(matches!(classify(bad.clone()), Err(McpError::Protocol(_))), "{bad}");
        }
        let error = parse("{not json").expect_err("not JSON");
        assert!(error.to_string().contains("not JSON"), "{error}");
    }
}
