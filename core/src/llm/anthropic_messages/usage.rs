//! Usage (spec 3.9) and finish reasons (spec 3.8), shared by whole and streamed responses.

use serde_json::Value;

use crate::llm::types::{FinishReason, Reason, Usage};

/// `usage` from the provider's usage object. `thinking_chars` is the length of the readable
/// thinking, `None` when the response had no thinking block.
///
/// `input_tokens` is the whole prompt: Anthropic's `input_tokens` counts only what was neither
/// read from nor written to the cache, so it alone would make a cached 100k-token prompt look
/// like a few tokens, unlike every other provider, and hide how full the context window is.
/// Reasoning tokens: newer responses report `output_tokens_details.thinking_tokens`; otherwise
/// they are estimated as one token per four characters of thinking text (spec 3.9 note), and
/// redacted thinking is not counted.
pub(super) fn usage(raw: &Value, thinking_chars: Option<usize>) -> Usage {
    let count = |key: &str| raw.get(key).and_then(Value::as_u64);
    let cache_read = count("cache_read_input_tokens");
    let cache_write = count("cache_creation_input_tokens");
    let input =
        count("input_tokens").unwrap_or(0).saturating_add(cache_read.unwrap_or(0)).saturating_add(cache_write.unwrap_or(0));
    let output = count("output_tokens").unwrap_or(0);
    let reported = raw.pointer("/output_tokens_details/thinking_tokens").and_then(Value::as_u64);
    let estimated = thinking_chars.map(|chars| chars.div_ceil(4) as u64);
    Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input.saturating_add(output),
        reasoning_tokens: reported.or(estimated),
        cache_read_tokens: cache_read,
        cache_write_tokens: cache_write,
        raw: Some(raw.clone()),
    }
}

/// `stop_reason` to the unified reason, keeping the raw value.
pub(super) fn finish_reason(stop_reason: Option<&str>) -> FinishReason {
    let reason = match stop_reason {
        Some("end_turn" | "stop_sequence") => Reason::Stop,
        // The second: the model ran into the context window rather than `max_tokens`.
        Some("max_tokens" | "model_context_window_exceeded") => Reason::Length,
        Some("tool_use") => Reason::ToolCalls,
        Some("refusal") => Reason::ContentFilter,
        // `pause_turn` (a server tool paused a long turn) and anything newer.
        _ => Reason::Other,
    };
    FinishReason::new(reason, stop_reason)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use serde_json::json;

    #[test]
    fn input_counts_the_whole_prompt_and_cache_counts_are_kept() {
        let raw =
            json!({"input_tokens": 8, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 12963, "output_tokens": 208});
        let u = usage(&raw, None);
        assert_eq!((u.input_tokens, u.output_tokens, u.total_tokens), (12976, 208, 13184));
        assert_eq!((u.cache_read_tokens, u.cache_write_tokens, u.reasoning_tokens), (Some(12963), Some(5), None));
        assert_eq!(u.raw, Some(raw));
    }

    #[test]
    fn reasoning_tokens_are_reported_or_estimated() {
        let reported = json!({"input_tokens": 1, "output_tokens": 224, "output_tokens_details": {"thinking_tokens": 49}});
        assert_eq!(usage(&reported, Some(0)).reasoning_tokens, Some(49));
        let plain = json!({"input_tokens": 1, "output_tokens": 50});
        assert_eq!(usage(&plain, Some(9)).reasoning_tokens, Some(3));
        assert_eq!(usage(&plain, None).reasoning_tokens, None);
        assert_eq!(usage(&plain, None).cache_read_tokens, None);
    }

    #[test]
    fn malformed_counts_do_not_panic() {
        let u = usage(&json!({"input_tokens": u64::MAX, "cache_read_input_tokens": 5, "output_tokens": "many"}), None);
        assert_eq!((u.input_tokens, u.output_tokens, u.total_tokens), (u64::MAX, 0, u64::MAX));
        assert_eq!(usage(&json!(null), None).total_tokens, 0);
    }

    #[test]
    fn stop_reasons_map_as_the_spec_says() {
        let cases = [
            ("end_turn", Reason::Stop),
            ("stop_sequence", Reason::Stop),
            ("max_tokens", Reason::Length),
            ("model_context_window_exceeded", Reason::Length),
            ("tool_use", Reason::ToolCalls),
            ("refusal", Reason::ContentFilter),
            ("pause_turn", Reason::Other),
            ("something_new", Reason::Other),
        ];
        for (raw, reason) in cases {
            assert_eq!(finish_reason(Some(raw)), FinishReason { reason, raw: Some(raw.into()) });
        }
        assert_eq!(finish_reason(None), FinishReason { reason: Reason::Other, raw: None });
    }
}
