//! Request bodies as `Blob`s. The pieces of a body that the codec keeps between requests (each
//! message's encoding, which a session sends again every round) cross into JS once; every later
//! body is a `Blob` of what is already there, which copies nothing.
//!
//! Making and joining `Blob`s has a cost of its own (in Node about 15 µs a `Blob`, and 0.3 µs a
//! part joined), so kept pieces go in groups of [`GROUP`]: a full group is one `Blob`, and the
//! pieces after the last full group are bytes held in JS until they fill one. A body of 400
//! messages is then about 25 parts, and a round makes one `Blob` (the body) most of the time.

use std::sync::{Arc, Weak};

use js_sys::{Array, Uint8Array};
use openagent_core::llm::http::Body;
use wasm_bindgen::JsValue;
use web_sys::Blob;

const GROUP: usize = 16;

/// What one client keeps of the last body's kept pieces. A conversation's kept pieces come in
/// the same order each time, so a body that differs at one drops it and what follows.
#[derive(Default)]
pub struct BodyBlobs {
    /// The kept pieces of the last body, in order.
    kept: Vec<Weak<[u8]>>,
    /// A `Blob` for each full group of kept pieces, from the first.
    groups: Vec<Blob>,
    /// The kept pieces after the last full group, as bytes in JS.
    loose: Vec<Uint8Array>,
}

impl BodyBlobs {
    /// `body` as one `Blob`.
    pub fn blob(&mut self, body: &Body) -> Result<Blob, JsValue> {
        let pieces = body.pieces();
        let shared = |piece: &Arc<[u8]>| Arc::strong_count(piece) > 1;
        let first = pieces.iter().position(shared).unwrap_or(pieces.len());
        let end = pieces.iter().rposition(shared).map_or(first, |last| last + 1);
        let parts = Array::new();
        let bytes = |piece: &Arc<[u8]>| {
            parts.push(Uint8Array::from(&piece[..]).as_ref());
        };
        pieces[..first].iter().for_each(bytes);
        // Codecs keep one run of pieces (the messages) between pieces of their own; anything
        // else goes as bytes.
        if pieces[first..end].iter().all(shared) {
            self.push_kept(&pieces[first..end], &parts)?;
        } else {
            pieces[first..end].iter().for_each(bytes);
        }
        pieces[end..].iter().for_each(bytes);
        Blob::new_with_u8_array_sequence(&parts)
    }

    /// Adds the kept pieces `run` to `parts`: the groups, then the loose pieces.
    fn push_kept(&mut self, run: &[Arc<[u8]>], parts: &Array) -> Result<(), JsValue> {
        // A live entry at a piece's address is that piece: an address is reused only once freed.
        let same = run
            .iter()
            .zip(&self.kept)
            .take_while(|(piece, kept)| kept.strong_count() > 0 && std::ptr::addr_eq(Weak::as_ptr(kept), Arc::as_ptr(piece)))
            .count();
        self.kept.truncate(same);
        self.kept.extend(run[same..].iter().map(Arc::downgrade));
        if same < self.groups.len() * GROUP {
            self.groups.truncate(same / GROUP);
            self.loose.clear();
        }
        self.loose.truncate(same - self.groups.len() * GROUP);
        for piece in &run[self.groups.len() * GROUP + self.loose.len()..] {
            self.loose.push(Uint8Array::from(&piece[..]));
            if self.loose.len() == GROUP {
                let members: Array = self.loose.drain(..).collect();
                self.groups.push(Blob::new_with_u8_array_sequence(&members)?);
            }
        }
        self.groups.iter().for_each(|group| {
            parts.push(group.as_ref());
        });
        self.loose.iter().for_each(|piece| {
            parts.push(piece.as_ref());
        });
        Ok(())
    }
}
