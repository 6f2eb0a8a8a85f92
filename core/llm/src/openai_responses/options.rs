//! `provider_options.openai`: merged into the body as a JSON merge patch (RFC 7396), except
//! `organization` and `project`, which become headers.

use serde_json::{Map, Value};

use super::error::invalid;
use super::PROVIDER;
use crate::error::LlmError;
use crate::json;
use crate::types::Request;

/// `provider_options.openai` keys that become headers rather than body fields.
const HEADER_OPTIONS: [(&str, &str); 2] = [("organization", "OpenAI-Organization"), ("project", "OpenAI-Project")];

/// The option that continues each response instead of sending the whole conversation; the
/// codec's own, never sent.
const CHAIN: &str = "chain";

/// Whether `chain` is on: each request names the last response (`previous_response_id`) and
/// sends only what came after it.
pub(super) fn chain(options: &Map<String, Value>) -> Result<bool, LlmError> {
    match options.get(CHAIN) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(on)) => Ok(*on),
        Some(_) => Err(invalid("provider_options.openai.chain must be true or false")),
    }
}

/// The request's options (none is an empty map).
pub(super) fn read(request: &Request) -> Result<Map<String, Value>, LlmError> {
    match request.provider_options.as_ref().and_then(|all| all.get(PROVIDER)) {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(options)) => Ok(options.clone()),
        Some(_) => Err(invalid("provider_options.openai must be an object")),
    }
}

/// Every option that is not a header, merged into `body`.
pub(super) fn merge_into(body: &mut Map<String, Value>, options: &Map<String, Value>) {
    let ours = |key: &str| key == CHAIN || HEADER_OPTIONS.iter().any(|(option, _)| *option == key);
    for (key, value) in options.iter().filter(|(key, _)| !ours(key)) {
        merge_patch(body, key, value);
    }
}

/// The headers the options name.
pub(super) fn headers(options: &Map<String, Value>, headers: &mut Vec<(String, String)>) -> Result<(), LlmError> {
    for (option, header) in HEADER_OPTIONS {
        match options.get(option) {
            None | Some(Value::Null) => {}
            Some(Value::String(value)) => headers.push((header.into(), value.clone())),
            Some(_) => return Err(invalid(format!("provider_options.openai.{option} must be a string"))),
        }
    }
    Ok(())
}

/// RFC 7396 JSON merge patch of one key: objects merge, `null` removes, anything else replaces.
fn merge_patch(target: &mut Map<String, Value>, key: &str, patch: &Value) {
    match patch {
        Value::Null => json::remove(target, key),
        Value::Object(fields) => {
            let slot = target.entry(key).or_insert_with(|| Value::Object(Map::new()));
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            if let Value::Object(inner) = slot {
                for (key, value) in fields {
                    merge_patch(inner, key, value);
                }
            }
        }
        other => {
            target.insert(key.to_owned(), other.clone());
        }
    }
}
