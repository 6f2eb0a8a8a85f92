//! Loop detection (spec 2.10): the same one, two or three tool calls repeating across the last
//! `window` calls.

use std::hash::{DefaultHasher, Hash, Hasher};

use crate::llm::ToolCall;

/// The largest integer a JavaScript number holds exactly: signatures are saved in snapshots,
/// which a browser host passes through JS.
const JS_SAFE: u64 = (1 << 53) - 1;

/// A tool call's identity for loop detection: its name and a hash of its arguments, in 53 bits.
pub fn signature(call: &ToolCall) -> u64 {
    let mut hasher = DefaultHasher::new();
    call.name.hash(&mut hasher);
    // serde_json objects are key-sorted, so equal arguments give equal text.
    match &call.raw_arguments {
        Some(raw) if call.arguments.is_null() => raw.hash(&mut hasher),
        // As a `str` hashes (its bytes, then 0xff), without checking the text as UTF-8 again.
        _ => {
            hasher.write(&crate::llm::json_text::to_vec(&call.arguments));
            hasher.write_u8(0xff);
        }
    }
    hasher.finish() & JS_SAFE
}

/// Spec 2.10 `detect_loop`: true when the last `window` signatures are one pattern of length
/// 1, 2 or 3 repeated. `recent` holds the most recent signatures, oldest first.
pub fn detect_loop(recent: &[u64], window: usize) -> bool {
    if window == 0 || recent.len() < window {
        return false;
    }
    let calls = &recent[recent.len() - window..];
    [1, 2, 3].into_iter().filter(|len| window % len == 0).any(|len| {
        let pattern = &calls[..len];
        calls.chunks(len).all(|chunk| chunk == pattern)
    })
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use serde_json::json;

    fn sigs(names: &[&str]) -> Vec<u64> {
        names.iter().map(|n| signature(&ToolCall::new("id", *n, json!({"p": 1})))).collect()
    }

    #[test]
    fn signatures_survive_a_trip_through_a_javascript_number() {
        for name in ["a", "read_file", "shell", "a much longer tool name than most"] {
            let sig = signature(&ToolCall::new("id", name, json!({"path": name})));
            assert_eq!(sig as f64 as u64, sig, "{name}");
        }
    }

    #[test]
    fn repeated_single_call_is_a_loop() {
        assert!(detect_loop(&sigs(&["a"; 10]), 10));
    }

    #[test]
    fn cycles_of_two_and_three_are_loops() {
        assert!(detect_loop(&sigs(&["a", "b", "a", "b", "a", "b", "a", "b", "a", "b"]), 10));
        assert!(detect_loop(&sigs(&["a", "b", "c", "a", "b", "c", "a", "b", "c"]), 9));
    }

    #[test]
    fn varied_calls_or_a_short_history_are_not() {
        assert!(!detect_loop(&sigs(&["a", "b", "c", "d", "a", "b", "c", "d", "a", "b"]), 10));
        assert!(!detect_loop(&sigs(&["a"; 9]), 10));
    }

    #[test]
    fn a_signature_hashes_the_name_and_the_arguments_text_as_strs() {
        // Snapshots keep signatures: one restored must still match the same call made again.
        let call = ToolCall::new("1", "grep", json!({"pattern": "a", "n": 3}));
        let mut hasher = DefaultHasher::new();
        "grep".hash(&mut hasher);
        r#"{"n":3,"pattern":"a"}"#.hash(&mut hasher);
        assert_eq!(signature(&call), hasher.finish() & JS_SAFE);
    }

    #[test]
    fn arguments_are_part_of_the_signature() {
        let a = ToolCall::new("1", "read_file", json!({"file_path": "a"}));
        let b = ToolCall::new("2", "read_file", json!({"file_path": "b"}));
        assert_ne!(signature(&a), signature(&b));
        assert_eq!(signature(&a), signature(&ToolCall::new("3", "read_file", json!({"file_path": "a"}))));
    }
}
