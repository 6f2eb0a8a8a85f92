//! Request bodies as `Blob`s. A piece of a body that the codec keeps between requests (a
//! message's encoding, which a session sends again every round) crosses into JS once, as a
//! `Blob`; every later body is a `Blob` of those, which copies nothing. Kept pieces also go in
//! groups of [`GROUP`], a `Blob` each, because joining `Blob`s costs per part: a body of 400
//! messages is about 25 groups, not 400 parts.

use std::sync::{Arc, Weak};

use js_sys::{Array, Uint8Array};
use openagent_core::llm::http::Body;
use wasm_bindgen::JsValue;
use web_sys::Blob;

const GROUP: usize = 16;

/// The `Blob`s of one client's kept pieces, in the order of its last body. A conversation's kept
/// pieces come in the same order each time, so a body that differs at one drops it and the rest.
#[derive(Default)]
pub struct BodyBlobs {
    pieces: Vec<(Weak<[u8]>, Blob)>,
    /// `groups[g]`: the `Blob` of pieces `GROUP * g ..`, once a body sent them all together.
    groups: Vec<Option<Blob>>,
}

impl BodyBlobs {
    /// `body` as one `Blob`.
    pub fn blob(&mut self, body: &Body) -> Result<Blob, JsValue> {
        let parts = Array::new();
        // Kept pieces of this body so far, and the first of them not in `parts` yet.
        let (mut at, mut pending) = (0, 0);
        for piece in body.pieces() {
            // Only this body holds it: it goes out once, as bytes (a Blob of its own costs more).
            if Arc::strong_count(piece) == 1 {
                self.push_kept(&parts, pending..at)?;
                pending = at;
                parts.push(Uint8Array::from(&piece[..]).as_ref());
                continue;
            }
            if !self.holds(at, piece) {
                self.pieces.truncate(at);
                self.groups.truncate(at / GROUP);
                self.pieces.push((Arc::downgrade(piece), blob_of(piece)?));
            }
            at += 1;
        }
        self.push_kept(&parts, pending..at)?;
        Blob::new_with_blob_sequence(&parts)
    }

    /// Whether entry `at` is `piece`: a live entry at its address is, since an address is
    /// reused only once what was there is freed.
    fn holds(&self, at: usize, piece: &Arc<[u8]>) -> bool {
        self.pieces
            .get(at)
            .is_some_and(|(kept, _)| kept.strong_count() > 0 && std::ptr::addr_eq(Weak::as_ptr(kept), Arc::as_ptr(piece)))
    }

    /// Adds kept pieces `range` to `parts`, each whole group as its one `Blob`.
    fn push_kept(&mut self, parts: &Array, range: std::ops::Range<usize>) -> Result<(), JsValue> {
        let mut at = range.start;
        while at < range.end {
            if at % GROUP != 0 || at + GROUP > range.end {
                parts.push(self.pieces[at].1.as_ref());
                at += 1;
                continue;
            }
            let group = at / GROUP;
            if self.groups.len() <= group {
                self.groups.resize(group + 1, None);
            }
            let blob = match &self.groups[group] {
                Some(blob) => blob.clone(),
                None => {
                    let members = Array::new();
                    for (_, blob) in &self.pieces[at..at + GROUP] {
                        members.push(blob.as_ref());
                    }
                    let blob = Blob::new_with_blob_sequence(&members)?;
                    self.groups[group] = Some(blob.clone());
                    blob
                }
            };
            parts.push(blob.as_ref());
            at += GROUP;
        }
        Ok(())
    }
}

/// A `Blob` of `bytes`, copied once: the constructor reads the view before anything else runs.
fn blob_of(bytes: &[u8]) -> Result<Blob, JsValue> {
    // SAFETY: the view is read by `new Blob` at once, before any allocation could grow (and so
    // move) the module's memory; nothing keeps it after.
    let view = unsafe { Uint8Array::view(bytes) };
    Blob::new_with_u8_array_sequence(&Array::of1(&view))
}
