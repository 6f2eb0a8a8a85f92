//! Decimal text as an `f64`, exactly as `str::parse::<f64>` reads it (the same accepted forms, the
//! same correctly rounded value). The standard parser carries tables of powers of five that weigh
//! about 14 KB gzipped in the browser bundle (DESIGN.md: the bundle is a budget), and its one use
//! here is a header's `Retry-After`: a short number, read once per failed call. So this reads it
//! slowly, with schoolbook arithmetic on big integers, and without a table.

use std::cmp::Ordering;

/// `str::parse::<f64>`: an optional sign, then `inf`, `infinity` or `nan` in any case, or digits
/// with an optional `.` (one digit at least) and an optional exponent (`e`, a sign, digits).
pub fn parse_f64(text: &str) -> Option<f64> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = match rest.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => f64::INFINITY,
        "nan" => f64::NAN,
        _ => {
            let (digits, exponent) = split(rest)?;
            round(&digits, exponent)
        }
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// The significant digits (no leading zeros) and the power of ten they are scaled by.
fn split(text: &str) -> Option<(Vec<u8>, i64)> {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.len() + fraction.len() == 0 || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    let mut scale = match exponent {
        None => 0,
        Some(e) => {
            let unsigned = e.strip_prefix(['+', '-']).unwrap_or(e);
            if unsigned.is_empty() || !all_digits(unsigned) {
                return None;
            }
            // Far past any f64: saturating keeps "1e99999999999999999999" at infinity.
            let value = unsigned.bytes().fold(0i64, |n, b| (n * 10 + i64::from(b - b'0')).min(1 << 40));
            if e.starts_with('-') {
                -value
            } else {
                value
            }
        }
    };
    scale -= fraction.len() as i64;
    let digits: Vec<u8> = whole.bytes().chain(fraction.bytes()).skip_while(|&b| b == b'0').map(|b| b - b'0').collect();
    Some((digits, scale))
}

/// `digits × 10^scale`, rounded to the nearest f64 (ties to even).
fn round(digits: &[u8], scale: i64) -> f64 {
    // The value lies in [10^(len-1+scale), 10^(len+scale)).
    let magnitude = digits.len() as i64 + scale;
    if digits.is_empty() || magnitude < -324 {
        return 0.0; // below half the smallest subnormal (2.47e-324)
    }
    if magnitude > 310 {
        return f64::INFINITY;
    }
    // The value is numerator / denominator; scaled by powers of two into [1, 2), it is that × 2^exp.
    let mut numerator = Big(vec![0]);
    for &digit in digits {
        numerator.mul_add(10, u32::from(digit));
    }
    let mut denominator = Big(vec![1]);
    let scaled = if scale > 0 { &mut numerator } else { &mut denominator };
    for _ in 0..scale.unsigned_abs() {
        scaled.mul_add(10, 0);
    }
    let mut exp = 0i64;
    while numerator.cmp(&denominator) == Ordering::Less {
        numerator.mul_add(2, 0);
        exp -= 1;
    }
    loop {
        let mut doubled = denominator.clone();
        doubled.mul_add(2, 0);
        if numerator.cmp(&doubled) == Ordering::Less {
            break;
        }
        denominator = doubled;
        exp += 1;
    }
    // 53 significant bits for a normal number, fewer for a subnormal one (the last is 2^-1074).
    let bits = (exp + 1075).min(53);
    if bits <= 0 {
        // Below 2^-1074: only [2^-1075, 2^-1074) can round up to the smallest subnormal.
        return if bits == 0 && numerator.cmp(&denominator) == Ordering::Greater { f64::from_bits(1) } else { 0.0 };
    }
    // Long division: `bits` bits of the quotient, then the remainder decides the rounding.
    let mut quotient = 0u64;
    for _ in 0..bits {
        quotient <<= 1;
        if numerator.cmp(&denominator) != Ordering::Less {
            numerator.sub(&denominator);
            quotient |= 1;
        }
        numerator.mul_add(2, 0);
    }
    match numerator.cmp(&denominator) {
        Ordering::Greater => quotient += 1,
        Ordering::Equal => quotient += quotient & 1,
        Ordering::Less => {}
    }
    // quotient × 2^(exp - bits + 1) is exact (or overflows to infinity as it should); scaled one
    // step at a time, each step is exact too.
    let mut value = quotient as f64;
    let mut shift = exp - bits + 1;
    while shift > 0 {
        value *= 2.0;
        shift -= 1;
    }
    while shift < 0 {
        value *= 0.5;
        shift += 1;
    }
    value
}

