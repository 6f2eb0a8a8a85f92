//! What a project's `.openagent/models.json` costs `run` and `models` before anything else:
//! reading, parsing and laying it over the built-in catalog, at 1k, 10k and 100k entries (half of
//! them new models, half corrections to one known model). Each tenfold more entries should take
//! about tenfold the time: the figure per entry stays flat.
//!
//! `cargo bench -p openagent-runner --bench models_load`

use std::fmt::Write;
use std::time::Instant;

use openagent_runner::models::{self, MODELS_FILE};

fn main() {
    let dir = std::env::temp_dir().join(format!("openagent-models-bench-{}", std::process::id()));
    std::fs::create_dir_all(dir.join(".openagent")).expect("a temporary directory");
    for entries in [1_000, 10_000, 100_000] {
        let mut text = String::from("{\"models\": [\n");
        for n in 0..entries {
            let comma = if n + 1 < entries { "," } else { "" };
            let _ = match n % 2 {
                0 => writeln!(
                    text,
                    "  {{\"id\": \"local-{n}\", \"provider\": \"openai-compatible\", \"context_window\": 65536, \"input_cost_per_million\": 0}}{comma}"
                ),
                _ => writeln!(text, "  {{\"id\": \"gpt-5.2\", \"input_cost_per_million\": {n}}}{comma}"),
            };
        }
        text.push_str("]}\n");
        std::fs::write(dir.join(MODELS_FILE), &text).expect("the file");
        // The best of a few: the figure is the work, not the machine's other load.
        let runs = if entries < 100_000 { 5 } else { 3 };
        let mut best = f64::MAX;
        for _ in 0..runs {
            let started = Instant::now();
            let catalog = models::load(&dir).expect("the file loads");
            best = best.min(started.elapsed().as_secs_f64());
            assert!(catalog.get("local-0").is_some());
        }
        println!(
            "models_load: {entries:>7} entries ({:>5.1} MB): {:>9.2} ms, {:>6.2} µs per entry",
            text.len() as f64 / 1e6,
            best * 1e3,
            best * 1e6 / entries as f64
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
