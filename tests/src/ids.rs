//! Ids in each provider's style (`msg_01…`, `resp_…`, `call_…`, `chatcmpl-…`), drawn from a
//! seeded generator so that a script plays the same way every run.

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const HEX: &[u8] = b"0123456789abcdef";

#[derive(Debug, Clone)]
pub struct Ids {
    state: u64,
}

impl Ids {
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// `len` characters of base62: Anthropic and OpenAI short ids.
    pub fn base62(&mut self, len: usize) -> String {
        self.draw(BASE62, len)
    }

    /// `len` lowercase hex digits: OpenAI Responses item ids.
    pub fn hex(&mut self, len: usize) -> String {
        self.draw(HEX, len)
    }

    /// `len` characters of base64 (a multiple of 4 reads as valid base64): signatures.
    pub fn base64(&mut self, len: usize) -> String {
        self.draw(BASE64, len)
    }

    fn draw(&mut self, alphabet: &[u8], len: usize) -> String {
        (0..len).map(|_| char::from(alphabet[(self.next() % alphabet.len() as u64) as usize])).collect()
    }

    /// splitmix64: tiny, and plenty for ids that only need to look random and not repeat.
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
