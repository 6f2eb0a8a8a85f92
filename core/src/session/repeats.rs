//! Calls repeated with nothing changed. Small models often make a call that succeeded again and
//! again (the same file written, the same script run) instead of answering, or one that failed
//! again and again with the same error, until loop detection fires at the spec's window of 10 and
//! then a turn limit ends the run with no answer. So, within one input: the second identical call
//! whose result is also identical has a note added to its result, saying nothing changed and what
//! to do instead; a third is not run. After a refused call that had succeeded, the next request
//! asks for an answer without tools (`tool_choice: none`), as the work is most likely done.
//!
//! A call that may change something (any tool but the read-only ones) makes the reads before it
//! stale: a file read again after a write is no repeat.
//!
//! Identity is loop detection's signature (the tool and its arguments). A result counts as
//! unchanged when its text is the same as the last one for that signature: a script run again
//! after an edit prints something else and is not a repeat.

/// How much of an earlier result the refusal quotes.
const QUOTED_CHARS: usize = 400;

/// The tools that only read: what they return changes when another call changes the files.
const READERS: [&str; 5] = ["read_file", "read_many_files", "list_dir", "grep", "glob"];

/// Added to a repeated call's result.
pub(super) const NOTE: &str = "[This exact call already ran in this task and gave this same result: nothing has \
    changed since. If the task is done, stop calling tools and reply with a short summary, or the answer. Otherwise \
    do something different.]";

/// Added to a repeated call's error.
pub(super) const FAILED_NOTE: &str = "[This exact call already failed in this task with this same error. Do not \
    send it again: read the file or change the arguments.]";

#[derive(Debug, Default)]
pub(super) struct Repeats {
    /// One entry per call made in this input (by signature).
    seen: Vec<Seen>,
    /// Where each signature's entry is in `seen` (its index + 1; 0 is an empty slot): open
    /// addressing on the signature's low bits, which are a hash already. A list searched call by
    /// call cost a long input (thousands of rounds) more than the rest of a round; a std map costs
    /// the browser bundle 2.5 KB.
    slots: Vec<u32>,
    /// How many calls that may have changed something were made: a read made before the last of
    /// them is stale (reading a file again after writing it is no repeat).
    changes: u32,
}

#[derive(Debug)]
struct Seen {
    signature: u64,
    /// Of the last result's text.
    hash: u64,
    /// How many times in a row the call gave that result.
    times: u32,
    /// `Repeats::changes` when the result was recorded.
    changes: u32,
    /// The start of that result, for the refusal: kept once it repeats (before, nothing quotes it).
    quoted: String,
    failed: bool,
    /// Made with one of the read-only tools.
    reader: bool,
}

/// What to do about a call made again.
pub(super) struct Refusal {
    pub message: String,
    /// It had succeeded: the model should answer now.
    pub answer_now: bool,
}

impl Repeats {
    /// Why the call must not run again, quoting its result: it already gave the same result twice.
    pub fn refusal(&self, signature: u64, tool: &str) -> Option<Refusal> {
        let seen = self.find(signature).ok().map(|at| &self.seen[at]).filter(|seen| self.times(seen) >= 2)?;
        let (how, next) = match seen.failed {
            false => (
                " call twice in this task, with the same result both times:\n",
                "\nDo not call it again. If the task is done, reply now with a short summary, or the answer, and no tool call.",
            ),
            true => (
                " call twice in this task, and it failed the same way both times:\n",
                "\nDo something different: read the file again, or change the arguments.",
            ),
        };
        let message = ["Not run: you already made this exact ", tool, how, &seen.quoted, next].concat();
        Some(Refusal { message, answer_now: !seen.failed })
    }

    /// Records a call's result (or error); true when it repeats the last one of the same call.
    /// A call that may have changed something (any but the read-only tools) makes the reads
    /// before it stale: reading a file again after writing it is no repeat.
    pub fn record(&mut self, signature: u64, tool: &str, output: &str, failed: bool) -> bool {
        let reader = READERS.contains(&tool);
        if !reader && !failed {
            self.changes = self.changes.wrapping_add(1);
        }
        // A command's duration (its last line) differs from run to run; the rest of its output
        // says whether anything changed.
        let stable = match output.rsplit_once('\n') {
            Some((head, last)) if last.starts_with("Duration: ") => head,
            _ => output,
        };
        let hash = fingerprint(stable);
        let first = Seen { signature, hash, times: 1, changes: self.changes, quoted: String::new(), failed, reader };
        match self.find(signature) {
            Ok(at) if self.times(&self.seen[at]) > 0 && self.seen[at].hash == hash && self.seen[at].failed == failed => {
                let seen = &mut self.seen[at];
                seen.times += 1;
                if seen.quoted.is_empty() {
                    seen.quoted = quote(output);
                }
                true
            }
            Ok(at) => {
                self.seen[at] = first;
                false
            }
            Err(slot) => {
                self.add(slot, first);
                false
            }
        }
    }

