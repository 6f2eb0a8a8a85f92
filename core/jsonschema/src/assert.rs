//! The assertions: keywords that check the instance itself. Each applies to one JSON type and
//! passes any other (so `maximum` says nothing about a string); `type` is what restricts types.

use std::cmp::Ordering;

use serde_json::Value;

use super::json::{self, show};
use super::json_text::quote;
use super::keywords::Assertion;
use super::report::{plural, Path, Sink};

/// Checks one assertion, reporting to `sink` when it fails.
pub(super) fn check(assertion: &Assertion, instance: &Value, path: &Path<'_>, sink: &mut Sink<'_>) -> bool {
    use Assertion as A;
    match (assertion, instance) {
        (A::False, _) => sink.fail(path, || "no value is allowed here (the schema is false)".into()),
        (A::Type(types), _) => {
            types.allows(instance) || sink.fail(path, || format!("expected {types}, found {}", json::type_name(instance)))
        }
        (A::Const(expected), _) => {
            json::equal(expected, instance) || sink.fail(path, || format!("value must be {}", show(expected)))
        }
        (A::Enum(options), _) => {
            options.iter().any(|option| json::equal(option, instance))
                || sink.fail(path, || {
                    // A long list would drown the message; the first few show the shape.
                    const SHOWN: usize = 10;
                    let mut shown: Vec<String> = options.iter().take(SHOWN).map(show).collect();
                    if options.len() > SHOWN {
                        shown.push(format!("... ({} more)", options.len() - SHOWN));
                    }
                    format!("value must be one of {}, found {}", shown.join(", "), show(instance))
                })
        }
        (A::Minimum(limit), Value::Number(n)) => {
            json::compare(n, limit) != Ordering::Less || sink.fail(path, || format!("value {n} is less than the minimum {limit}"))
        }
        (A::ExclusiveMinimum(limit), Value::Number(n)) => {
            json::compare(n, limit) == Ordering::Greater || sink.fail(path, || format!("value {n} must be greater than {limit}"))
        }
        (A::Maximum(limit), Value::Number(n)) => {
            json::compare(n, limit) != Ordering::Greater
                || sink.fail(path, || format!("value {n} is greater than the maximum {limit}"))
        }
        (A::ExclusiveMaximum(limit), Value::Number(n)) => {
            json::compare(n, limit) == Ordering::Less || sink.fail(path, || format!("value {n} must be less than {limit}"))
        }
        (A::MultipleOf(divisor), Value::Number(n)) => {
            json::is_multiple_of(n, divisor) || sink.fail(path, || format!("value {n} is not a multiple of {divisor}"))
        }
        // A string of n bytes has at most n code points, so most checks never count them.
        (A::MinLength(min), Value::String(s)) => {
            let long_enough = s.len() as u64 >= min.saturating_mul(4) || s.chars().count() as u64 >= *min;
            long_enough
                || sink.fail(path, || {
                    format!("string is {} characters long, shorter than the minimum length {min}", s.chars().count())
                })
        }
        (A::MaxLength(max), Value::String(s)) => {
            let short_enough = s.len() as u64 <= *max || s.chars().count() as u64 <= *max;
            short_enough
                || sink.fail(path, || {
                    format!("string is {} characters long, longer than the maximum length {max}", s.chars().count())
                })
        }
        (A::Pattern(pattern), Value::String(s)) => {
            pattern.regex.is_match(s)
                || sink.fail(path, || format!("string {} does not match the pattern {}", show(instance), quote(&pattern.source)))
        }
        (A::MinItems(min), Value::Array(items)) => {
            items.len() as u64 >= *min
                || sink.fail(path, || {
                    format!("array has {}, fewer than the minimum {min}", plural(items.len() as u64, "item", "items"))
                })
        }
        (A::MaxItems(max), Value::Array(items)) => {
            items.len() as u64 <= *max
                || sink.fail(path, || {
                    format!("array has {}, more than the maximum {max}", plural(items.len() as u64, "item", "items"))
                })
        }
        (A::UniqueItems, Value::Array(items)) => match first_duplicate(items) {
            None => true,
            Some((i, j)) => sink.fail(path, || format!("array items {i} and {j} are equal, but items must be unique")),
        },
        (A::MinProperties(min), Value::Object(object)) => {
            object.len() as u64 >= *min
                || sink.fail(path, || {
                    format!("object has {}, fewer than the minimum {min}", plural(object.len() as u64, "property", "properties"))
                })
        }
        (A::MaxProperties(max), Value::Object(object)) => {
            object.len() as u64 <= *max
                || sink.fail(path, || {
                    format!("object has {}, more than the maximum {max}", plural(object.len() as u64, "property", "properties"))
                })
        }
        (A::Required(names), Value::Object(object)) => {
            let missing = names.iter().filter(|name| !object.contains_key(name.as_str()));
            sink.every(missing, |sink, name| sink.fail(path, || format!("missing required property {}", quote(name))))
        }
        (A::DependentRequired(dependencies), Value::Object(object)) => {
            let missing = dependencies
                .iter()
                .filter(|(trigger, _)| object.contains_key(trigger.as_str()))
                .flat_map(|(trigger, names)| names.iter().map(move |name| (trigger, name)))
                .filter(|(_, name)| !object.contains_key(name.as_str()));
            sink.every(missing, |sink, (trigger, name)| {
                sink.fail(path, || {
                    format!("missing property {}, which is required when {} is present", quote(name), quote(trigger))
                })
            })
        }
        // The assertion is about another type than the instance's.
        _ => true,
    }
}

/// The first pair of equal items. Quadratic, which is fine for the short arrays of tool arguments.
fn first_duplicate(items: &[Value]) -> Option<(usize, usize)> {
    items.iter().enumerate().find_map(|(i, a)| items[i + 1..].iter().position(|b| json::equal(a, b)).map(|j| (i, i + 1 + j)))
}
