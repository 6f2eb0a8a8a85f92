//! `provider_options.anthropic`: the keys this codec interprets, and the rest, which is merged into
//! the request body as given (spec 3.6, 7.2); and prompt caching, which two of those keys control.

use serde_json::{Map, Value};

use super::PROVIDER;
use crate::error::{ErrorKind, LlmError};
use crate::json::object;
use crate::types::Request;

/// The provider options of one request, read once.
#[derive(Debug)]
pub(super) struct Options {
    /// Joined into the `anthropic-beta` header.
    pub beta_headers: Vec<String>,
    /// Place prompt-cache breakpoints automatically (default true).
    pub auto_cache: bool,
    /// The marker put on each automatic breakpoint.
    pub cache_control: Value,
    /// An explicit `thinking` object, sent as given instead of one derived from `reasoning_effort`.
    pub thinking: Option<Value>,
    /// Everything else, merged into the body.
    pub body: Map<String, Value>,
}

impl Options {
    pub fn from_request(request: &Request) -> Result<Self, LlmError> {
        let mut options = Self {
            beta_headers: Vec::new(),
            auto_cache: true,
            cache_control: object(vec![("type", "ephemeral".into())]),
            thinking: None,
            body: Map::new(),
        };
        let Some(given) = request.provider_options.as_ref().and_then(|all| all.get(PROVIDER)) else {
            return Ok(options);
        };
        let Value::Object(given) = given else {
            return Err(invalid("provider_options.anthropic must be an object"));
        };
        for (key, value) in given {
            match key.as_str() {
                "beta_headers" => options.beta_headers = strings(value)?,
                "auto_cache" => {
                    options.auto_cache =
                        value.as_bool().ok_or_else(|| invalid("provider_options.anthropic.auto_cache must be true or false"))?
                }
                "cache_control" if value.is_object() => options.cache_control = value.clone(),
                "cache_control" => return Err(invalid("provider_options.anthropic.cache_control must be an object")),
                "thinking" => options.thinking = Some(value.clone()),
                _ => {
                    options.body.insert(key.clone(), value.clone());
                }
            }
        }
        Ok(options)
    }
}

fn strings(value: &Value) -> Result<Vec<String>, LlmError> {
    let error = || invalid("provider_options.anthropic.beta_headers must be a list of strings");
    value.as_array().ok_or_else(error)?.iter().map(|v| v.as_str().map(str::to_owned).ok_or_else(error)).collect()
}

fn invalid(message: &str) -> LlmError {
    LlmError::new(ErrorKind::Configuration, message).with_provider(PROVIDER)
}

