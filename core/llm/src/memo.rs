//! Encoded messages kept between the requests of one conversation, so that a codec encodes each
//! message once instead of the whole history at every call. A session 200 tool rounds long sends
//! about 2 MB of history a request; re-encoding it made each round's cost grow with the history.
//!
//! The memo trusts its owner: whoever changes or removes a message already sent says so
//! ([`MessageMemo::forget_from`]); appending needs nothing. So it is only ever
//! attached by code that owns the messages (the agent's session keeps its request this way), and
//! a clone of a [`Request`](crate::types::Request) does not share it: a copy changed elsewhere
//! could not say so.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::error::LlmError;
use crate::http::Body;
use crate::json_text;
use crate::types::{Message, ToolDefinition};

/// The wire form of a conversation's messages, one entry a message, for one codec and the options
/// its encoding depends on; and, for a codec that continues a conversation the server keeps
/// (OpenAI Responses with `chain`), which response holds the messages so far. The default memo is
/// off: it keeps nothing.
#[derive(Default)]
pub struct MessageMemo(Option<Rc<RefCell<Encoded>>>);

#[derive(Default)]
struct Encoded {
    /// The codec and options the entries were encoded for; another key starts afresh.
    key: String,
    /// The first messages' wire items, a message an entry: comma-separated, with a leading comma
    /// after the items of earlier entries (empty when none).
    entries: Vec<Arc<[u8]>>,
    /// The response the server keeps the first messages as: its id, and how many it holds
    /// (the request's messages and the answer).
    continuation: Option<(String, usize)>,
    /// The last request's tools, as JSON text.
    tools: Option<KeptTools>,
}

/// A request's tools, the key they were encoded for and their encoding.
struct KeptTools {
    key: String,
    tools: Vec<ToolDefinition>,
    text: Rc<[u8]>,
}

/// Records, once the response has come, that the server keeps the conversation as it.
pub(crate) struct Continuation(Rc<RefCell<Encoded>>);

impl Continuation {
    /// The server keeps the first `covered` messages as response `id`.
    pub fn record(&self, id: String, covered: usize) {
        self.0.borrow_mut().continuation = Some((id, covered));
    }
}

impl MessageMemo {
    /// A memo that keeps what it encodes.
    pub fn new() -> Self {
        Self(Some(Rc::default()))
    }

    /// Message `index` changed or went, and so may every later one: they are encoded again at
    /// the next request (0: the whole history was replaced).
    pub fn forget_from(&self, index: usize) {
        if let Some(memo) = &self.0 {
            let mut memo = memo.borrow_mut();
            memo.entries.truncate(index);
            // The server's copy holds the message that changed: it can be continued no more.
            if memo.continuation.as_ref().is_some_and(|(_, covered)| *covered > index) {
                memo.continuation = None;
            }
        }
    }

    /// The response the server keeps the first messages as, and how many: a request may send
    /// only the messages after those, naming it.
    pub(crate) fn continuation(&self) -> Option<(String, usize)> {
        self.0.as_ref()?.borrow().continuation.clone()
    }

    /// The server no longer has it: the next request goes whole.
    pub(crate) fn forget_continuation(&self) {
        if let Some(memo) = &self.0 {
            memo.borrow_mut().continuation = None;
        }
    }

    /// Where to record the response a request gets, to continue from it (none when off).
    pub(crate) fn continuation_recorder(&self) -> Option<Continuation> {
        self.0.clone().map(Continuation)
    }

    /// The JSON text of `tools` as `encode` makes them for `key` (a codec and the options its
    /// encoding depends on). A session sends the same tools every round, and their schemas
    /// make them the largest part of a request after the messages: the memo keeps the text with
    /// a copy of the tools, and encodes again only when they or the key differ from the last.
    /// (Compared, not trusted to the owner as messages are: the tools are a public field of a
    /// request that any host may set.)
    pub(crate) fn tools_text(&self, key: &str, tools: &[ToolDefinition], encode: &dyn Fn() -> Value) -> Rc<[u8]> {
        let text = || Rc::from(json_text::to_vec(&encode()));
        let Some(memo) = &self.0 else { return text() };
        let mut memo = memo.borrow_mut();
        match &memo.tools {
            Some(kept) if kept.key == key && kept.tools == tools => kept.text.clone(),
            _ => {
                let kept = KeptTools { key: key.to_owned(), tools: tools.to_vec(), text: text() };
                memo.tools.insert(kept).text.clone()
            }
        }
    }

