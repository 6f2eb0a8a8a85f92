//! # openagent-jsonschema
//!
//! JSON Schema (draft 2020-12) validation, small enough for the browser bundle.
//!
//! Tool-call arguments from a model are checked with this before a tool runs, and structured
//! results after; the list of violations goes back to the model so it can correct itself. So every
//! violation is reported, each with a JSON Pointer into the instance and a plain-language message,
//! and a valid instance is checked without allocating. The maintained validators (`jsonschema`,
//! `boon`) are each larger than our whole bundle budget, hence this one; it is proven against the
//! official JSON-Schema-Test-Suite in `tests/json_schema_suite.rs`.
//!
//! It must not depend on anything of OpenAgent, nor do I/O or anything async: it is plain functions
//! over `serde_json` values (with `regex-lite` for `pattern`), so every host and every crate can use
//! it, and it builds and passes its tests on `wasm32-unknown-unknown`. `openagent-core` re-exports
//! it as `openagent_core::schema`. Being the lowest crate, it also holds two small pieces the
//! others share: [`json_text`] (JSON written and quoted compactly) and [`sorted_map`] (the map the
//! workspace keeps as a sorted vector).
//!
//! ```
//! use openagent_jsonschema::Schema;
//! use serde_json::json;
//!
//! let schema = Schema::compile(&json!({
//!     "type": "object",
//!     "properties": {"file_path": {"type": "string"}, "limit": {"type": "integer", "maximum": 5}},
//!     "required": ["file_path"],
//! }))?;
//! let errors = schema.validate(&json!({"limit": 7})).unwrap_err();
//! let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
//! assert_eq!(errors, [
//!     "(root): missing required property \"file_path\"",
//!     "/limit: value 7 is greater than the maximum 5",
//! ]);
//! # Ok::<(), openagent_jsonschema::SchemaError>(())
//! ```
//!
//! # Supported
//! Every draft 2020-12 validation and applicator keyword: `type`, `enum`, `const`, `multipleOf`,
//! `maximum`, `exclusiveMaximum`, `minimum`, `exclusiveMinimum`, `maxLength`, `minLength` (in
//! Unicode code points), `pattern`, `maxItems`, `minItems`, `uniqueItems`, `prefixItems`, `items`,
//! `contains`, `minContains`, `maxContains`, `maxProperties`, `minProperties`, `required`,
//! `properties`, `patternProperties`, `additionalProperties`, `propertyNames`, `dependentRequired`,
//! `dependentSchemas`, `allOf`, `anyOf`, `oneOf`, `not`, `if` / `then` / `else`,
//! `unevaluatedItems` and `unevaluatedProperties` (with annotations collected through every in-place
//! applicator), boolean schemas, `$defs`, and `$ref` to JSON Pointers, `$anchor`s and `$id`s within
//! the same document, recursion included. Numbers compare by value (`1 == 1.0`, and `1.0` is an
//! integer).
//!
//! # Not supported
//! - `$dynamicRef` is rejected at compile time; `$dynamicAnchor` works only as a plain anchor.
//! - Remote references: a `$ref` to a URI that is not a resource of the document itself fails to
//!   compile. Nothing is ever fetched, and the meta-schemas are not bundled.
//! - `$schema` and `$vocabulary` are ignored: every schema is read as draft 2020-12. Draft 7
//!   schemas mostly work (`definitions` are reachable by `$ref` pointers), but a tuple written as
//!   `"items": [...]` is rejected with a hint to use `prefixItems`, and draft 7's `dependencies`
//!   and `additionalItems` are unknown keywords, so ignored.
//! - `format`, `contentEncoding`, `contentMediaType` and `contentSchema` are annotations only and
//!   never fail validation, as draft 2020-12 specifies by default.
//! - `pattern` uses `regex-lite`, not ECMA-262: its `\d`, `\w`, `\s` and `\b` are ASCII only, and
//!   Unicode classes (`\p{L}`) and look-around fail to compile.
//! - A schema that applies itself to the same instance location without descending into it
//!   (`{"$ref": "#"}`) is rejected at compile time, as validating it would never end.

mod assert;
mod compile;
mod json;
pub mod json_text;
mod keywords;
mod report;
mod resources;
pub mod sorted_map;
#[cfg(test)]
mod tests;
mod uri;
mod validate;

use std::fmt;

use serde_json::Value;

use keywords::Node;
use report::{Path, Sink};
pub use resources::pointer;
use validate::Evaluator;

/// A schema that cannot be compiled; the message names the JSON Pointer of the bad keyword.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(pub String);

impl SchemaError {
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

/// The error for a malformed keyword at `pointer` in the schema document.
fn invalid(pointer: &str, message: impl fmt::Display) -> SchemaError {
    let pointer = if pointer.is_empty() { "the root" } else { pointer };
    SchemaError(format!("invalid schema at {pointer}: {message}"))
}

/// One violation: where in the instance, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    /// JSON Pointer into the instance, `""` for the root.
    pub instance_path: String,
    pub message: String,
}

/// `/limit: value 7 is greater than the maximum 5`, or `(root): ...` for the root.
impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.instance_path.is_empty() { "(root)" } else { &self.instance_path };
        write!(f, "{path}: {}", self.message)
    }
}

/// A compiled schema: compile once, validate many times.
#[derive(Debug)]
pub struct Schema {
    /// The root is node 0.
    nodes: Vec<Node>,
}

impl Schema {
    /// Compiles a draft 2020-12 schema, resolving its `$ref`s and compiling its patterns.
    pub fn compile(schema: &Value) -> Result<Self, SchemaError> {
        Ok(Self { nodes: compile::compile(schema)? })
    }

    /// Checks `instance`, returning every violation if there is any.
    pub fn validate(&self, instance: &Value) -> Result<(), Vec<ValidationError>> {
        let mut errors = Vec::new();
        let valid = self.evaluator().node(0, instance, &Path::Root, Sink::collect(&mut errors), None);
        match (valid, errors.is_empty()) {
            (true, _) => Ok(()),
            (false, false) => Err(errors),
            // Every failing keyword reports itself; this only guards that promise.
            (false, true) => {
                Err(vec![ValidationError { instance_path: String::new(), message: "value does not match the schema".into() }])
            }
        }
    }

    /// Whether `instance` is valid; stops at the first violation and builds no messages.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.evaluator().node(0, instance, &Path::Root, Sink::check(), None)
    }

    fn evaluator(&self) -> Evaluator<'_> {
        Evaluator { nodes: &self.nodes }
    }
}
