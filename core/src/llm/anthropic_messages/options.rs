//! `provider_options.anthropic`: the keys this codec interprets, and the rest, which is merged into
//! the request body as given (spec 3.6, 7.2).

use serde_json::{Map, Value};

use super::PROVIDER;
use crate::llm::error::{ErrorKind, LlmError};
use crate::llm::json::object;
use crate::llm::types::Request;

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
}
