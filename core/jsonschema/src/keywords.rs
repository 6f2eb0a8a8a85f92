//! The compiled form of a schema: an arena of nodes, each a flat list of keywords in the order they
//! are checked. Subschemas are referred to by index, which is how `$ref` cycles stay finite.

use std::fmt;

use openagent_regex::Regex;
use serde_json::{Number, Value};

use super::json;
use super::sorted_map::SortedMap;

/// Index of a node in the arena.
pub(super) type NodeId = usize;

/// One schema object (or boolean schema) after compilation.
#[derive(Debug, Default)]
pub(super) struct Node {
    /// Checked in order; `unevaluated*` always come last, after every keyword that annotates.
    pub keywords: Vec<Keyword>,
    /// Set when the node has `unevaluatedProperties` / `unevaluatedItems`, so that evaluation
    /// tracks which properties / items its other keywords evaluated. Nodes without them track
    /// nothing, which keeps the common path free of allocation.
    pub tracks_properties: bool,
    pub tracks_items: bool,
}

impl Node {
    /// The boolean schema `false`, which callers report with a message about their own keyword.
    pub fn is_false(&self) -> bool {
        matches!(self.keywords.as_slice(), [Keyword::Assert(Assertion::False)])
    }
}

/// A keyword that applies subschemas, or a plain assertion.
#[derive(Debug)]
pub(super) enum Keyword {
    Assert(Assertion),
    /// `prefixItems` and `items` together, as `items` applies after the prefix.
    Items {
        prefix: Vec<NodeId>,
        rest: Option<NodeId>,
    },
    Contains {
        schema: NodeId,
        min: u64,
        max: Option<u64>,
    },
    /// `properties`, `patternProperties` and `additionalProperties` together, as the last depends
    /// on which names the first two matched.
    Properties(Box<Properties>),
    PropertyNames(NodeId),
    DependentSchemas(Vec<(String, NodeId)>),
    Ref(NodeId),
    AllOf(Vec<NodeId>),
    AnyOf(Vec<NodeId>),
    OneOf(Vec<NodeId>),
    Not(NodeId),
    If {
        condition: NodeId,
        then: Option<NodeId>,
        otherwise: Option<NodeId>,
    },
    UnevaluatedItems(NodeId),
    UnevaluatedProperties(NodeId),
}

#[derive(Debug)]
pub(super) struct Properties {
    /// By name (a `serde_json` map keeps insertion order when its `preserve_order` feature is on).
    pub named: SortedMap<String, NodeId>,
    pub patterns: Vec<(Pattern, NodeId)>,
    pub additional: Option<NodeId>,
}

/// A keyword that checks the instance itself and applies no subschema.
#[derive(Debug)]
pub(super) enum Assertion {
    /// The boolean schema `false`.
    False,
    Type(Types),
    Const(Value),
    Enum(Vec<Value>),
    Minimum(Number),
    ExclusiveMinimum(Number),
    Maximum(Number),
    ExclusiveMaximum(Number),
    MultipleOf(Number),
    MinLength(u64),
    MaxLength(u64),
    Pattern(Pattern),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    MinProperties(u64),
    MaxProperties(u64),
    Required(Vec<String>),
    DependentRequired(Vec<(String, Vec<String>)>),
}

/// A compiled `pattern`, with its source for messages.
#[derive(Debug)]
pub(super) struct Pattern {
    pub regex: Regex,
    pub source: String,
}

/// The set of types a `type` keyword allows, as bits.
#[derive(Debug, Clone, Copy)]
pub(super) struct Types(u8);

impl Types {
    /// In the order messages list them: `expected string or null`.
    const NAMES: [&'static str; 7] = ["string", "number", "integer", "boolean", "object", "array", "null"];

    pub fn parse(names: &[&str]) -> Result<Self, String> {
        let mut bits = 0;
        for name in names {
            let index = Self::NAMES.iter().position(|known| known == name).ok_or_else(|| {
                format!("unknown type {}; the types are {}", crate::json_text::quote(name), Self::NAMES.join(", "))
            })?;
            bits |= 1 << index;
        }
        Ok(Self(bits))
    }

    pub fn allows(self, value: &Value) -> bool {
        // Bit positions follow NAMES.
        let bit = |i: u8| self.0 & (1 << i) != 0;
        match value {
            Value::String(_) => bit(0),
            Value::Number(n) => bit(1) || (bit(2) && json::is_integer(n)),
            Value::Bool(_) => bit(3),
            Value::Object(_) => bit(4),
            Value::Array(_) => bit(5),
            Value::Null => bit(6),
        }
    }
}

/// `string or null`, for messages.
impl fmt::Display for Types {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Self::NAMES.iter().enumerate().filter(|(i, _)| self.0 & (1 << i) != 0).map(|(_, n)| *n).collect();
        match names.split_last() {
            Some((last, [])) => f.write_str(last),
            Some((last, rest)) => write!(f, "{} or {last}", rest.join(", ")),
            None => f.write_str("nothing"),
        }
    }
}