/// An unsigned integer, 32 bits a limb, least significant first.
#[derive(Clone)]
struct Big(Vec<u32>);

impl Big {
    /// `self = self × factor + carry`.
    fn mul_add(&mut self, factor: u32, mut carry: u32) {
        for limb in &mut self.0 {
            let product = u64::from(*limb) * u64::from(factor) + u64::from(carry);
            *limb = product as u32;
            carry = (product >> 32) as u32;
        }
        if carry > 0 {
            self.0.push(carry);
        }
    }

    /// `self -= other`, where `other <= self`.
    fn sub(&mut self, other: &Big) {
        let mut borrow = false;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let (value, under) = limb.overflowing_sub(other.0.get(i).copied().unwrap_or(0));
            let (value, under_again) = value.overflowing_sub(u32::from(borrow));
            *limb = value;
            borrow = under || under_again;
        }
    }

    fn cmp(&self, other: &Big) -> Ordering {
        let len = self.0.len().max(other.0.len());
        let limb = |big: &Big, i: usize| big.0.get(i).copied().unwrap_or(0);
        (0..len).rev().map(|i| limb(self, i).cmp(&limb(other, i))).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::parse_f64;

    /// The standard parser is the oracle: the same result, bit for bit, or both refuse.
    fn same(text: &str) {
        let ours = parse_f64(text).map(f64::to_bits);
        let std = text.parse::<f64>().ok().map(f64::to_bits);
        let nan = |bits: Option<u64>| bits.map(|b| f64::from_bits(b).is_nan());
        if nan(std) == Some(true) {
            assert_eq!(nan(ours), Some(true), "{text:?}");
        } else {
            assert_eq!(ours, std, "{text:?}: {:?} vs {:?}", ours.map(f64::from_bits), std.map(f64::from_bits));
        }
    }

    #[test]
    fn forms_are_accepted_and_refused_as_the_standard_parser_does() {
        for text in [
            "",
            "+",
            "-",
            ".",
            "e5",
            "1e",
            "1e+",
            "1e-",
            "1.5e3",
            "1E3",
            "1e+3",
            "1e-3",
            "+.5",
            "-.5",
            "5.",
            "-0",
            "+0",
            "0",
            "00012",
            "0.000",
            "1_000",
            "0x10",
            " 1",
            "1 ",
            "1..2",
            "1.2.3",
            "--1",
            "+-1",
            "inf",
            "-inf",
            "+Infinity",
            "INFINITY",
            "infinit",
            "nan",
            "NaN",
            "-nan",
            "+nan",
            "nana",
            "1e5e5",
            "1.e5",
            ".e5",
            "١",
        ] {
            same(text);
        }
    }

    #[test]
    fn values_round_as_the_standard_parser_rounds() {
        for text in [
            "7", "1500", "1.5", "0.1", "0.3", "2.5", "123456789012345678901234567890", "9007199254740993", "9007199254740995",
            "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1e308", "1e309", "2e308",
            "2.2250738585072011e-308", "2.2250738585072014e-308", "4.9406564584124654e-324", "2.4703282292062327e-324",
            "2.4703282292062328e-324", "2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324",
            "1e-324", "3e-324", "1e-400", "1e400", "0.0000000000000000000000000000001", "1e99999999999999999999",
            "1e-99999999999999999999", "0e999", "123.456e-7", "5e-324", "4.5e-16",
            // Exact halfway points: ties go to the even neighbour.
            "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000033306690738754696212708950042724609375",
            "1.000000000000000111022302462515654042363166809082031250001",
        ] {
            same(text);
        }
    }

    #[test]
    fn many_generated_numbers_agree() {
        // A fixed pseudo-random walk over digit counts, points and exponents.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..1 + next(25) {
                text.push(char::from(b'0' + next(10) as u8));
            }
            if next(2) == 0 {
                text.insert(next(text.len() as u64 + 1) as usize, '.');
            }
            if next(2) == 0 {
                let exponent = next(700) as i64 - 350;
                text.push_str(&format!("e{exponent}"));
            }
            same(&text);
            // And the numbers f64 holds, written shortest and written long.
            let number = f64::from_bits(next(u64::MAX));
            if number.is_finite() {
                same(&format!("{number:e}"));
                same(&format!("{number:.25e}"));
            }
        }
    }
}