    /// `messages` as a JSON array's items, added to `out`: each message's items from the memo
    /// when it has them for `key` (shared, not copied), or from `encode`, which pushes a
    /// message's wire items.
    fn write_items(
        &self,
        key: &str,
        messages: &[Message],
        encode: &mut dyn FnMut(&Message, &mut Vec<Value>) -> Result<(), LlmError>,
        out: &mut Pieces,
    ) -> Result<(), LlmError> {
        let mut kept = self.0.as_ref().map(|memo| memo.borrow_mut());
        let mut unkept = Encoded::default();
        let memo = kept.as_deref_mut().unwrap_or(&mut unkept);
        if memo.key != key {
            memo.key = key.to_owned();
            memo.entries.clear();
            memo.continuation = None;
        }
        memo.entries.truncate(messages.len());
        // An entry starts with the comma that separates it from the items before it, if any:
        // entries are only ever dropped from one on, so whether one follows items never changes.
        let mut first = true;
        for (i, message) in messages.iter().enumerate() {
            if i == memo.entries.len() {
                let mut items = Vec::new();
                encode(message, &mut items)?;
                let mut bytes = Vec::new();
                for item in &items {
                    if !first || !bytes.is_empty() {
                        bytes.push(b',');
                    }
                    json_text::write(item, &mut bytes);
                }
                memo.entries.push(bytes.into());
            }
            let bytes = &memo.entries[i];
            if !bytes.is_empty() {
                first = false;
                out.share(bytes);
            }
        }
        Ok(())
    }
}

/// Not shared by a clone (see the module's doc).
impl Clone for MessageMemo {
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// A memo is bookkeeping, not content: two requests are equal whatever their memos hold.
impl PartialEq for MessageMemo {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for MessageMemo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "MessageMemo(on)" } else { "MessageMemo(off)" })
    }
}

/// `body` as compact JSON, as `serde_json::to_vec` writes it, except that the array under
/// `list` (which `body` holds as `null`, a placeholder keeping its place among the keys) is
/// `messages` encoded through `memo`: each by `encode`, unless the memo holds it for `key`.
/// The memo's encodings go into the body as pieces of their own, shared with the memo. A `null`
/// under `"tools"` is a placeholder too, for `tools`' text (from [`MessageMemo::tools_text`]).
pub(crate) fn write_body(
    body: &Map<String, Value>,
    list: &str,
    messages: &[Message],
    memo: &MessageMemo,
    key: &str,
    encode: &mut dyn FnMut(&Message, &mut Vec<Value>) -> Result<(), LlmError>,
    tools: Option<&[u8]>,
) -> Result<Body, LlmError> {
    let mut out = Pieces::default();
    out.open.push(b'{');
    for (i, (name, value)) in body.iter().enumerate() {
        if i > 0 {
            out.open.push(b',');
        }
        json_text::write_str(name, &mut out.open);
        out.open.push(b':');
        if name == list && value.is_null() {
            out.open.push(b'[');
            memo.write_items(key, messages, encode, &mut out)?;
            out.open.push(b']');
        } else if let Some(tools) = tools.filter(|_| name == "tools" && value.is_null()) {
            out.open.extend_from_slice(tools);
        } else {
            json_text::write(value, &mut out.open);
        }
    }
    out.open.push(b'}');
    Ok(out.finish())
}

/// A body being written: the pieces so far, and the bytes written since the last one.
#[derive(Default)]
struct Pieces {
    done: Vec<Arc<[u8]>>,
    open: Vec<u8>,
}

impl Pieces {
    /// Adds a kept piece, after what was written before it.
    fn share(&mut self, piece: &Arc<[u8]>) {
        if !self.open.is_empty() {
            self.done.push(std::mem::take(&mut self.open).into());
        }
        self.done.push(piece.clone());
    }

