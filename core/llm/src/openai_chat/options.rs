//! The codec's own provider options, read from `provider_options[provider]`; what is left is
//! merged into the body as it is.

use serde_json::{Map, Value};

use crate::error::{ErrorKind, LlmError};
use crate::types::Request;

/// Options this codec interprets, and the rest for the body.
#[derive(Debug, Default)]
pub(super) struct ChatOptions {
    pub developer_role: bool,
    pub send_reasoning: bool,
    pub max_completion_tokens: bool,
    pub strict_tools: bool,
    /// Body keys to set (or, when `null`, to remove).
    pub passthrough: Map<String, Value>,
}

impl ChatOptions {
    /// Reads `provider_options[provider]`, and `provider_options[provider with '_' for '-']`
    /// since `openai_compatible` is the natural way to write the default name as a key.
    pub fn from_request(request: &Request, provider: &str) -> Result<Self, LlmError> {
        let mut options = Self::default();
        let Some(all) = request.provider_options.as_ref().and_then(Value::as_object) else {
            return Ok(options);
        };
        let snake = provider.replace('-', "_");
        let keys = if snake == provider { vec![provider] } else { vec![snake.as_str(), provider] };
        for key in keys {
            match all.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::Object(map)) => options.read(key, map)?,
                Some(_) => return Err(config_error(format!("provider_options.{key} must be an object"))),
            }
        }
        Ok(options)
    }

    fn read(&mut self, key: &str, map: &Map<String, Value>) -> Result<(), LlmError> {
        for (name, value) in map {
            let flag =
                || value.as_bool().ok_or_else(|| config_error(format!("provider_options.{key}.{name} must be true or false")));
            match name.as_str() {
                "developer_role" => self.developer_role = flag()?,
                "send_reasoning" => self.send_reasoning = flag()?,
                "strict_tools" => self.strict_tools = flag()?,
                "max_tokens_param" => {
                    self.max_completion_tokens = match value.as_str() {
                        Some("max_tokens") => false,
                        Some("max_completion_tokens") => true,
                        _ => {
                            return Err(config_error(format!(
                                "provider_options.{key}.max_tokens_param must be \"max_tokens\" or \"max_completion_tokens\""
                            )))
                        }
                    }
                }
                _ => {
                    self.passthrough.insert(name.clone(), value.clone());
                }
            }
        }
        Ok(())
    }
}

fn config_error(message: String) -> LlmError {
    LlmError::new(ErrorKind::Configuration, message)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use serde_json::json;

    fn read(options: Value, provider: &str) -> Result<ChatOptions, LlmError> {
        ChatOptions::from_request(&Request { provider_options: Some(options), ..Default::default() }, provider)
    }

    #[test]
    fn reads_the_codec_keys_and_keeps_the_rest_for_the_body() {
        let options = read(
            json!({"openai_compatible": {"send_reasoning": true, "developer_role": true, "strict_tools": true,
                "max_tokens_param": "max_completion_tokens", "seed": 7, "stream_options": null},
                "anthropic": {"thinking": {}}}),
            "openai-compatible",
        )
        .unwrap();
        assert!(options.send_reasoning && options.developer_role && options.strict_tools && options.max_completion_tokens);
        assert_eq!(Value::Object(options.passthrough), json!({"seed": 7, "stream_options": null}));
    }

    #[test]
    fn the_exact_provider_name_is_read_and_wins_over_its_snake_case_form() {
        let options =
            read(json!({"openai-compatible": {"seed": 1}, "openai_compatible": {"seed": 2, "top_k": 3}}), "openai-compatible");
        assert_eq!(Value::Object(options.unwrap().passthrough), json!({"seed": 1, "top_k": 3}));
        let options = read(json!({"vllm": {"top_k": 5}, "openai_compatible": {"seed": 2}}), "vllm").unwrap();
        assert_eq!(Value::Object(options.passthrough), json!({"top_k": 5}));
    }

    #[test]
    fn malformed_options_are_configuration_errors() {
        for bad in [json!({"vllm": 3}), json!({"vllm": {"send_reasoning": "yes"}}), json!({"vllm": {"max_tokens_param": "n"}})] {
            assert_eq!(read(bad, "vllm").unwrap_err().kind, ErrorKind::Configuration);
        }
    }
}
