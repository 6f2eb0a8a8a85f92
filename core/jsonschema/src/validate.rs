//! Evaluation of compiled nodes against an instance.
//!
//! One walk serves both `validate` and `is_valid`: the `Sink` decides whether violations are
//! collected or the walk stops at the first one. Messages and paths are built only for a reported
//! violation, so a valid instance is checked without allocating, unless the schema uses
//! `unevaluated*` or `propertyNames`.
//!
//! `unevaluatedProperties` / `unevaluatedItems` need to know what the rest of their schema
//! evaluated, across `allOf`, `$ref`, the passing branches of `anyOf` / `oneOf`, `if` / `then` /
//! `else` and `dependentSchemas`. A node that has them keeps `Marks`: one flag per property (by its
//! position in the object) or item. In-place applicators pass the marks down; a branch whose result
//! may be discarded (`anyOf`, `oneOf`, `if`) marks a scratch copy that is merged only if it passed.

use serde_json::{Map, Value};

use super::assert;
use super::json_text::quote;
use super::keywords::{Keyword, Node, NodeId, Properties};
use super::report::{plural, Path, Sink};

/// Which properties or items of the current instance have been evaluated, by position.
type Marks = Vec<bool>;

/// Walks the node arena of one compiled schema.
pub(super) struct Evaluator<'s> {
    pub nodes: &'s [Node],
}

