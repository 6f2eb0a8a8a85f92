//! `provider_options.gemini`: merged into the body (spec 7.2 step 7), as the [`Gemini`](super::Gemini)
//! docs describe.

use serde_json::{Map, Value};

use super::error::invalid;
use crate::error::LlmError;

/// Spec 7.2 step 7, as the `Gemini` docs describe: a deep merge, with `tools` appended and
/// `generationConfig.thinkingConfig` replaced whole.
pub(super) fn apply(body: &mut Map<String, Value>, options: &Value) -> Result<(), LlmError> {
    let options =
        options.as_object().ok_or_else(|| invalid("provider_options.gemini must be an object of request-body fields"))?;
    for (key, value) in options {
        let target = body.entry(key.as_str()).or_insert(Value::Null);
        match (key.as_str(), target, value) {
            ("tools", Value::Array(tools), Value::Array(extra)) => tools.extend(extra.iter().cloned()),
            ("generationConfig", Value::Object(config), Value::Object(patch)) => {
                for (key, value) in patch {
                    match config.get_mut(key) {
                        Some(target) if key != "thinkingConfig" => merge(target, value),
                        _ => {
                            config.insert(key.clone(), value.clone());
                        }
                    }
                }
            }
            (_, target, value) => merge(target, value),
        }
    }
    Ok(())
}

/// Objects merge key by key; anything else replaces what was there.
fn merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(target), Value::Object(patch)) => {
            for (key, value) in patch {
                merge(target.entry(key.as_str()).or_insert(Value::Null), value);
            }
        }
        (target, patch) => *target = patch.clone(),
    }
}