    /// How many times in a row the call gave its result; none for a read that is stale.
    fn times(&self, seen: &Seen) -> u32 {
        if seen.reader && seen.changes != self.changes {
            0
        } else {
            seen.times
        }
    }

    /// The entry of `signature` in `seen`, or the empty slot where it would go.
    fn find(&self, signature: u64) -> Result<usize, usize> {
        let mask = self.slots.len().wrapping_sub(1);
        let mut slot = signature as usize & mask;
        loop {
            match self.slots.get(slot).copied() {
                None | Some(0) => return Err(slot),
                Some(entry) if self.seen[entry as usize - 1].signature == signature => return Ok(entry as usize - 1),
                Some(_) => slot = (slot + 1) & mask,
            }
        }
    }

    /// Adds an entry at `slot` (from `find`); the slots double when half are taken.
    fn add(&mut self, slot: usize, seen: Seen) {
        self.seen.push(seen);
        if self.seen.len() * 2 <= self.slots.len() {
            self.slots[slot] = self.seen.len() as u32;
            return;
        }
        self.slots = vec![0; (self.slots.len() * 2).max(16)];
        for at in 0..self.seen.len() {
            if let Err(slot) = self.find(self.seen[at].signature) {
                self.slots[slot] = at as u32 + 1;
            }
        }
    }
}

/// A hash of `text`: FxHash's step, over four lanes of 8 bytes that the processor works on at
/// once (one lane is a chain of multiplies, each waiting for the last). SipHash (std's) resists
/// chosen collisions, which nothing here needs, at a tenth of a tool round's cost for 10 KB.
fn fingerprint(text: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let step = |hash: u64, word: u64| (hash.rotate_left(5) ^ word).wrapping_mul(K);
    let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().unwrap_or_default());
    let mut blocks = text.as_bytes().chunks_exact(32);
    let mut lanes = [text.len() as u64, 1, 2, 3];
    for block in &mut blocks {
        for (lane, bytes) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            *lane = step(*lane, word(bytes));
        }
    }
    let hash = lanes.into_iter().fold(0, step);
    blocks.remainder().iter().fold(hash, |hash, &byte| step(hash, u64::from(byte)))
}

