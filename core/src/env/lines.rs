//! Lines of a text, found a vector at a time: where `read_file` starts reading, in every
//! environment that holds its files' text.

/// The byte offset of line `n` (from 0) of `text`: just past its `n`th newline, or the end.
pub fn line_start(text: &str, n: usize) -> usize {
    let Some(mut newlines) = n.checked_sub(1) else { return 0 };
    // Whole blocks are counted a vector at a time and skipped; only the block that holds the
    // newline is searched newline by newline. A read of a whole file (the usual read) counts it.
    let mut at = 0;
    for block in text.as_bytes().chunks(4096) {
        let count = memchr::memchr_iter(b'\n', block).count();
        if newlines < count {
            return at + memchr::memchr_iter(b'\n', block).nth(newlines).map_or(block.len(), |end| end + 1);
        }
        newlines -= count;
        at += block.len();
    }
    text.len()
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn line_starts_follow_newlines() {
        let text = "a\nbb\n\nccc";
        let starts: Vec<usize> = (0..6).map(|n| line_start(text, n)).collect();
        assert_eq!(starts, [0, 2, 5, 6, 9, 9]);
        // Lines of every length across the 4 KB blocks that are counted whole.
        let long: String = (0..3000).map(|n| format!("{}\n", "x".repeat(n % 17))).collect();
        let mut expected = vec![0];
        expected.extend(long.match_indices('\n').map(|(at, _)| at + 1));
        for n in 0..=3001 {
            assert_eq!(line_start(&long, n), expected.get(n).copied().unwrap_or(long.len()), "line {n}");
        }
    }
}
