//! [`SharedText`]: text shared, not copied, by its clones.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Text shared by its clones: a tool's output is often the largest thing a session holds, and
/// its history, the request it goes back in and its `tool_call_end` event all hold the same one.
/// Made from a `String` without copying it, which an `Arc<str>` cannot be.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct SharedText(Arc<String>);

impl SharedText {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text as a `String`: its own when no clone shares it, a copy otherwise.
    pub fn into_string(self) -> String {
        Arc::try_unwrap(self.0).unwrap_or_else(|shared| (*shared).clone())
    }
}

impl Deref for SharedText {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedText {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<String> for SharedText {
    fn from(mut text: String) -> Self {
        // Kept for as long as the history is, so room a builder left over is given back (a
        // doubling buffer can be twice its text).
        if text.capacity() - text.len() > text.len() / 32 + 64 {
            text.shrink_to_fit();
        }
        Self(Arc::new(text))
    }
}

impl From<&str> for SharedText {
    fn from(text: &str) -> Self {
        Self(Arc::new(text.to_owned()))
    }
}

impl From<Cow<'_, str>> for SharedText {
    fn from(text: Cow<'_, str>) -> Self {
        Self::from(text.into_owned())
    }
}

impl PartialEq<str> for SharedText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SharedText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for SharedText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<SharedText> for String {
    fn eq(&self, other: &SharedText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<SharedText> for &str {
    fn eq(&self, other: &SharedText) -> bool {
        *self == other.as_str()
    }
}

impl fmt::Debug for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl Serialize for SharedText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

impl<'de> Deserialize<'de> for SharedText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn a_string_becomes_shared_text_without_a_copy() {
        let text = "x".repeat(10_000);
        let at = text.as_ptr();
        let shared = SharedText::from(text);
        assert_eq!(shared.as_ptr(), at);
        assert_eq!(shared.clone().as_ptr(), at);
    }

    #[test]
    fn spare_room_is_given_back_and_a_sole_owner_gets_its_string_back() {
        let mut text = String::with_capacity(100_000);
        text.push_str("short");
        let shared = SharedText::from(text);
        assert_eq!(shared.0.capacity(), 5);
        let at = shared.as_ptr();
        let alone = shared.into_string();
        assert_eq!(alone.as_ptr(), at);
        let shared = SharedText::from(alone);
        let other = shared.clone();
        let copy = shared.into_string();
        assert_ne!(copy.as_ptr(), at);
        assert_eq!(copy, *other);
    }

    #[test]
    fn it_reads_and_writes_as_a_json_string() {
        let shared = SharedText::from("a \"b\"");
        assert_eq!(serde_json::to_string(&shared).unwrap(), r#""a \"b\"""#);
        assert_eq!(serde_json::from_str::<SharedText>(r#""a \"b\"""#).unwrap(), "a \"b\"");
    }
}