    fn finish(mut self) -> Body {
        if !self.open.is_empty() {
            self.done.push(self.open.into());
        }
        Body::from_pieces(self.done)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;

    /// As many wire items as the message's text says: "0", "1", "2".
    fn items(message: &Message, out: &mut Vec<Value>) -> Result<(), LlmError> {
        let count: usize = message.text().parse().unwrap();
        out.extend((0..count).map(|i| json!({"of": message.text(), "i": i})));
        Ok(())
    }

    fn fresh(messages: &[Message]) -> Vec<u8> {
        let mut list = Vec::new();
        for message in messages {
            items(message, &mut list).unwrap();
        }
        serde_json::to_vec(&json!({"a": 1, "list": list, "z": [2]})).unwrap()
    }

    fn body() -> Map<String, Value> {
        let Value::Object(map) = json!({"a": 1, "list": null, "z": [2]}) else { unreachable!() };
        map
    }

    #[test]
    fn messages_of_no_item_or_several_are_written_with_the_commas_of_a_fresh_encoding() {
        let memo = MessageMemo::new();
        let mut messages = Vec::new();
        for count in ["0", "2", "0", "1", "1", "0"] {
            messages.push(Message::user(count));
            let written = write_body(&body(), "list", &messages, &memo, "k", &mut items, None).unwrap();
            assert_eq!(String::from_utf8(written.to_vec()).unwrap(), String::from_utf8(fresh(&messages)).unwrap());
        }
        // The first item-bearing message gone: the next one is written again, without its comma.
        messages.remove(1);
        memo.forget_from(1);
        let written = write_body(&body(), "list", &messages, &memo, "k", &mut items, None).unwrap();
        assert_eq!(written.to_vec(), fresh(&messages));
    }

    #[test]
    fn a_kept_encoding_goes_into_every_body_as_the_same_shared_piece() {
        let memo = MessageMemo::new();
        let messages = vec![Message::user("1"), Message::user("2")];
        let first = write_body(&body(), "list", &messages, &memo, "k", &mut items, None).unwrap();
        let second = write_body(&body(), "list", &messages, &memo, "k", &mut items, None).unwrap();
        let shared = |body: &Body| body.pieces().iter().filter(|p| Arc::strong_count(p) > 1).cloned().collect::<Vec<_>>();
        let (kept, again) = (shared(&first), shared(&second));
        assert_eq!(kept.len(), 2, "one piece a message: {first:?}");
        assert!(kept.iter().zip(&again).all(|(a, b)| Arc::ptr_eq(a, b)));
        // Without a memo, the body is the same bytes, written afresh.
        let unkept = write_body(&body(), "list", &messages, &MessageMemo::default(), "k", &mut items, None).unwrap();
        assert_eq!(unkept, first);
    }

    fn tool(description: &str) -> ToolDefinition {
        ToolDefinition { name: "t".into(), description: description.into(), parameters: json!({"type": "object"}) }
    }

    #[test]
    fn the_tools_are_encoded_again_only_when_they_or_their_key_change() {
        let memo = MessageMemo::new();
        let encoded = std::cell::Cell::new(0);
        let text = |memo: &MessageMemo, key: &str, tools: &[ToolDefinition]| {
            let text = memo.tools_text(key, tools, &|| {
                encoded.set(encoded.get() + 1);
                serde_json::to_value(tools).unwrap()
            });
            String::from_utf8(text.to_vec()).unwrap()
        };
        let mut tools = vec![tool("one")];
        let first = text(&memo, "k", &tools);
        assert_eq!(first, serde_json::to_value(&tools).unwrap().to_string());
        assert_eq!((text(&memo, "k", &tools), encoded.get()), (first.clone(), 1), "the same tools again");
        // A host that changes a tool in place, without a word to the memo, is still heard.
        tools[0].parameters["required"] = json!(["x"]);
        assert!(text(&memo, "k", &tools).contains("required"));
        assert_eq!(text(&memo, "other", &tools), text(&memo, "other", &tools));
        assert_eq!(encoded.get(), 3, "a change of the tools and one of the key");
        // Without a memo, every request encodes them.
        let off = MessageMemo::default();
        assert_eq!(text(&off, "k", &tools), text(&off, "k", &tools));
        assert_eq!(encoded.get(), 5);
    }

    #[test]
    fn the_tools_text_fills_a_placeholder_and_nothing_else() {
        let messages = vec![Message::user("1")];
        let mut body = body();
        body.insert("tools".into(), Value::Null);
        let written = write_body(&body, "list", &messages, &MessageMemo::new(), "k", &mut items, Some(b"[7]")).unwrap();
        assert_eq!(written.to_vec(), br#"{"a":1,"list":[{"i":0,"of":"1"}],"tools":[7],"z":[2]}"#);
        // Options that set the tools outright replaced the placeholder: theirs are sent.
        body.insert("tools".into(), json!([8]));
        let written = write_body(&body, "list", &messages, &MessageMemo::new(), "k", &mut items, Some(b"[7]")).unwrap();
        assert!(String::from_utf8(written.to_vec()).unwrap().contains(r#""tools":[8]"#));
    }
}
