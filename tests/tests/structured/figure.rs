//! The tasks, one run of a task through the real binary, and the figure they add up to.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use serde_json::Value;

use openagent_tests::cli::{Finished, Sandbox};

/// One task of `tests/structured/tasks.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// The agent config it runs with (`tests/structured/.openagent/agents/<agent>/`).
    pub agent: String,
    pub task: String,
    pub mock: MockPlan,
}

/// What the mock model does on a task, and how the run must end.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MockPlan {
    /// The mistakes the script makes, for people reading the file.
    pub mistakes: String,
    /// The run's `exit_reason`: `completed`, `no_result` or `give_up`.
    pub expect: String,
    /// Submissions and answers the model makes, the last one included.
    pub attempts: u64,
    /// The mock server's script (its JSON format), one step per model response.
    pub steps: Value,
}

/// `tests/structured/`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("structured")
}

pub fn tasks() -> Vec<Task> {
    let path = fixtures().join("tasks.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not a list of tasks: {e}", path.display()))
}

/// A sandbox whose working directory holds the tasks' agent configs.
pub fn sandbox() -> Sandbox {
    let sandbox = Sandbox::new();
    copy_dir(&fixtures().join(".openagent"), &sandbox.cwd().join(".openagent"));
    sandbox
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("the sandbox is writable");
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("cannot list {}: {e}", from.display())) {
        let entry = entry.expect("a directory entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("the fixture copies");
        }
    }
}

/// How one run ended, read from its `run_finished`.
#[derive(Debug)]
pub struct Ending {
    pub exit_code: Option<i32>,
    pub exit_reason: String,
    pub outcome: String,
    /// Submissions and answers the model made: every correction it was asked for, plus the last.
    pub attempts: u64,
    pub result_data: Value,
    pub duration_ms: u64,
}

impl Ending {
    /// A valid result within the attempts: the run completed with the result accepted.
    pub fn valid(&self) -> bool {
        self.exit_reason == "completed" && !self.result_data.is_null()
    }
}

/// `openagent run "<task>" --agent <agent> --output json` in `sandbox`, against the
/// OpenAI-compatible server at `base_url` (ending in `/v1`), to the end.
pub fn run(sandbox: &Sandbox, task: &Task, base_url: &str, extra: &[&str]) -> Ending {
    let args = [&["run", task.task.as_str(), "--agent", task.agent.as_str(), "--output", "json"], extra].concat();
    let mut command: Command = sandbox.openagent(None, &args);
    command.env("OPENAI_COMPATIBLE_BASE_URL", base_url);
    let output = command.output().expect("openagent runs");
    let finished = Finished {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    let done = finished.run_finished();
    let provider_retries = finished.data_of("provider_retry").len() as u64;
    let retries = done["outcome"]["metrics"]["retries"].as_u64().unwrap_or(0);
    Ending {
        exit_code: finished.code,
        exit_reason: done["exit_reason"].as_str().unwrap_or_default().to_owned(),
        outcome: done["outcome"]["status"].as_str().unwrap_or_default().to_owned(),
        // The outcome counts each correction as a retry, with the provider's retries.
        attempts: retries.saturating_sub(provider_retries) + 1,
        result_data: done["result_data"].clone(),
        duration_ms: done["duration_ms"].as_u64().unwrap_or(0),
    }
}

/// Every run of every task.
#[derive(Default)]
pub struct Figure {
    pub rows: Vec<(String, Vec<Ending>)>,
}

impl Figure {
    /// Runs ending with a valid result, and all runs.
    pub fn share(&self) -> (usize, usize) {
        let runs = self.rows.iter().flat_map(|(_, endings)| endings);
        runs.fold((0, 0), |(valid, all), ending| (valid + usize::from(ending.valid()), all + 1))
    }

    /// The table: per task its runs, valid results, share, attempts and endings; then overall.
    pub fn table(&self, title: &str) -> String {
        let percent = |valid: usize, all: usize| if all == 0 { 0.0 } else { 100.0 * valid as f64 / all as f64 };
        let mut table =
            format!("{title}\n{:<13} {:>4} {:>5} {:>7}  {:<10} endings\n", "task", "runs", "valid", "share", "attempts");
        for (task, endings) in &self.rows {
            let valid = endings.iter().filter(|e| e.valid()).count();
            let attempts: Vec<String> = endings.iter().map(|e| e.attempts.to_string()).collect();
            let reasons: Vec<&str> = endings.iter().map(|e| e.exit_reason.as_str()).collect();
            table.push_str(&format!(
                "{task:<13} {:>4} {valid:>5} {:>6.1}%  {:<10} {}\n",
                endings.len(),
                percent(valid, endings.len()),
                attempts.join(","),
                reasons.join(",")
            ));
        }
        let (valid, all) = self.share();
        table.push_str(&format!("{:<13} {all:>4} {valid:>5} {:>6.1}%\n", "overall", percent(valid, all)));
        table
    }
}