fn quote(output: &str) -> String {
    match output.char_indices().nth(QUOTED_CHARS) {
        Some((end, _)) => [&output[..end], "…"].concat(),
        None => output.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn the_same_result_twice_is_a_repeat_and_a_third_call_is_refused() {
        let mut repeats = Repeats::default();
        assert!(repeats.refusal(1, "shell").is_none());
        assert!(!repeats.record(1, "shell", "ok", false));
        assert!(repeats.refusal(1, "shell").is_none());
        assert!(repeats.record(1, "shell", "ok", false));
        let refusal = repeats.refusal(1, "shell").expect("refused");
        assert!(refusal.message.starts_with("Not run: you already made this exact shell call twice"), "{}", refusal.message);
        assert!(refusal.message.contains("\nok\n") && refusal.answer_now, "{}", refusal.message);
    }

    #[test]
    fn the_same_error_twice_is_refused_without_asking_for_the_answer() {
        let mut repeats = Repeats::default();
        repeats.record(1, "shell", "old_string was not found", true);
        assert!(repeats.record(1, "shell", "old_string was not found", true));
        let refusal = repeats.refusal(1, "edit_file").expect("refused");
        assert!(refusal.message.contains("it failed the same way both times") && !refusal.answer_now, "{}", refusal.message);
    }

    #[test]
    fn a_changed_result_starts_counting_again() {
        let mut repeats = Repeats::default();
        repeats.record(1, "shell", "3 failed", false);
        assert!(!repeats.record(1, "shell", "all passed", false));
        assert!(repeats.refusal(1, "shell").is_none());
        assert!(repeats.record(1, "shell", "all passed", false));
        assert!(!repeats.record(1, "shell", "all passed", true), "a failure is not a repeat of a success");
    }

    #[test]
    fn other_calls_are_counted_apart() {
        let mut repeats = Repeats::default();
        repeats.record(1, "shell", "same", false);
        assert!(!repeats.record(2, "shell", "same", false));
        assert!(repeats.refusal(2, "read_file").is_none());
    }

    #[test]
    fn a_long_result_is_quoted_in_part() {
        let mut repeats = Repeats::default();
        let long = "é".repeat(1000);
        repeats.record(1, "shell", &long, false);
        repeats.record(1, "shell", &long, false);
        let refusal = repeats.refusal(1, "read_file").expect("refused").message;
        assert!(refusal.contains(&["é".repeat(QUOTED_CHARS), "…".into()].concat()));
        assert!(!refusal.contains(&"é".repeat(QUOTED_CHARS + 1)));
    }

    #[test]
    fn a_change_makes_earlier_reads_stale() {
        let mut repeats = Repeats::default();
        repeats.record(1, "read_file", "1 | x = 1", false);
        repeats.record(1, "read_file", "1 | x = 1", false);
        assert!(repeats.refusal(1, "read_file").is_some());
        // A failed edit changed nothing; a write did.
        repeats.record(3, "edit_file", "old_string was not found", true);
        assert!(repeats.refusal(1, "read_file").is_some());
        repeats.record(4, "write_file", "Wrote 6 bytes", false);
        assert!(repeats.refusal(1, "read_file").is_none());
        assert!(!repeats.record(1, "read_file", "1 | x = 2", false));
        repeats.record(2, "shell", "ok", false);
        repeats.record(2, "shell", "ok", false);
        assert!(repeats.refusal(2, "shell").is_some(), "the calls that change things are still counted");
    }

    #[test]
    fn thousands_of_calls_are_told_apart_even_when_their_signatures_share_low_bits() {
        let mut repeats = Repeats::default();
        // Every third signature shares its low 20 bits with the others: they collide in the slots.
        let signature = |i: u64| if i % 3 == 0 { i << 20 } else { i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11 };
        for i in 0..5000 {
            assert!(!repeats.record(signature(i), "read_file", &i.to_string(), false), "call {i}");
        }
        for i in [0, 3, 1, 2, 4998, 4999] {
            assert!(repeats.refusal(signature(i), "read_file").is_none(), "call {i}");
            assert!(repeats.record(signature(i), "read_file", &i.to_string(), false), "call {i} again");
            assert!(repeats.refusal(signature(i), "read_file").is_some(), "call {i} a third time");
        }
        assert!(!repeats.record(signature(6), "read_file", "changed", false));
        repeats.record(1 << 40, "write_file", "Wrote 1 byte", false);
        assert!(repeats.refusal(signature(0), "read_file").is_none(), "a write makes every read stale");
    }

    #[test]
    fn a_command_run_again_with_the_same_output_is_a_repeat_whatever_it_took() {
        let mut repeats = Repeats::default();
        assert!(!repeats.record(1, "shell", "ok\nExit code: 0\nDuration: 5ms", false));
        assert!(repeats.record(1, "shell", "ok\nExit code: 0\nDuration: 9ms", false));
        assert!(!repeats.record(1, "shell", "ok\nExit code: 1\nDuration: 9ms", false));
    }

    #[test]
    fn one_byte_changed_anywhere_in_a_long_result_is_no_repeat() {
        // 10,897 bytes: every lane of the first blocks, one far in, and the tail past the last block.
        let long = "0123456789abcdef\n".repeat(641);
        let mut repeats = Repeats::default();
        assert!(!repeats.record(1, "read_file", &long, false));
        for at in (0..40).chain([5_000, long.len() - 17, long.len() - 1]) {
            let mut changed = long.clone().into_bytes();
            changed[at] = b'#';
            let changed = String::from_utf8(changed).unwrap();
            assert!(!repeats.record(1, "read_file", &changed, false), "byte {at}");
            assert!(!repeats.record(1, "read_file", &long, false), "byte {at}, back");
        }
        assert!(repeats.record(1, "read_file", &long, false));
    }
}
