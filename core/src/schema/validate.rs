//! Evaluation of compiled nodes against an instance.
//!
//! Two modes share one walk: collecting (every violation goes into a list) and checking (stop at the
//! first failure, build no message). Messages and instance paths are built only when a violation is
//! reported, so a valid instance is validated without allocating, unless a schema uses
//! `unevaluated*` or `propertyNames`.
//!
//! `unevaluatedProperties` / `unevaluatedItems` need to know what the rest of their schema
//! evaluated, across `allOf`, `$ref`, the valid branches of `anyOf` / `oneOf`, `if` / `then` /
//! `else` and `dependentSchemas`. A node that has them keeps `Marks`: one flag per property (by its
//! position in the object) or item. In-place applicators pass the marks down; a branch whose result
//! may be discarded (`anyOf`, `oneOf`, `if`) marks a scratch copy that is merged only if it passed.

use serde_json::Value;

use super::assert;
use super::json::quote;
use super::keywords::{Keyword, Node, NodeId, Properties};
use super::uri::escape_token;
use super::ValidationError;

/// Which properties or items of the current instance have been evaluated, by position.
type Marks = Vec<bool>;

/// Where the instance being checked sits, as a chain on the stack; rendered only for messages.
#[derive(Clone, Copy)]
pub(super) enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    /// The JSON Pointer of this location, `""` for the root.
    fn pointer(&self) -> String {
        match self {
            Path::Root => String::new(),
            Path::Key(parent, key) => format!("{}/{}", parent.pointer(), escape_token(key)),
            Path::Index(parent, index) => format!("{}/{index}", parent.pointer()),
        }
    }
}

/// Where violations go: a list when collecting, nowhere when only checking.
pub(super) struct Sink<'a>(Option<&'a mut Vec<ValidationError>>);

impl<'a> Sink<'a> {
    pub fn collect(errors: &'a mut Vec<ValidationError>) -> Self {
        Self(Some(errors))
    }

    pub fn check() -> Self {
        Self(None)
    }

    pub fn collecting(&self) -> bool {
        self.0.is_some()
    }

    fn reborrow(&mut self) -> Sink<'_> {
        Sink(self.0.as_deref_mut())
    }

    /// Records a violation (building its message only when collecting) and returns `false`.
    pub fn fail(&mut self, path: &Path<'_>, message: impl FnOnce() -> String) -> bool {
        if let Some(errors) = &mut self.0 {
            errors.push(ValidationError { instance_path: path.pointer(), message: message() });
        }
        false
    }
}

/// Walks the node arena of one compiled schema.
pub(super) struct Evaluator<'s> {
    pub nodes: &'s [Node],
}

