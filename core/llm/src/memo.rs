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

use serde_json::{Map, Value};

use crate::error::{ErrorKind, LlmError};
use crate::types::Message;

/// The wire form of a conversation's messages, one entry a message, for one codec and the options
/// its encoding depends on. The default memo is off: it keeps nothing.
#[derive(Default)]
pub struct MessageMemo(Option<Rc<RefCell<Encoded>>>);

#[derive(Default)]
struct Encoded {
    /// The codec and options the entries were encoded for; another key starts afresh.
    key: String,
    /// The first messages' wire items, a message an entry, comma-separated (empty when none).
    entries: Vec<Vec<u8>>,
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
            memo.borrow_mut().entries.truncate(index);
        }
    }

    /// `messages` as a JSON array's items, written to `out`: each message's items from the memo
    /// when it has them for `key`, or from `encode`, which pushes a message's wire items.
    fn write_items(
        &self,
        key: &str,
        messages: &[Message],
        encode: &mut dyn FnMut(&Message, &mut Vec<Value>) -> Result<(), LlmError>,
        out: &mut Vec<u8>,
    ) -> Result<(), LlmError> {
        let mut kept = self.0.as_ref().map(|memo| memo.borrow_mut());
        let mut unkept = Encoded::default();
        let memo = kept.as_deref_mut().unwrap_or(&mut unkept);
        if memo.key != key {
            memo.key = key.to_owned();
            memo.entries.clear();
        }
        memo.entries.truncate(messages.len());
        let mut first = true;
        for (i, message) in messages.iter().enumerate() {
            if i == memo.entries.len() {
                let mut items = Vec::new();
                encode(message, &mut items)?;
                let mut bytes = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        bytes.push(b',');
                    }
                    bytes.extend(to_json(item)?);
                }
                memo.entries.push(bytes);
            }
            let bytes = &memo.entries[i];
            if !bytes.is_empty() {
                if !first {
                    out.push(b',');
                }
                first = false;
                out.extend_from_slice(bytes);
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
pub(crate) fn write_body(
    body: &Map<String, Value>,
    list: &str,
    messages: &[Message],
    memo: &MessageMemo,
    key: &str,
    encode: &mut dyn FnMut(&Message, &mut Vec<Value>) -> Result<(), LlmError>,
) -> Result<Vec<u8>, LlmError> {
    let mut out = vec![b'{'];
    for (i, (name, value)) in body.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend(to_json(&Value::from(name.as_str()))?);
        out.push(b':');
        if name == list && value.is_null() {
            out.push(b'[');
            memo.write_items(key, messages, encode, &mut out)?;
            out.push(b']');
        } else {
            out.extend(to_json(value)?);
        }
    }
    out.push(b'}');
    Ok(out)
}

fn to_json(value: &Value) -> Result<Vec<u8>, LlmError> {
    serde_json::to_vec(value)
        .map_err(|e| LlmError::new(ErrorKind::InvalidRequest, format!("the request could not be encoded as JSON: {e}")))
}