impl Evaluator<'_> {
    /// Evaluates node `id` against `instance`, marking what it evaluated into `marks` if given.
    pub fn node(&self, id: NodeId, instance: &Value, path: &Path<'_>, mut sink: Sink<'_>, marks: Option<&mut Marks>) -> bool {
        let node = &self.nodes[id];
        let tracked = match instance {
            Value::Object(object) if node.tracks_properties => object.len(),
            Value::Array(items) if node.tracks_items => items.len(),
            _ => {
                let mut marks = marks;
                return sink
                    .every(&node.keywords, |sink, keyword| self.keyword(keyword, instance, path, sink, marks.as_deref_mut()));
            }
        };
        // Annotations of sibling schemas are not visible here, so start from a clean slate, and
        // hand what this node evaluated up to the caller.
        let mut own = vec![false; tracked];
        let valid = sink.every(&node.keywords, |sink, keyword| self.keyword(keyword, instance, path, sink, Some(&mut own)));
        if let Some(marks) = marks {
            merge(marks, &own);
        }
        valid
    }

    fn keyword(
        &self,
        keyword: &Keyword,
        instance: &Value,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        // The same instance, checked in place: failures are this node's, and so are annotations.
        let mut in_place =
            |sink: &mut Sink<'_>, schema: &NodeId| self.node(*schema, instance, path, sink.reborrow(), marks.as_deref_mut());
        match (keyword, instance) {
            (Keyword::Assert(assertion), _) => assert::check(assertion, instance, path, sink),
            (Keyword::Ref(schema), _) => in_place(sink, schema),
            (Keyword::AllOf(schemas), _) => sink.every(schemas, in_place),
            (Keyword::DependentSchemas(dependencies), Value::Object(object)) => {
                let present = dependencies.iter().filter(|(name, _)| object.contains_key(name.as_str()));
                sink.every(present, |sink, (_, schema)| in_place(sink, schema))
            }
            (Keyword::AnyOf(schemas), _) => self.any_of(schemas, instance, path, sink, marks),
            (Keyword::OneOf(schemas), _) => self.one_of(schemas, instance, path, sink, marks),
            (Keyword::Not(schema), _) => {
                !self.node(*schema, instance, path, Sink::check(), None)
                    || sink.fail(path, || "value must not match the schema in \"not\"".into())
            }
            (Keyword::If { condition, then, otherwise }, _) => {
                let holds = self.passes(*condition, instance, path, marks.as_deref_mut());
                match if holds { then } else { otherwise } {
                    Some(branch) => self.node(*branch, instance, path, sink.reborrow(), marks),
                    None => true,
                }
            }
            (Keyword::Items { prefix, rest }, Value::Array(items)) => self.items(prefix, *rest, items, path, sink, marks),
            (Keyword::Contains { schema, min, max }, Value::Array(items)) => {
                let count = self.count_contains(*schema, *min, max.is_some(), items, path, marks);
                contains_bounds(count, *min, *max, path, sink)
            }
            (Keyword::Properties(properties), Value::Object(object)) => self.properties(properties, object, path, sink, marks),
            (Keyword::PropertyNames(schema), Value::Object(object)) => self.property_names(*schema, object, path, sink),
            (Keyword::UnevaluatedItems(schema), Value::Array(items)) => {
                let unevaluated = items.iter().enumerate().filter(|(i, _)| take_unmarked(&mut marks, *i));
                sink.every(unevaluated, |sink, (i, item)| match self.nodes[*schema].is_false() {
                    true => sink.fail(path, || format!("unexpected array item {i}: no further items are allowed here")),
                    false => self.node(*schema, item, &Path::Index(path, i), sink.reborrow(), None),
                })
            }
            (Keyword::UnevaluatedProperties(schema), Value::Object(object)) => {
                let unevaluated = object.iter().enumerate().filter(|(i, _)| take_unmarked(&mut marks, *i));
                sink.every(unevaluated, |sink, (_, (key, value))| match self.nodes[*schema].is_false() {
                    true => sink.fail(path, || format!("unexpected property {}", quote(key))),
                    false => self.node(*schema, value, &Path::Key(path, key), sink.reborrow(), None),
                })
            }
            // An array or object keyword, and the instance is of another type.
            _ => true,
        }
    }

    /// Whether `id` accepts the instance, without reporting why not. Its annotations go into
    /// `marks` only if it does, as a failed subschema's annotations are dropped.
    fn passes(&self, id: NodeId, instance: &Value, path: &Path<'_>, marks: Option<&mut Marks>) -> bool {
        let Some(marks) = marks else {
            return self.node(id, instance, path, Sink::check(), None);
        };
        let mut scratch = vec![false; marks.len()];
        let valid = self.node(id, instance, path, Sink::check(), Some(&mut scratch));
        if valid {
            merge(marks, &scratch);
        }
        valid
    }

    fn items(
        &self,
        prefix: &[NodeId],
        rest: Option<NodeId>,
        items: &[Value],
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        // `"items": false` after a prefix is a length limit; say so once rather than per item.
        if rest.is_some_and(|rest| self.nodes[rest].is_false()) && items.len() > prefix.len() {
            return sink.fail(path, || {
                format!("array has {}, at most {} allowed", plural(items.len() as u64, "item", "items"), prefix.len())
            });
        }
        let applicable = items.iter().enumerate().map_while(|(i, item)| Some((i, item, prefix.get(i).copied().or(rest)?)));
        sink.every(applicable, |sink, (i, item, schema)| {
            mark(&mut marks, i);
            self.node(schema, item, &Path::Index(path, i), sink.reborrow(), None)
        })
    }

    /// How many items match `contains`, marking them. Stops counting once `min` is reached if
    /// nothing needs the exact count (no `maxContains`, no `unevaluatedItems`).
    fn count_contains(
        &self,
        schema: NodeId,
        min: u64,
        has_max: bool,
        items: &[Value],
        path: &Path<'_>,
        mut marks: Option<&mut Marks>,
    ) -> u64 {
        let mut count = 0;
        for (i, item) in items.iter().enumerate() {
            if self.node(schema, item, &Path::Index(path, i), Sink::check(), None) {
                count += 1;
                mark(&mut marks, i);
                if count >= min && !has_max && marks.is_none() {
                    break;
                }
            }
        }
        count
    }

    fn properties(
        &self,
        properties: &Properties,
        object: &Map<String, Value>,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        sink.every(object.iter().enumerate(), |sink, (i, (key, value))| {
            let here = Path::Key(path, key);
            let named = properties.named.get(key.as_str()).copied();
            let patterns = properties.patterns.iter().filter(|(pattern, _)| pattern.regex.is_match(key));
            let mut matched = false;
            let mut valid = sink.every(named.into_iter().chain(patterns.map(|(_, schema)| *schema)), |sink, schema| {
                matched = true;
                self.node(schema, value, &here, sink.reborrow(), None)
            });
            if let (false, Some(additional)) = (matched, properties.additional) {
                matched = true;
                valid = match self.nodes[additional].is_false() {
                    true => sink.fail(path, || unexpected_property(key, properties)),
                    false => self.node(additional, value, &here, sink.reborrow(), None),
                };
            }
            if matched {
                mark(&mut marks, i);
            }
            valid
        })
    }

    fn property_names(&self, schema: NodeId, object: &Map<String, Value>, path: &Path<'_>, sink: &mut Sink<'_>) -> bool {
        sink.every(object.keys(), |sink, key| {
            // Keywords take a Value, so each name is copied into one; propertyNames is rare enough.
            let name = Value::String(key.clone());
            if self.node(schema, &name, path, Sink::check(), None) {
                return true;
            }
            if sink.collecting() {
                let mut errors = Vec::new();
                self.node(schema, &name, path, Sink::collect(&mut errors), None);
                for error in errors {
                    sink.fail(path, || format!("property name {} is invalid: {}", quote(key), error.message));
                }
            }
            false
        })
    }

    fn any_of(
        &self,
        schemas: &[NodeId],
        instance: &Value,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        let mut any = false;
        for schema in schemas {
            // Without marks the first match settles it; with them every passing branch annotates.
            if self.passes(*schema, instance, path, marks.as_deref_mut()) {
                any = true;
                if marks.is_none() {
                    break;
                }
            }
        }
        any || sink.fail(path, || self.no_match("anyOf", schemas, instance, path))
    }

    fn one_of(
        &self,
        schemas: &[NodeId],
        instance: &Value,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        let mut first = None;
        for (i, schema) in schemas.iter().enumerate() {
            // A second match fails the keyword, so its marks need not be kept.
            let marks = if first.is_none() { marks.as_deref_mut() } else { None };
            if self.passes(*schema, instance, path, marks) {
                let Some(first) = first else {
                    first = Some(i);
                    continue;
                };
                return sink
                    .fail(path, || format!("value matches both oneOf[{first}] and oneOf[{i}], but must match exactly one"));
            }
        }
        first.is_some() || sink.fail(path, || self.no_match("oneOf", schemas, instance, path))
    }

    /// Explains a failed `anyOf` / `oneOf` by what each branch found wrong, so a model can pick one.
    fn no_match(&self, keyword: &str, schemas: &[NodeId], instance: &Value, path: &Path<'_>) -> String {
        let here = path.pointer();
        let mut reasons = Vec::with_capacity(schemas.len());
        for (i, schema) in schemas.iter().enumerate() {
            let mut errors = Vec::new();
            self.node(*schema, instance, path, Sink::collect(&mut errors), None);
            let details: Vec<String> = errors
                .iter()
                .map(|error| match error.instance_path == here {
                    true => error.message.clone(),
                    false => error.to_string(),
                })
                .collect();
            reasons.push(format!("{keyword}[{i}]: {}", details.join(", ")));
        }
        format!("value does not match any schema in {keyword} ({})", reasons.join("; "))
    }
}

