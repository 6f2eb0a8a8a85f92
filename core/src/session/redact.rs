//! Secret values the host knows (its provider key, tokens, passwords of its variables), replaced
//! in every tool output before anything records or sends it. A command that prints a key (`cat
//! .env`, a verbose client) would otherwise put it in the events, the store's history and the
//! next model request; one replacement where outputs enter the session covers them all.

/// What a secret becomes.
pub const REDACTED: &str = "[REDACTED]";

/// Values shorter than this are not replaced: a short password would match ordinary text
/// everywhere, and tell the model where it is by the holes.
const MIN_LEN: usize = 8;

#[derive(Debug, Default)]
pub(crate) struct Redactions(Vec<String>);

impl Redactions {
    pub(crate) fn new(values: Vec<String>) -> Self {
        // Longest first, so a secret that contains another is replaced whole. By insertion: a
        // host knows a handful of secrets, and a sort would cost the browser bundle 1.6 KB.
        let mut sorted: Vec<String> = Vec::new();
        for value in values.into_iter().filter(|value| value.len() >= MIN_LEN) {
            let at = sorted.iter().position(|known| known.len() < value.len()).unwrap_or(sorted.len());
            sorted.insert(at, value);
        }
        Self(sorted)
    }

    /// `text` with every known secret replaced; unchanged, not copied, when it holds none.
    pub(crate) fn apply(&self, mut text: String) -> String {
        for secret in &self.0 {
            if text.contains(secret.as_str()) {
                text = text.replace(secret.as_str(), REDACTED);
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn replaces_every_known_value_the_longest_first_and_leaves_short_ones() {
        let redactions = Redactions::new(vec!["sk-live-123456".into(), "sk-live-123456-extra".into(), "pw".into()]);
        let text = "a=sk-live-123456-extra b=sk-live-123456 pw=pw";
        assert_eq!(redactions.apply(text.into()), "a=[REDACTED] b=[REDACTED] pw=pw");
        assert_eq!(Redactions::default().apply(text.into()), text);
    }
}
