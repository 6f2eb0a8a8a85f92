//! Random identifiers. Randomness comes from `getrandom`: Web Crypto on wasm32 (browsers, and
//! Node from 19 on), the OS natively.

/// A random (version 4) UUID, e.g. `0b5c7c1e-8f0a-4d8e-9a51-3c2f1e4b6a7d`.
pub fn random_uuid() -> String {
    let mut b = [0u8; 16];
    if getrandom::fill(&mut b).is_err() {
        // No entropy source: uniqueness within the process is all the ids need.
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        b[..8].copy_from_slice(&NEXT.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn uuids_are_well_formed_and_distinct() {
        let (a, b) = (super::random_uuid(), super::random_uuid());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(a.chars().all(|c| c == '-' || c.is_ascii_hexdigit()));
        // Every machine these tests run on has an entropy source (Web Crypto under wasm32): the
        // fallback's counter would leave the last bytes zero.
        assert_ne!(&a[24..], "000000000000", "{a}");
    }
}
