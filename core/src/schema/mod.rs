//! JSON Schema validation (placeholder API; the validator is being written).

use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(pub String);

impl SchemaError {
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

/// One violation: where in the instance, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    /// JSON Pointer into the instance, `""` for the root.
    pub instance_path: String,
    pub message: String,
}

pub struct Schema {
    _root: Value,
}

impl Schema {
    pub fn compile(schema: &Value) -> Result<Self, SchemaError> {
        Ok(Self { _root: schema.clone() })
    }

    pub fn validate(&self, _instance: &Value) -> Result<(), Vec<ValidationError>> {
        Ok(())
    }
}

impl std::fmt::Display for ValidationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.instance_path.is_empty() { "(root)" } else { &self.instance_path };
        write!(f, "{path}: {}", self.message)
    }
}
