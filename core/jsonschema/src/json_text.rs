//! JSON text for a `Value`, byte for byte what `serde_json::to_vec` writes, faster where it
//! matters: a request body and an event are mostly long strings (files, tool output), and
//! serde_json escapes a string a byte at a time. Here a string is scanned eight bytes at a time
//! and written in runs; only the bytes JSON escapes (`"`, `\`, controls) are handled one by one.
//!
//! It lives in this crate, which the others build on, so that the validator's messages, the
//! codecs (`openagent_llm::json_text`) and everything above write JSON text with this one writer:
//! with serde_json's `Display` anywhere, the browser bundle carries a second one (2.2 KB raw).

use serde_json::Value;

/// `value` as compact JSON text.
pub fn to_vec(value: &Value) -> Vec<u8> {
    // Room for a tool call's usual arguments: growing from nothing took three reallocations of
    // each (a call's signature writes them every round).
    let mut out = Vec::with_capacity(128);
    write(value, &mut out);
    out
}

/// `value` as compact JSON text.
pub fn to_string(value: &Value) -> String {
    // JSON text from a `Value` is UTF-8: its strings are `str`s, and escapes are ASCII.
    String::from_utf8(to_vec(value)).unwrap_or_default()
}

/// `text` quoted as a JSON string, for a name or a value in a message. Messages quote with this
/// rather than `{:?}`: `str`'s `Debug` brings its own escaping and Unicode tables into the browser
/// bundle (3.9 KB raw with its Unicode tables) for the same purpose.
pub fn quote(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len() + 2);
    write_str(text, &mut out);
    // As in `to_string`: the text and the escapes are UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Appends a number as serde_json writes it: an integer's digits (as its `Display`, without
/// the string that allocates for every number), a float by `Display`, which is its JSON form.
fn write_number(number: &serde_json::Number, out: &mut Vec<u8>) {
    let mut digits = itoa::Buffer::new();
    match (number.as_u64(), number.as_i64()) {
        (Some(n), _) => out.extend_from_slice(digits.format(n).as_bytes()),
        (None, Some(n)) => out.extend_from_slice(digits.format(n).as_bytes()),
        (None, None) => out.extend_from_slice(number.to_string().as_bytes()),
    }
}

/// Appends `value` as compact JSON text to `out`.
pub fn write(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => write_number(number, out),
        Value::String(text) => write_str(text, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(key, out);
                out.push(b':');
                write(item, out);
            }
            out.push(b'}');
        }
    }
}

/// `text` as a JSON string, quoted and escaped as serde_json does.
pub fn write_str(text: &str, out: &mut Vec<u8>) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut run = 0;
    let mut at = 0;
    while at < bytes.len() {
        // Eight bytes none of which is escaped go by at once.
        if let Some(word) = bytes.get(at..at + 8) {
            if !needs_escape(u64::from_le_bytes(word.try_into().unwrap_or_default())) {
                at += 8;
                continue;
            }
        }
        let byte = bytes[at];
        let escape: &[u8] = match byte {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..0x20 => &[b'\\', b'u', b'0', b'0', HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]],
            _ => {
                at += 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[run..at]);
        out.extend_from_slice(escape);
        at += 1;
        run = at;
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Whether any of the eight bytes of `word` is one JSON escapes: below 0x20, `"` or `\`.
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // Whether a byte of `v` is zero, or of `word` is below `n`: exact for "any", which is all
    // this asks (borrows only ever mark bytes above one that already matched).
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS != 0;
    let below = |n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGHS != 0;
    below(0x20) || zero(word ^ (ONES * u64::from(b'"'))) || zero(word ^ (ONES * u64::from(b'\\')))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;

    #[test]
    fn every_byte_escapes_as_serde_json_escapes_it_at_every_offset_in_a_word() {
        for c in (0u8..0x80).map(char::from).chain(['é', '€', '😀', '\u{7f}', '\u{2028}']) {
            for before in 0..10 {
                for after in [0, 1, 7, 8, 9] {
                    let text = format!("{}{c}{}", "a".repeat(before), "b".repeat(after));
                    assert_eq!(to_string(&json!(text)), serde_json::to_string(&text).unwrap(), "{c:?} at {before}");
                }
            }
        }
    }

    #[test]
    fn values_of_every_kind_read_as_serde_json_writes_them() {
        let value = json!({
            "z": [null, true, false, 0, -7, i64::MIN, 18446744073709551615u64, 1.5, -0.0, 1e300, 2.5e-8, "s\"\\\u{1}\n"],
            "a": {"nested": {"": []}, "empty": {}},
            "tool output": "1 | fn main() {\n2 | \tprintln!(\"hi\");\r\n3 | }\u{0}",
        });
        assert_eq!(to_string(&value), serde_json::to_string(&value).unwrap());
        assert_eq!(to_vec(&Value::Null), b"null");
    }

    #[test]
    fn quote_writes_a_string_as_json_does() {
        for text in ["", "plain", "say \"hi\"\n", "back\\slash\u{1}", "é😀"] {
            assert_eq!(quote(text), serde_json::to_string(text).unwrap());
        }
    }

    #[test]
    fn a_long_string_of_mixed_text_is_the_same_as_serde_jsons() {
        let text: String = (0..5000u32).map(|i| char::from_u32((i * 7919) % 0x250).unwrap_or('?')).collect();
        assert_eq!(to_string(&json!([text])), serde_json::to_string(&json!([text])).unwrap());
    }
}