impl Evaluator<'_> {
    /// Evaluates node `id` against `instance`, marking what it evaluated into `marks` if given.
    pub fn node(
        &self,
        id: NodeId,
        instance: &Value,
        path: &Path<'_>,
        mut sink: Sink<'_>,
        marks: Option<&mut Marks>,
    ) -> bool {
        let node = &self.nodes[id];
        let tracks = match instance {
            Value::Object(object) if node.tracks_properties => Some(object.len()),
            Value::Array(items) if node.tracks_items => Some(items.len()),
            _ => None,
        };
        let Some(len) = tracks else {
            return self.keywords(node, instance, path, &mut sink, marks);
        };
        // Sibling schemas' annotations are not visible here, so start from a clean slate, and
        // hand what this node evaluated up to the caller.
        let mut own = vec![false; len];
        let valid = self.keywords(node, instance, path, &mut sink, Some(&mut own));
        if let Some(marks) = marks {
            merge(marks, &own);
        }
        valid
    }

    fn keywords(
        &self,
        node: &Node,
        instance: &Value,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        let mut valid = true;
        for keyword in &node.keywords {
            if !self.keyword(keyword, instance, path, sink, marks.as_deref_mut()) {
                valid = false;
                if !sink.collecting() {
                    return false;
                }
            }
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
        match (keyword, instance) {
            (Keyword::Assert(assertion), _) => assert::check(assertion, instance, path, sink),
            (Keyword::Items { prefix, rest }, Value::Array(items)) => {
                self.items(prefix, *rest, items, path, sink, marks)
            }
            (Keyword::Contains { schema, min, max }, Value::Array(items)) => {
                self.contains(*schema, *min, *max, items, path, sink, marks)
            }
            (Keyword::Properties(properties), Value::Object(object)) => {
                self.properties(properties, object, path, sink, marks)
            }
            (Keyword::PropertyNames(schema), Value::Object(object)) => self.property_names(*schema, object, path, sink),
            (Keyword::DependentSchemas(dependencies), Value::Object(object)) => {
                let mut valid = true;
                for (_, schema) in dependencies.iter().filter(|(name, _)| object.contains_key(name.as_str())) {
                    valid &= self.node(*schema, instance, path, sink.reborrow(), marks.as_deref_mut());
                    if !valid && !sink.collecting() {
                        return false;
                    }
                }
                valid
            }
            (Keyword::Ref(target), _) => self.node(*target, instance, path, sink.reborrow(), marks),
            (Keyword::AllOf(schemas), _) => {
                let mut valid = true;
                for schema in schemas {
                    valid &= self.node(*schema, instance, path, sink.reborrow(), marks.as_deref_mut());
                    if !valid && !sink.collecting() {
                        return false;
                    }
                }
                valid
            }
            (Keyword::AnyOf(schemas), _) => self.any_of(schemas, instance, path, sink, marks),
            (Keyword::OneOf(schemas), _) => self.one_of(schemas, instance, path, sink, marks),
            (Keyword::Not(schema), _) => {
                !self.node(*schema, instance, path, Sink::check(), None)
                    || sink.fail(path, || "value must not match the schema in \"not\"".into())
            }
            (Keyword::If { condition, then, otherwise }, _) => {
                // The condition's annotations count only if it holds, hence the scratch marks.
                let holds = self.passes(*condition, instance, path, marks.as_deref_mut());
                match if holds { then } else { otherwise } {
                    Some(branch) => self.node(*branch, instance, path, sink.reborrow(), marks),
                    None => true,
                }
            }
            (Keyword::UnevaluatedItems(schema), Value::Array(items)) => {
                let mut valid = true;
                for (i, item) in items.iter().enumerate() {
                    if take_unmarked(&mut marks, i) {
                        valid &= if self.nodes[*schema].is_false() {
                            sink.fail(path, || format!("unexpected array item {i}: no further items are allowed here"))
                        } else {
                            self.node(*schema, item, &Path::Index(path, i), sink.reborrow(), None)
                        };
                        if !valid && !sink.collecting() {
                            return false;
                        }
                    }
                }
                valid
            }
            (Keyword::UnevaluatedProperties(schema), Value::Object(object)) => {
                let mut valid = true;
                for (i, (key, value)) in object.iter().enumerate() {
                    if take_unmarked(&mut marks, i) {
                        valid &= if self.nodes[*schema].is_false() {
                            sink.fail(path, || format!("unexpected property {}", quote(key)))
                        } else {
                            self.node(*schema, value, &Path::Key(path, key), sink.reborrow(), None)
                        };
                        if !valid && !sink.collecting() {
                            return false;
                        }
                    }
                }
                valid
            }
            // An array or object keyword, and the instance is of another type.
            _ => true,
        }
    }

    /// Whether `id` accepts the instance, merging its marks only if it does.
    fn passes(&self, id: NodeId, instance: &Value, path: &Path<'_>, marks: Option<&mut Marks>) -> bool {
        match marks {
            None => self.node(id, instance, path, Sink::check(), None),
            Some(marks) => {
                let mut scratch = vec![false; marks.len()];
                let valid = self.node(id, instance, path, Sink::check(), Some(&mut scratch));
                if valid {
                    merge(marks, &scratch);
                }
                valid
            }
        }
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
        if rest.is_some_and(|rest| self.nodes[rest].is_false()) && items.len() > prefix.len() {
            return sink.fail(path, || {
                format!("array has {}, at most {} allowed", plural(items.len() as u64, "item", "items"), prefix.len())
            });
        }
        let mut valid = true;
        for (i, item) in items.iter().enumerate() {
            let Some(schema) = prefix.get(i).copied().or(rest) else {
                break;
            };
            mark(&mut marks, i);
            valid &= self.node(schema, item, &Path::Index(path, i), sink.reborrow(), None);
            if !valid && !sink.collecting() {
                return false;
            }
        }
        valid
    }

    #[allow(clippy::too_many_arguments)]
    fn contains(
        &self,
        schema: NodeId,
        min: u64,
        max: Option<u64>,
        items: &[Value],
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        let mut count = 0;
        for (i, item) in items.iter().enumerate() {
            if self.node(schema, item, &Path::Index(path, i), Sink::check(), None) {
                count += 1;
                mark(&mut marks, i);
                // Enough is known once the minimum is met, unless every match must be counted.
                if count >= min && max.is_none() && marks.is_none() {
                    return true;
                }
            }
        }
        if count < min {
            return sink.fail(path, || match min {
                1 => "array contains no item that matches the \"contains\" schema".into(),
                _ => format!(
                    "array contains {} the \"contains\" schema, fewer than minContains {min}",
                    plural(count, "item that matches", "items that match")
                ),
            });
        }
        match max {
            Some(max) if count > max => sink.fail(path, || {
                format!("array contains {count} items that match the \"contains\" schema, more than maxContains {max}")
            }),
            _ => true,
        }
    }

    fn properties(
        &self,
        properties: &Properties,
        object: &serde_json::Map<String, Value>,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        let mut valid = true;
        for (i, (key, value)) in object.iter().enumerate() {
            let here = Path::Key(path, key);
            let mut matched = false;
            if let Ok(found) = properties.named.binary_search_by(|(name, _)| name.as_str().cmp(key)) {
                matched = true;
                valid &= self.node(properties.named[found].1, value, &here, sink.reborrow(), None);
            }
            for (_, schema) in properties.patterns.iter().filter(|(pattern, _)| pattern.regex.is_match(key)) {
                matched = true;
                valid &= self.node(*schema, value, &here, sink.reborrow(), None);
            }
            if let (false, Some(additional)) = (matched, properties.additional) {
                matched = true;
                valid &= if self.nodes[additional].is_false() {
                    sink.fail(path, || unexpected_property(key, properties))
                } else {
                    self.node(additional, value, &here, sink.reborrow(), None)
                };
            }
            if matched {
                mark(&mut marks, i);
            }
            if !valid && !sink.collecting() {
                return false;
            }
        }
        valid
    }

    fn property_names(
        &self,
        schema: NodeId,
        object: &serde_json::Map<String, Value>,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
    ) -> bool {
        let mut valid = true;
        for key in object.keys() {
            // Keywords take a Value, so each name is copied into one; propertyNames is rare enough.
            let name = Value::String(key.clone());
            if self.node(schema, &name, path, Sink::check(), None) {
                continue;
            }
            valid = false;
            if !sink.collecting() {
                return false;
            }
            let mut errors = Vec::new();
            self.node(schema, &name, path, Sink::collect(&mut errors), None);
            for error in errors {
                sink.fail(path, || format!("property name {} is invalid: {}", quote(key), error.message));
            }
        }
        valid
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
            // Marks of a second match need not be kept: the keyword fails then.
            let marks = if first.is_none() { marks.as_deref_mut() } else { None };
            if self.passes(*schema, instance, path, marks) {
                match first {
                    None => first = Some(i),
                    Some(first) => {
                        return sink.fail(path, || {
                            format!("value matches both oneOf[{first}] and oneOf[{i}], but must match exactly one")
                        })
                    }
                }
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
                .map(|error| match error.instance_path.strip_prefix(here.as_str()) {
                    Some("") => error.message.clone(),
                    _ => error.to_string(),
                })
                .collect();
            reasons.push(format!("{keyword}[{i}]: {}", details.join(", ")));
        }
        format!("value does not match any schema in {keyword} ({})", reasons.join("; "))
    }
}

/// `1 item`, `2 items`.
pub(super) fn plural(count: u64, one: &str, many: &str) -> String {
    match count {
        1 => format!("1 {one}"),
        _ => format!("{count} {many}"),
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
