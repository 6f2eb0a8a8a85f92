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

/// Orders the integer `x` (a u64 or an i64) against the float `y`, exactly. Through `y`'s whole
/// part as an i64 or u64, never as an i128: f64-i128 casts and i128 division bring
/// compiler_builtins' 128-bit routines into the browser bundle (0.9 KB raw).
fn compare_int_float(x: i128, y: f64) -> Ordering {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if y.is_nan() || y >= 2.0 * TWO_63 {
        return Ordering::Less;
    }
    if y < -TWO_63 {
        return Ordering::Greater;
    }
    let whole = y.trunc();
    let whole_int = if whole < 0.0 { i128::from(whole as i64) } else { i128::from(whole as u64) };
    // On a tie of the whole parts, the fraction decides (`trunc` rounds toward zero).
    x.cmp(&whole_int).then(whole.partial_cmp(&y).unwrap_or(Ordering::Equal))
}

/// Orders two numbers by value; exact for integers up to u64, f64 precision otherwise.
pub(super) fn compare(a: &Number, b: &Number) -> Ordering {
    match (num(a), num(b)) {
        (Num::Int(x), Num::Int(y)) => x.cmp(&y),
        (Num::Float(x), Num::Float(y)) => x.total_cmp(&y),
        (Num::Int(x), Num::Float(y)) => compare_int_float(x, y),
        (Num::Float(x), Num::Int(y)) => compare_int_float(y, x).reverse(),
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
        // Each is a u64 or an i64, so its magnitude fits a u64: a 64-bit remainder, not i128's.
        let (x, d) = (x.unsigned_abs() as u64, d.unsigned_abs() as u64);
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
        // The quotient overflowed (1e308 / 0.5): only an exact answer will do.
        d != 0.0 && exact_multiple(x, d)
    }
}

/// Whether the finite, non-zero `x` is an exact multiple of `d`, by their binary forms: with
/// `x = m * 2^e` and `d = k * 2^f`, `m` and `k` odd, that is `k` dividing `m` and `e >= f`.
/// (Not `x % d`: f64's remainder brings libm's fmod and its 128-bit division into the browser
/// bundle.)
fn exact_multiple(x: f64, d: f64) -> bool {
    let (m, e) = odd_form(x);
    let (k, f) = odd_form(d);
    m % k == 0 && e >= f
}

/// A non-zero finite `x` as `m * 2^e` with `m` odd (the sign dropped).
fn odd_form(x: f64) -> (u64, i32) {
    let bits = x.abs().to_bits();
    let exponent = (bits >> 52) as i32;
    let fraction = bits & ((1 << 52) - 1);
    // Subnormals have no implicit leading 1, and the exponent of the smallest normals.
    let (mantissa, exponent) = match exponent {
        0 => (fraction, -1074),
        _ => (fraction | 1 << 52, exponent - 1075),
    };
    let zeros = mantissa.trailing_zeros();
    (mantissa >> zeros, exponent + zeros as i32)
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
    fn integers_compare_exactly_with_floats_at_every_edge_of_their_range() {
        let cases = [
            (json!(-3), json!(-2.5), Ordering::Less),
            (json!(-2), json!(-2.5), Ordering::Greater),
            (json!(-2), json!(-2.0), Ordering::Equal),
            (json!(0), json!(-0.0), Ordering::Equal),
            (json!(2), json!(2.5), Ordering::Less),
            // 2^64 as a float is above every u64, even the one it rounds to as an f64.
            (json!(u64::MAX), json!(18446744073709551616.0), Ordering::Less),
            (json!(u64::MAX), json!(1e300), Ordering::Less),
            (json!(i64::MIN), json!(-9223372036854775808.0), Ordering::Equal),
            (json!(i64::MIN), json!(-1e19), Ordering::Greater),
            (json!(i64::MIN), json!(-1e300), Ordering::Greater),
        ];
        for (int, float, order) in cases {
            assert_eq!(compare(&n(int.clone()), &n(float.clone())), order, "{int} against {float}");
            assert_eq!(compare(&n(float.clone()), &n(int.clone())), order.reverse(), "{float} against {int}");
        }
    }

    #[test]
    fn integers_and_multiples() {
        assert!(is_integer(&n(json!(1.0))));
        assert!(!is_integer(&n(json!(1.5))));
        assert!(is_multiple_of(&n(json!(0.0075)), &n(json!(0.0001))));
        assert!(!is_multiple_of(&n(json!(0.00751)), &n(json!(0.0001))));
        assert!(is_multiple_of(&n(json!(1e308)), &n(json!(0.5))));
        assert!(!is_multiple_of(&n(json!(1e308)), &n(json!(0.123456789))));
        assert!(is_multiple_of(&n(json!(1e308)), &n(json!(1e-300))) == (1e308 % 1e-300 == 0.0));
        assert!(is_multiple_of(&n(json!(-1.5e300)), &n(json!(1.5e-10))) == (-1.5e300 % 1.5e-10 == 0.0));
        assert!(!is_multiple_of(&n(json!(7)), &n(json!(2))));
        assert!(is_multiple_of(&n(json!(-9)), &n(json!(3))));
        assert!(is_multiple_of(&n(json!(i64::MIN)), &n(json!(2))));
        assert!(is_multiple_of(&n(json!(u64::MAX)), &n(json!(u64::MAX))));
        assert!(!is_multiple_of(&n(json!(u64::MAX)), &n(json!(2))));
    }

    #[test]
    fn exact_multiples_agree_with_the_float_remainder() {
        let values = [1e308, 1.5e300, 3.0, 0.5, 0.1, 0.123456789, 7.0 * 2f64.powi(600), f64::from_bits(16), 5e-324, f64::MAX];
        for x in values {
            for d in values {
                assert_eq!(exact_multiple(x, d), x % d == 0.0, "{x} multiple of {d}");
                assert_eq!(exact_multiple(-x, d), x % d == 0.0, "-{x} multiple of {d}");
            }
        }
    }

    #[test]
    fn shows_values_briefly() {
        assert_eq!(show(&json!("a")), "\"a\"");
        assert!(show(&json!("x".repeat(200))).ends_with("..."));
        assert_eq!(type_name(&json!(2.0)), "integer");
    }
}
