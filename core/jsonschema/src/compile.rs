//! Compiling a schema document into the node arena: every keyword is read and checked once, here,
//! so that validation never re-parses the schema and a malformed one is rejected up front with the
//! JSON Pointer of the offending keyword.

use super::sorted_map::SortedMap;

use serde_json::{Map, Number, Value};

use super::json;
use super::json_text::quote;
use super::keywords::{Assertion, Keyword, Node, NodeId, Pattern, Properties, Types};
use super::resources::{own_base, Resources};
use super::uri::{escape_token, DEFAULT_BASE};
use super::{invalid, SchemaError};

/// Compiles `document`; its root is node 0.
pub(super) fn compile(document: &Value) -> Result<Vec<Node>, SchemaError> {
    let mut compiler =
        Compiler { resources: Resources::scan(document)?, nodes: Vec::new(), pointers: Vec::new(), compiled: SortedMap::new() };
    compiler.node(document, DEFAULT_BASE, "")?;
    reject_cycles(&compiler.nodes, &compiler.pointers)?;
    Ok(compiler.nodes)
}

struct Compiler<'a> {
    resources: Resources<'a>,
    nodes: Vec<Node>,
    /// The JSON Pointer of each node, for error messages.
    pointers: Vec<String>,
    /// Nodes by the address of the schema they came from, so a schema reached twice (by nesting
    /// and by `$ref`, or recursively) is compiled once.
    compiled: SortedMap<*const Value, NodeId>,
}

impl<'a> Compiler<'a> {
    fn node(&mut self, schema: &'a Value, base: &str, pointer: &str) -> Result<NodeId, SchemaError> {
        if let Some(&id) = self.compiled.get(&(schema as *const Value)) {
            return Ok(id);
        }
        // Reserve the id first, so a `$ref` back to this schema finds it while it compiles.
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.pointers.push(pointer.to_owned());
        self.compiled.insert(schema, id);
        self.nodes[id] = match schema {
            Value::Bool(true) => Node::default(),
            Value::Bool(false) => Node { keywords: vec![Keyword::Assert(Assertion::False)], ..Node::default() },
            Value::Object(object) => self.object(object, base, pointer)?,
            other => {
                return Err(invalid(
                    pointer,
                    format!("a schema must be an object or a boolean, found {}", json::type_name(other)),
                ))
            }
        };
        Ok(id)
    }

    fn object(&mut self, object: &'a Map<String, Value>, base: &str, pointer: &str) -> Result<Node, SchemaError> {
        let base = own_base(object, base, pointer)?;
        let base = base.as_str();
        let at = |keyword: &str| format!("{pointer}/{keyword}");
        let mut keywords = assertions(object, pointer)?.into_iter().map(Keyword::Assert).collect::<Vec<_>>();

        if let Some(Value::Array(_)) = object.get("items") {
            return Err(invalid(&at("items"), "must be a schema; for a tuple use \"prefixItems\" (draft 2020-12)"));
        }
        let prefix = self.list(object, "prefixItems", base, pointer)?;
        let rest = self.subschema(object, "items", base, pointer)?;
        if prefix.is_some() || rest.is_some() {
            keywords.push(Keyword::Items { prefix: prefix.unwrap_or_default(), rest });
        }
        if let Some(schema) = self.subschema(object, "contains", base, pointer)? {
            let min = count(object, "minContains", pointer)?.unwrap_or(1);
            let max = count(object, "maxContains", pointer)?;
            keywords.push(Keyword::Contains { schema, min, max });
        }

        let named = self.map(object, "properties", base, pointer)?;
        let patterns = self.map(object, "patternProperties", base, pointer)?.map(|schemas| {
            let compile = |(source, schema): (String, NodeId)| {
                let at = format!("{}/{}", at("patternProperties"), escape_token(&source));
                Ok((pattern(source, &at)?, schema))
            };
            schemas.into_iter().map(compile).collect::<Result<Vec<_>, SchemaError>>()
        });
        let patterns = patterns.transpose()?;
        let additional = self.subschema(object, "additionalProperties", base, pointer)?;
        if named.is_some() || patterns.is_some() || additional.is_some() {
            let named = named.unwrap_or_default().into_iter().collect();
            let patterns = patterns.unwrap_or_default();
            keywords.push(Keyword::Properties(Box::new(Properties { named, patterns, additional })));
        }
        if let Some(schema) = self.subschema(object, "propertyNames", base, pointer)? {
            keywords.push(Keyword::PropertyNames(schema));
        }
        if let Some(dependencies) = self.map(object, "dependentSchemas", base, pointer)? {
            keywords.push(Keyword::DependentSchemas(dependencies));
        }

        if let Some(reference) = object.get("$ref") {
            let reference = reference.as_str().ok_or_else(|| invalid(&at("$ref"), "must be a string (a URI reference)"))?;
            let (target, position) = self.resources.resolve(base, reference).ok_or_else(|| {
                invalid(
                    &at("$ref"),
                    format!(
                        "cannot resolve {}: only references within this document (JSON Pointers, $anchor and $id) are supported",
                        quote(reference)
                    ),
                )
            })?;
            keywords.push(Keyword::Ref(self.node(target, &position.base, &position.pointer)?));
        }
        if object.contains_key("$dynamicRef") {
            return Err(invalid(&at("$dynamicRef"), "is not supported; use \"$ref\""));
        }
        if let Some(schemas) = self.list(object, "allOf", base, pointer)? {
            keywords.push(Keyword::AllOf(schemas));
        }
        if let Some(schemas) = self.list(object, "anyOf", base, pointer)? {
            keywords.push(Keyword::AnyOf(schemas));
        }
        if let Some(schemas) = self.list(object, "oneOf", base, pointer)? {
            keywords.push(Keyword::OneOf(schemas));
        }
        if let Some(schema) = self.subschema(object, "not", base, pointer)? {
            keywords.push(Keyword::Not(schema));
        }
        // `then` and `else` mean nothing without `if`.
        if let Some(condition) = self.subschema(object, "if", base, pointer)? {
            let then = self.subschema(object, "then", base, pointer)?;
            let otherwise = self.subschema(object, "else", base, pointer)?;
            keywords.push(Keyword::If { condition, then, otherwise });
        }
        // Definitions apply nothing, but are compiled so that mistakes in them surface now.
        self.map(object, "$defs", base, pointer)?;

        // Last, so that every annotating keyword above has marked what it evaluated.
        let unevaluated_items = self.subschema(object, "unevaluatedItems", base, pointer)?;
        if let Some(schema) = unevaluated_items {
            keywords.push(Keyword::UnevaluatedItems(schema));
        }
        let unevaluated_properties = self.subschema(object, "unevaluatedProperties", base, pointer)?;
        if let Some(schema) = unevaluated_properties {
            keywords.push(Keyword::UnevaluatedProperties(schema));
        }
        Ok(Node { keywords, tracks_items: unevaluated_items.is_some(), tracks_properties: unevaluated_properties.is_some() })
    }

