//! The bearer token every request to `openagent serve` must carry. The server listens on
//! 127.0.0.1 only, but any local process (or a web page, through the browser) can reach that:
//! the token is what makes the API the user's alone.

use std::io::{self, Read};

/// A token from the system's randomness: 32 bytes, as 64 hex digits.
pub fn generate_token() -> io::Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Whether an `Authorization` header value carries `token` as a bearer token. The comparison
/// takes as long whichever byte differs, so timing does not give the token away.
pub fn authorized(header: Option<&str>, token: &str) -> bool {
    let Some((scheme, given)) = header.and_then(|value| value.trim().split_once(' ')) else { return false };
    scheme.eq_ignore_ascii_case("bearer") && constant_time_eq(given.trim().as_bytes(), token.as_bytes())
}

/// Compares every byte whichever differs. Only a length mismatch returns early: a token's length
/// is no secret (a generated one always has 64 digits).
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_token_is_64_hex_digits_and_new_each_time() {
        let (a, b) = (generate_token().unwrap(), generate_token().unwrap());
        assert!(a.len() == 64 && a.chars().all(|c| c.is_ascii_hexdigit()), "{a}");
        assert_ne!(a, b);
    }

    #[test]
    fn only_the_exact_token_as_a_bearer_passes() {
        let token = "s3cret";
        assert!(authorized(Some("Bearer s3cret"), token));
        assert!(authorized(Some("bearer  s3cret "), token), "the scheme is case-insensitive");
        for wrong in [None, Some(""), Some("s3cret"), Some("Basic s3cret"), Some("Bearer s3cre"), Some("Bearer s3cretX")] {
            assert!(!authorized(wrong, token), "{wrong:?}");
        }
        assert!(!authorized(Some("Bearer "), ""), "an empty token never passes");
    }
}
