//! JSON value semantics that JSON Schema defines differently from `serde_json`'s `==`: numbers are
//! compared by mathematical value (`1 == 1.0`), and an integer is any number with a zero fraction.

use std::cmp::Ordering;

use serde_json::{Number, Value};

/// A number as exactly as we can hold it: integers exactly, everything else as f64.
#[derive(Clone, Copy)]
enum Num {
    Int(i128),
    Float(f64),
}

fn num(n: &Number) -> Num {
    if let Some(u) = n.as_u64() {
        Num::Int(i128::from(u))
    } else if let Some(i) = n.as_i64() {
        Num::Int(i128::from(i))
    } else {
        // Without serde_json's arbitrary_precision every other number is a finite f64.
        Num::Float(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// An f64 with a zero fraction that fits an i128, so it compares exactly with integers.
fn float_as_int(f: f64) -> Option<i128> {
    const LIMIT: f64 = 1.7e38; // a little under 2^127
    (f.fract() == 0.0 && f.abs() < LIMIT).then_some(f as i128)
}

/// Orders two numbers by value; exact for integers up to u64, f64 precision otherwise.
pub(super) fn compare(a: &Number, b: &Number) -> Ordering {
    match (num(a), num(b)) {
        (Num::Int(x), Num::Int(y)) => x.cmp(&y),
        (Num::Float(x), Num::Float(y)) => x.total_cmp(&y),
        (Num::Int(x), Num::Float(y)) => match float_as_int(y) {
            Some(y) => x.cmp(&y),
            None => (x as f64).total_cmp(&y),
        },
        (Num::Float(x), Num::Int(y)) => match float_as_int(x) {
            Some(x) => x.cmp(&y),
            None => x.total_cmp(&(y as f64)),
        },
    }
}

/// Whether `n` has a zero fraction (`1.0` is an integer in JSON Schema).
pub(super) fn is_integer(n: &Number) -> bool {
    match num(n) {
        Num::Int(_) => true,
        Num::Float(f) => f.is_finite() && f.fract() == 0.0,
    }
}

/// Whether `n` is a multiple of `divisor` (which the compiler checked is positive).
pub(super) fn is_multiple_of(n: &Number, divisor: &Number) -> bool {
    if let (Num::Int(x), Num::Int(d)) = (num(n), num(divisor)) {
        return d != 0 && x % d == 0;
    }
    let (Some(x), Some(d)) = (n.as_f64(), divisor.as_f64()) else {
        return false;
    };
    let quotient = x / d;
    if quotient.is_finite() {
        // Decimal divisors such as 0.01 are inexact in binary, so 0.0075 / 0.0001 lands a hair
        // off 75; accept a quotient within a few ulps of a whole number.
        (quotient - quotient.round()).abs() <= quotient.abs().max(1.0) * 4.0 * f64::EPSILON
    } else {
        // The quotient overflowed (1e308 / 0.5); the remainder is exact in that case.
        x % d == 0.0
    }
}

/// Equality as JSON Schema defines it for `const`, `enum` and `uniqueItems`.
pub(super) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Ordering::Equal,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(key, x)| y.get(key).is_some_and(|y| equal(x, y)))
        }
        // Spelled out rather than `a == b`, whose copy of `Value`'s equality (maps and numbers
        // included) in this crate would cost the browser bundle.
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        _ => false,
    }
}

/// The JSON Schema type name of a value, `integer` for numbers with a zero fraction.
pub(super) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if is_integer(n) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A value as compact JSON for an error message, cut short so one huge value cannot flood it.
pub(super) fn show(value: &Value) -> String {
    const MAX: usize = 80;
    let text = crate::json_text::to_string(value);
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;

    fn n(value: Value) -> Number {
        match value {
            Value::Number(n) => n,
            other => panic!("not a number: {other}"),
        }
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(equal(&json!(1), &json!(1.0)));
        assert!(equal(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!equal(&json!(0), &json!(false)));
        assert_eq!(compare(&n(json!(u64::MAX)), &n(json!(-1))), Ordering::Greater);
        assert_eq!(compare(&n(json!(3)), &n(json!(2.5))), Ordering::Greater);
        assert_eq!(compare(&n(json!(9007199254740993_u64)), &n(json!(9007199254740992.0))), Ordering::Greater);
    }

    #[test]
    fn integers_and_multiples() {
        assert!(is_integer(&n(json!(1.0))));
        assert!(!is_integer(&n(json!(1.5))));
        assert!(is_multiple_of(&n(json!(0.0075)), &n(json!(0.0001))));
        assert!(!is_multiple_of(&n(json!(0.00751)), &n(json!(0.0001))));
        assert!(is_multiple_of(&n(json!(1e308)), &n(json!(0.5))));
        assert!(!is_multiple_of(&n(json!(1e308)), &n(json!(0.123456789))));
        assert!(!is_multiple_of(&n(json!(7)), &n(json!(2))));
    }

    #[test]
    fn shows_values_briefly() {
        assert_eq!(show(&json!("a")), "\"a\"");
        assert!(show(&json!("x".repeat(200))).ends_with("..."));
        assert_eq!(type_name(&json!(2.0)), "integer");
    }
}