/// Merges `overlay` into `base`: objects key by key, recursively; anything else is replaced.
pub(super) fn deep_merge(base: &mut Map<String, Value>, overlay: Map<String, Value>) {
    for (key, value) in overlay {
        match (base.get_mut(&key), value) {
            (Some(Value::Object(existing)), Value::Object(more)) => deep_merge(existing, more),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// The API refuses a request with more breakpoints than this.
const MAX_BREAKPOINTS: usize = 4;

/// Automatic prompt caching (spec 2.10), what `auto_cache` and `cache_control` control. Anthropic
/// caches nothing unless a content block carries `cache_control`; the cache then holds the whole
/// prefix up to that block (tools, then system, then messages), and a later request reads it when
/// its own prefix matches.
///
/// The heuristic, for agentic loops where each request repeats the previous one plus a turn:
/// breakpoints go on the last block of the last user message (written now, read by the next
/// request), the last block of the user message before it (written by the previous request, read
/// now), the last system block and the last tool definition (so a new conversation with the same
/// instructions and tools still hits). That order is also the priority when breakpoints the caller
/// set through provider options leave fewer than the API's four free. A prefix shorter than the
/// model's minimum (1024 tokens for most models) is simply not cached; that costs nothing.
pub(super) fn place_breakpoints(body: &mut Map<String, Value>, marker: &Value) {
    let mut free = MAX_BREAKPOINTS.saturating_sub(count(body));
    let mut mark = |block: Option<&mut Value>| {
        if let Some(Value::Object(block)) = block {
            if free > 0 && !block.contains_key("cache_control") {
                block.insert("cache_control".into(), marker.clone());
                free -= 1;
            }
        }
    };
    {
        let mut user_turns = array(body, "messages")
            .into_iter()
            .flatten()
            .rev()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .filter_map(|m| m.get_mut("content").and_then(Value::as_array_mut));
        mark(user_turns.next().and_then(|c| c.last_mut()));
        mark(user_turns.next().and_then(|c| c.last_mut()));
    }
    mark(array(body, "system").and_then(|s| s.last_mut()));
    mark(array(body, "tools").and_then(|t| t.last_mut()));
}

fn array<'a>(body: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Vec<Value>> {
    body.get_mut(key).and_then(Value::as_array_mut)
}

/// Breakpoints already in the body (set by the caller through provider options).
fn count(body: &Map<String, Value>) -> usize {
    let marked = |blocks: Option<&Value>| {
        blocks.and_then(Value::as_array).map_or(0, |b| b.iter().filter(|b| b.get("cache_control").is_some()).count())
    };
    let in_messages: usize =
        body.get("messages").and_then(Value::as_array).map_or(0, |ms| ms.iter().map(|m| marked(m.get("content"))).sum());
    marked(body.get("system")) + marked(body.get("tools")) + in_messages
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use serde_json::json;

    fn with_options(options: Value) -> Request {
        Request { provider_options: Some(json!({ "anthropic": options, "openai": {"store": true} })), ..Request::default() }
    }

    #[test]
    fn interpreted_keys_are_taken_out_and_the_rest_is_kept_for_the_body() {
        let options = Options::from_request(&with_options(json!({
            "beta_headers": ["a-1", "b-2"],
            "auto_cache": false,
            "cache_control": {"type": "ephemeral", "ttl": "1h"},
            "thinking": {"type": "adaptive"},
            "top_k": 40,
        })))
        .unwrap();
        assert_eq!(options.beta_headers, ["a-1", "b-2"]);
        assert!(!options.auto_cache);
        assert_eq!(options.cache_control, json!({"type": "ephemeral", "ttl": "1h"}));
        assert_eq!(options.thinking, Some(json!({"type": "adaptive"})));
        assert_eq!(Value::Object(options.body), json!({"top_k": 40}));
    }

    #[test]
    fn other_providers_options_are_ignored_and_defaults_hold() {
        let request = Request { provider_options: Some(json!({"openai": {"store": true}})), ..Request::default() };
        let options = Options::from_request(&request).unwrap();
        assert!(options.auto_cache && options.body.is_empty() && options.thinking.is_none());
        assert_eq!(options.cache_control, json!({"type": "ephemeral"}));
    }

    #[test]
    fn malformed_options_are_configuration_errors() {
        for bad in [json!({"beta_headers": "x"}), json!({"auto_cache": "no"}), json!({"cache_control": true}), json!(3)] {
            let error = Options::from_request(&with_options(bad.clone())).unwrap_err();
            assert_eq!(error.kind, ErrorKind::Configuration, "{bad}");
        }
    }

    #[test]
    fn deep_merge_combines_objects_and_replaces_the_rest() {
        let mut base = json!({"output_config": {"format": {"type": "json_schema"}}, "tools": [1, 2], "n": 1});
        let overlay = json!({"output_config": {"effort": "low"}, "tools": [3], "top_k": 5});
        let (Value::Object(base_map), Value::Object(overlay)) = (&mut base, overlay) else { unreachable!() };
        deep_merge(base_map, overlay);
        assert_eq!(
            base,
            json!({"output_config": {"format": {"type": "json_schema"}, "effort": "low"}, "tools": [3], "n": 1, "top_k": 5})
        );
    }

    fn text(t: &str) -> Value {
        json!({"type": "text", "text": t})
    }

    fn body(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    fn marked(value: &Value) -> bool {
        value.get("cache_control").is_some()
    }

    #[test]
    fn marks_system_tools_and_the_last_two_user_turns() {
        let mut b = body(json!({
            "system": [text("a"), text("b")],
            "tools": [{"name": "x"}, {"name": "y"}],
            "messages": [
                {"role": "user", "content": [text("1"), text("2")]},
                {"role": "assistant", "content": [text("3")]},
                {"role": "user", "content": [text("4")]},
                {"role": "assistant", "content": [text("5")]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "6"}, text("7")]},
            ],
        }));
        place_breakpoints(&mut b, &json!({"type": "ephemeral"}));
        let value = Value::Object(b);
        let all = [
            &value["system"][0],
            &value["system"][1],
            &value["tools"][0],
            &value["tools"][1],
            &value["messages"][0]["content"][1],
            &value["messages"][1]["content"][0],
            &value["messages"][2]["content"][0],
            &value["messages"][4]["content"][0],
            &value["messages"][4]["content"][1],
        ];
        let got: Vec<bool> = all.iter().map(|v| marked(v)).collect();
        assert_eq!(got, [false, true, false, true, false, false, true, false, true]);
        assert_eq!(value["system"][1]["cache_control"], json!({"type": "ephemeral"}));
    }

    #[test]
    fn never_exceeds_four_breakpoints_counting_the_callers() {
        let mut b = body(json!({
            "system": [text("s")],
            "tools": [{"name": "x"}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "1", "cache_control": {"type": "ephemeral"}}]},
                {"role": "assistant", "content": [{"type": "text", "text": "2", "cache_control": {"type": "ephemeral"}}]},
                {"role": "user", "content": [text("3")]},
            ],
        }));
        place_breakpoints(&mut b, &json!({"type": "ephemeral"}));
        assert_eq!(count(&b), 4);
        let value = Value::Object(b);
        assert!(marked(&value["messages"][2]["content"][0]) && marked(&value["system"][0]) && !marked(&value["tools"][0]));
    }

    #[test]
    fn a_bare_request_gets_one_breakpoint_with_the_callers_marker() {
        let mut b = body(json!({"messages": [{"role": "user", "content": [text("hi")]}]}));
        place_breakpoints(&mut b, &json!({"type": "ephemeral", "ttl": "1h"}));
        assert_eq!(Value::Object(b)["messages"][0]["content"][0]["cache_control"], json!({"type": "ephemeral", "ttl": "1h"}));
    }
}