    fn subschema(
        &mut self,
        object: &'a Map<String, Value>,
        keyword: &str,
        base: &str,
        pointer: &str,
    ) -> Result<Option<NodeId>, SchemaError> {
        match object.get(keyword) {
            Some(schema) => Ok(Some(self.node(schema, base, &format!("{pointer}/{keyword}"))?)),
            None => Ok(None),
        }
    }

    /// A non-empty array of subschemas.
    fn list(
        &mut self,
        object: &'a Map<String, Value>,
        keyword: &str,
        base: &str,
        pointer: &str,
    ) -> Result<Option<Vec<NodeId>>, SchemaError> {
        let at = format!("{pointer}/{keyword}");
        match object.get(keyword) {
            None => Ok(None),
            Some(Value::Array(schemas)) if !schemas.is_empty() => {
                let ids = schemas.iter().enumerate().map(|(i, schema)| self.node(schema, base, &format!("{at}/{i}")));
                Ok(Some(ids.collect::<Result<_, _>>()?))
            }
            Some(_) => Err(invalid(&at, "must be a non-empty array of schemas")),
        }
    }

    /// An object whose values are subschemas.
    fn map(
        &mut self,
        object: &'a Map<String, Value>,
        keyword: &str,
        base: &str,
        pointer: &str,
    ) -> Result<Option<Vec<(String, NodeId)>>, SchemaError> {
        let at = format!("{pointer}/{keyword}");
        match object.get(keyword) {
            None => Ok(None),
            Some(Value::Object(schemas)) => {
                let mut ids = Vec::with_capacity(schemas.len());
                for (name, schema) in schemas {
                    ids.push((name.clone(), self.node(schema, base, &format!("{at}/{}", escape_token(name)))?));
                }
                Ok(Some(ids))
            }
            Some(_) => Err(invalid(&at, "must be an object whose values are schemas")),
        }
    }
}

/// Builds an assertion from its keyword's value.
type Make<T> = fn(T) -> Assertion;