fn contains_bounds(count: u64, min: u64, max: Option<u64>, path: &Path<'_>, sink: &mut Sink<'_>) -> bool {
    const MATCHING: (&str, &str) = ("item that matches", "items that match");
    if count < min {
        return sink.fail(path, || match min {
            1 => "array contains no item that matches the \"contains\" schema".into(),
            _ => format!(
                "array contains {} the \"contains\" schema, fewer than minContains {min}",
                plural(count, MATCHING.0, MATCHING.1)
            ),
        });
    }
    match max {
        Some(max) if count > max => sink.fail(path, || {
            format!(
                "array contains {} the \"contains\" schema, more than maxContains {max}",
                plural(count, MATCHING.0, MATCHING.1)
            )
        }),
        _ => true,
    }
}

fn merge(into: &mut [bool], from: &[bool]) {
    for (into, from) in into.iter_mut().zip(from) {
        *into |= *from;
    }
}

fn mark(marks: &mut Option<&mut Marks>, index: usize) {
    if let Some(flag) = marks.as_deref_mut().and_then(|marks| marks.get_mut(index)) {
        *flag = true;
    }
}

/// Whether entry `index` was not yet evaluated; marks it evaluated either way.
fn take_unmarked(marks: &mut Option<&mut Marks>, index: usize) -> bool {
    match marks.as_deref_mut().and_then(|marks| marks.get_mut(index)) {
        Some(flag) => !std::mem::replace(flag, true),
        None => true,
    }
}

/// `additionalProperties: false` rejected `key`; name the allowed ones so the caller can fix it.
fn unexpected_property(key: &str, properties: &Properties) -> String {
    if properties.named.is_empty() {
        return format!("unexpected property {}", quote(key));
    }
    let allowed: Vec<String> = properties.named.iter().map(|(name, _)| quote(name)).collect();
    format!("unexpected property {} (allowed: {})", quote(key), allowed.join(", "))
}
