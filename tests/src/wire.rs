//! What every encoder shares: the request being answered, the encoded body, SSE framing, and the
//! way text is cut into stream deltas.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// The request being answered, as far as an encoder cares.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// From the body's `model`, or Gemini's URL path.
    pub model: &'a str,
    /// The request body (`Null` when it was empty or not JSON).
    pub body: &'a Value,
}

/// How the response body is laid out on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// One JSON document.
    Json,
    /// Server-sent events.
    Sse,
    /// Gemini's `streamGenerateContent` without `alt=sse`: a JSON array sent element by element.
    JsonArray,
}

/// An encoded answer: one frame for a plain JSON body; for a stream, one frame per event, each
/// sent as its own HTTP chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireBody {
    pub content_type: &'static str,
    pub streamed: bool,
    pub frames: Vec<Vec<u8>>,
}

impl WireBody {
    pub fn json(value: &Value) -> Self {
        Self { content_type: "application/json", streamed: false, frames: vec![value.to_string().into_bytes()] }
    }

    /// `event: <type>` + `data: <json>` per event (Anthropic, OpenAI Responses).
    pub fn sse_named(events: &[Value]) -> Self {
        let frames = events
            .iter()
            .map(|event| format!("event: {}\ndata: {event}\n\n", event["type"].as_str().unwrap_or("message")).into_bytes())
            .collect();
        Self::stream("text/event-stream; charset=utf-8", frames)
    }

    /// `data: <json>` per event, each line ended by `line_end` (Gemini ends its lines in CRLF).
    pub fn sse_data(events: &[Value], line_end: &str) -> Self {
        let frames = events.iter().map(|event| format!("data: {event}{line_end}{line_end}").into_bytes()).collect();
        Self::stream("text/event-stream; charset=utf-8", frames)
    }

    /// A JSON array whose elements are sent one by one, as Gemini does without `alt=sse`.
    pub fn json_array(elements: &[Value]) -> Self {
        let last = elements.len().saturating_sub(1);
        let frames = elements
            .iter()
            .enumerate()
            .map(|(i, element)| {
                let (open, close) = (if i == 0 { "[" } else { ",\r\n" }, if i == last { "]" } else { "" });
                format!("{open}{element}{close}").into_bytes()
            })
            .collect();
        Self::stream("application/json; charset=UTF-8", frames)
    }

    pub fn stream(content_type: &'static str, frames: Vec<Vec<u8>>) -> Self {
        Self { content_type, streamed: true, frames }
    }

    /// The whole body, as a client would read it.
    pub fn bytes(&self) -> Vec<u8> {
        self.frames.concat()
    }
}

/// Text deltas as models send them: a word (with its trailing space) at a time.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive(' ')
}

/// A JSON argument string in three pieces, cut anywhere (even inside a string or a number), as
/// providers stream tool arguments.
pub fn thirds(text: &str) -> Vec<&str> {
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
    let n = bounds.len() - 1; // characters
    let cut = |k: usize| bounds[n * k / 3];
    [(0, cut(1)), (cut(1), cut(2)), (cut(2), text.len())]
        .into_iter()
        .map(|(a, b)| &text[a..b])
        .filter(|s| !s.is_empty())
        .collect()
}

/// Seconds since the Unix epoch, for `created` fields.
pub fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_join_back_to_the_whole() {
        for text in ["", "x", "{\"path\":\"é/ü.rs\"}", "ab"] {
            assert_eq!(thirds(text).concat(), text);
            assert_eq!(words(text).collect::<String>(), text);
        }
        assert_eq!(thirds("abcdef"), ["ab", "cd", "ef"]);
        assert_eq!(words("a b c").collect::<Vec<_>>(), ["a ", "b ", "c"]);
    }

    #[test]
    fn a_json_array_stream_is_one_valid_array() {
        let elements = [serde_json::json!({"a": 1}), serde_json::json!({"b": 2})];
        let body = WireBody::json_array(&elements).bytes();
        let parsed: Value = serde_json::from_slice(&body).expect("valid JSON");
        assert_eq!(parsed, Value::Array(elements.to_vec()));
    }
}