/// The keywords of `object` that check the instance itself, in the order they are reported.
fn assertions(object: &Map<String, Value>, pointer: &str) -> Result<Vec<Assertion>, SchemaError> {
    let at = |keyword: &str| format!("{pointer}/{keyword}");
    let mut out = Vec::new();
    if let Some(types) = object.get("type") {
        let names = match types {
            Value::String(name) => vec![name.clone()],
            Value::Array(_) => strings(types, &at("type"))?,
            _ => return Err(invalid(&at("type"), "must be a type name or an array of them")),
        };
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        out.push(Assertion::Type(Types::parse(&names).map_err(|message| invalid(&at("type"), message))?));
    }
    if let Some(value) = object.get("const") {
        out.push(Assertion::Const(value.clone()));
    }
    if let Some(values) = object.get("enum") {
        let values = values.as_array().ok_or_else(|| invalid(&at("enum"), "must be an array"))?;
        out.push(Assertion::Enum(values.clone()));
    }
    let numbers: [(&str, Make<Number>); 4] = [
        ("minimum", Assertion::Minimum),
        ("exclusiveMinimum", Assertion::ExclusiveMinimum),
        ("maximum", Assertion::Maximum),
        ("exclusiveMaximum", Assertion::ExclusiveMaximum),
    ];
    for (keyword, assertion) in numbers {
        match object.get(keyword) {
            Some(Value::Number(limit)) => out.push(assertion(limit.clone())),
            Some(_) => return Err(invalid(&at(keyword), "must be a number")),
            None => {}
        }
    }
    match object.get("multipleOf") {
        Some(Value::Number(divisor)) if divisor.as_f64().is_some_and(|d| d > 0.0) => {
            out.push(Assertion::MultipleOf(divisor.clone()))
        }
        Some(_) => return Err(invalid(&at("multipleOf"), "must be a number greater than 0")),
        None => {}
    }
    let counts: [(&str, Make<u64>); 6] = [
        ("minLength", Assertion::MinLength),
        ("maxLength", Assertion::MaxLength),
        ("minItems", Assertion::MinItems),
        ("maxItems", Assertion::MaxItems),
        ("minProperties", Assertion::MinProperties),
        ("maxProperties", Assertion::MaxProperties),
    ];
    for (keyword, assertion) in counts {
        if let Some(limit) = count(object, keyword, pointer)? {
            out.push(assertion(limit));
        }
    }
    if let Some(source) = object.get("pattern") {
        let source = source.as_str().ok_or_else(|| invalid(&at("pattern"), "must be a string (a regular expression)"))?;
        out.push(Assertion::Pattern(pattern(source.to_owned(), &at("pattern"))?));
    }
    match object.get("uniqueItems") {
        Some(Value::Bool(true)) => out.push(Assertion::UniqueItems),
        Some(Value::Bool(false)) | None => {}
        Some(_) => return Err(invalid(&at("uniqueItems"), "must be a boolean")),
    }
    if let Some(names) = object.get("required") {
        out.push(Assertion::Required(strings(names, &at("required"))?));
    }
    if let Some(dependencies) = object.get("dependentRequired") {
        let dependencies = dependencies.as_object().ok_or_else(|| invalid(&at("dependentRequired"), "must be an object"))?;
        let mut parsed = Vec::with_capacity(dependencies.len());
        for (name, names) in dependencies {
            parsed.push((name.clone(), strings(names, &format!("{}/{}", at("dependentRequired"), escape_token(name)))?));
        }
        out.push(Assertion::DependentRequired(parsed));
    }
    Ok(out)
}

/// A non-negative integer keyword; `2.0` counts as 2, as the specification allows.
fn count(object: &Map<String, Value>, keyword: &str, pointer: &str) -> Result<Option<u64>, SchemaError> {
    let Some(value) = object.get(keyword) else {
        return Ok(None);
    };
    let as_count = match value {
        Value::Number(n) => n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64)),
        _ => None,
    };
    as_count.map(Some).ok_or_else(|| invalid(&format!("{pointer}/{keyword}"), "must be a non-negative integer"))
}

fn strings(value: &Value, at: &str) -> Result<Vec<String>, SchemaError> {
    let items = value.as_array().ok_or_else(|| invalid(at, "must be an array of strings"))?;
    items.iter().map(|item| item.as_str().map(str::to_owned).ok_or_else(|| invalid(at, "must be an array of strings"))).collect()
}

fn pattern(source: String, at: &str) -> Result<Pattern, SchemaError> {
    match openagent_regex::Regex::ecma(&source) {
        Ok(regex) => Ok(Pattern { regex, source }),
        Err(error) => Err(invalid(at, format!("is not a supported regular expression: {error}"))),
    }
}

/// Rejects a schema that applies itself to the same instance location again (`{"$ref": "#"}`, or
/// two `$defs` that `allOf` each other) without descending into the instance: validating it would
/// never end.
fn reject_cycles(nodes: &[Node], pointers: &[String]) -> Result<(), SchemaError> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Open,
        Done,
    }
    fn visit(id: NodeId, nodes: &[Node], pointers: &[String], state: &mut [State]) -> Result<(), SchemaError> {
        match state[id] {
            State::Done => return Ok(()),
            State::Open => {
                return Err(invalid(
                    &pointers[id],
                    "applies itself to the same value again (through $ref and in-place keywords such as allOf) without descending into it, so validation would never end",
                ))
            }
            State::New => state[id] = State::Open,
        }
        for keyword in &nodes[id].keywords {
            let next: Vec<NodeId> = match keyword {
                Keyword::Ref(target) | Keyword::Not(target) => vec![*target],
                Keyword::AllOf(list) | Keyword::AnyOf(list) | Keyword::OneOf(list) => list.clone(),
                Keyword::If { condition, then, otherwise } => {
                    [Some(*condition), *then, *otherwise].into_iter().flatten().collect()
                }
                Keyword::DependentSchemas(map) => map.iter().map(|(_, id)| *id).collect(),
                _ => Vec::new(),
            };
            for next in next {
                visit(next, nodes, pointers, state)?;
            }
        }
        state[id] = State::Done;
        Ok(())
    }
    let mut state = vec![State::New; nodes.len()];
    (0..nodes.len()).try_for_each(|id| visit(id, nodes, pointers, &mut state))
}
