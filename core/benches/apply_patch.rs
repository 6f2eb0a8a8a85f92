//! How long `apply_patch` takes to apply a 100-hunk patch to a 1 MB file through
//! `MemoryEnvironment` (the goal is under 5 ms natively): parsing, reading, seeking every hunk,
//! building the new content and writing it. A second figure has every hunk's lines retyped with
//! different indentation, so each one is found only by a fuzzy pass after a failed exact search.
//!
//! `cargo bench -p openagent-core --bench apply_patch`. A plain timing loop; it asserts nothing.

use std::rc::Rc;
use std::time::Instant;

use futures::executor::block_on;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::tools::{ApplyPatchTool, ToolContext, ToolExecutor};
use openagent_memenv::MemoryEnvironment;
use serde_json::{json, Value};

const FILE_BYTES: usize = 1 << 20;
const HUNKS: usize = 100;
const RUNS: usize = 10;

fn line(i: usize) -> String {
    format!("    line {i:06}: the quick brown fox jumps over the lazy dog")
}

/// Each hunk: an `@@` line ten lines up, three lines of context each side, one line replaced.
fn patch(lines: usize, indent: &str) -> String {
    let mut patch = String::from("*** Begin Patch\n*** Update File: big.txt\n");
    let step = lines / (HUNKS + 1);
    for hunk in 1..=HUNKS {
        let at = hunk * step;
        patch += &format!("@@ {}\n", line(at - 10).trim());
        for i in at - 3..at {
            patch += &format!(" {indent}{}\n", line(i).trim());
        }
        patch += &format!("-{indent}{}\n+{indent}changed {hunk}\n", line(at).trim());
        for i in at + 1..at + 4 {
            patch += &format!(" {indent}{}\n", line(i).trim());
        }
    }
    patch + "*** End Patch\n"
}

fn best_ms(env: &MemoryEnvironment, file: &str, args: &Value) -> f64 {
    let ctx = ToolContext::new(env, 10_000, 600_000);
    let mut best = f64::MAX;
    for _ in 0..RUNS {
        env.write_bytes("big.txt", file.as_bytes()).expect("seed file");
        let start = Instant::now();
        let output = block_on(ApplyPatchTool.execute(args, &ctx)).expect("the patch applies");
        best = best.min(start.elapsed().as_secs_f64() * 1000.0);
        assert!(output.text.starts_with("Success."));
    }
    best
}

fn main() {
    let mut file = String::with_capacity(FILE_BYTES + 100);
    let mut lines = 0;
    while file.len() < FILE_BYTES {
        file += &line(lines);
        file.push('\n');
        lines += 1;
    }
    let env = MemoryEnvironment::new(Rc::new(VirtualRuntime::new(|_| {})));
    let label = format!("{HUNKS} hunks, {} KB file ({lines} lines)", file.len() / 1024);
    let exact = best_ms(&env, &file, &json!({ "patch": patch(lines, "    ") }));
    println!("apply_patch: {label}, exact      {exact:>7.2} ms  (best of {RUNS})");
    let fuzzy = best_ms(&env, &file, &json!({ "patch": patch(lines, "\t") }));
    println!("apply_patch: {label}, re-indented {fuzzy:>7.2} ms  (best of {RUNS})");
}
