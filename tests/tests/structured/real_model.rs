//! (b) Opt-in: the tasks against a real small model (qwen2.5-coder-0.5b through llama.cpp's
//! server, `shared/tools/offline-llm/`), skipped unless `OPENAGENT_E2E_LLM_URL` names the server:
//! `OPENAGENT_E2E_LLM_URL=http://127.0.0.1:8093 cargo test -p openagent-tests --test structured -- --nocapture`.
//! `OPENAGENT_E2E_RUNS` (default 1) runs each task that many times.
//!
//! It measures, it does not judge: a 0.5B model's share of valid results is whatever it is, and
//! the test only requires that every run ends the way a structured run may end (a valid result,
//! `no_result`, `give_up`, or a limit), with the attempts kept within three.

use crate::figure::{self, Figure};

#[test]
fn the_tasks_against_a_real_small_model() {
    let Some(url) = std::env::var("OPENAGENT_E2E_LLM_URL").ok().filter(|url| !url.trim().is_empty()) else {
        println!("skipped: set OPENAGENT_E2E_LLM_URL to an OpenAI-compatible server (see shared/tools/offline-llm/)");
        return;
    };
    let base_url = format!("{}/v1", url.trim().trim_end_matches('/'));
    let runs: usize = std::env::var("OPENAGENT_E2E_RUNS").ok().and_then(|n| n.parse().ok()).unwrap_or(1);
    let sandbox = figure::sandbox();
    let mut figure = Figure::default();
    for task in figure::tasks() {
        let mut endings = Vec::new();
        for _ in 0..runs {
            let ending = figure::run(&sandbox, &task, &base_url, &[]);
            println!(
                "{:<13} {:<10} attempts={} {:.1}s result={}",
                task.agent,
                ending.exit_reason,
                ending.attempts,
                ending.duration_ms as f64 / 1000.0,
                ending.result_data
            );
            let allowed = ["completed", "no_result", "give_up", "max_turns"];
            assert!(allowed.contains(&ending.exit_reason.as_str()), "{}: {ending:?}", task.agent);
            assert!(ending.attempts <= 3, "{}: more than three attempts: {ending:?}", task.agent);
            endings.push(ending);
        }
        figure.rows.push((task.agent, endings));
    }
    println!("{}", figure.table(&format!("valid results within 3 attempts, real model at {url}, {runs} run(s) per task")));
}
