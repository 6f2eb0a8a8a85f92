//! A run's artifacts, in a directory of their own under the data directory
//! (`<data dir>/runs/<run id>/`): `config.json` (what the run was asked to do, with its
//! `output_mode` and behaviour fingerprint), `events.jsonl` (every internal event, written as it
//! happens) and `result.json` (how it ended). The same config heads the run's row in the session
//! store ([`RunConfig::stored_session`]).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use openagent_core::sandbox::SandboxPolicy;
use openagent_core::setup::ProviderSettings;
use openagent_core::SessionConfig;
use serde::Serialize;
use serde_json::{json, Value};

use crate::launcher::Launcher;
use crate::projection::RunEnd;
use openagent_host::url::without_password;
use openagent_store::SessionInfo;

/// What a run was asked to do.
#[derive(Debug, Clone, Serialize)]
pub struct RunConfig {
    pub task: String,
    pub provider: String,
    pub model: String,
    pub base_url: String,
    pub working_directory: String,
    pub max_turns: usize,
    pub max_tool_rounds: usize,
    pub reasoning_effort: Option<String>,
    /// The agent config the run used (`--agent`), as loaded: its instructions, tools and output
    /// schema change what the agent does. Absent without one, so such runs keep their fingerprint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<Value>,
    /// The JSON Schema a result must validate against, given without an agent config
    /// (`openagent serve`'s `output_schema`); kept so a resumed session is held to it still.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// The stored session the run continues (`--resume`, `--continue`): its history changes what
    /// the agent does. Absent for a new session, so such runs keep their fingerprint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed_from: Option<String>,
    /// The session the resumed one was forked from (`openagent sessions fork`), if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<String>,
    /// The sandbox policy the run's commands were held to; absent for a run that has none of
    /// the native host's (the WebAssembly sandbox's, whose guest holds it in on its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxPolicy>,
    /// Presentation only, like `stream` and `events_file`: kept for replay and debugging, left
    /// out of the fingerprint.
    pub output_mode: String,
    pub stream: bool,
    pub events_file: Option<String>,
}

impl RunConfig {
    /// What `agent` is asked to do with `task` under `config`, shown as `output_mode`.
    pub fn new(task: &str, agent: &Launcher, config: &SessionConfig, output_mode: &str) -> Self {
        Self {
            agent: agent.config.as_ref().map(|config| serde_json::to_value(config).expect("a config serialises")),
            sandbox: Some(agent.sandbox.clone()),
            ..Self::without_agent(task, &agent.settings, &agent.model, &agent.cwd, config, output_mode)
        }
    }

    /// The same for a run with no agent config and no `Launcher` (a sandboxed run): `model` on the
    /// provider of `settings`, working in `working_directory`.
    pub fn without_agent(
        task: &str,
        settings: &ProviderSettings,
        model: &str,
        working_directory: &Path,
        config: &SessionConfig,
        output_mode: &str,
    ) -> Self {
        Self {
            task: task.to_owned(),
            provider: settings.kind.name().into(),
            model: model.to_owned(),
            base_url: without_password(&settings.base_url),
            working_directory: working_directory.display().to_string(),
            max_turns: config.max_turns,
            max_tool_rounds: config.max_tool_rounds_per_input,
            reasoning_effort: config.reasoning_effort.clone(),
            agent: None,
            output_schema: None,
            resumed_from: None,
            forked_from: None,
            sandbox: None,
            output_mode: output_mode.to_owned(),
            stream: false,
            events_file: None,
        }
    }

    /// The config as `config.json` and the session store keep it: with the run's id and fingerprint.
    pub fn record(&self, run_id: &str) -> Value {
        let mut record = serde_json::to_value(self).expect("a config serialises");
        record["run_id"] = json!(run_id);
        record["config_fingerprint"] = json!(self.fingerprint());
        record
    }

    /// The run as the session store records it when it starts.
    pub fn stored_session(&self, run_id: &str, created_at: String) -> SessionInfo {
        SessionInfo {
            id: run_id.to_owned(),
            parent_id: None,
            task: self.task.clone(),
            provider: self.provider.clone(),
            model: self.model.clone(),
            working_directory: self.working_directory.clone(),
            created_at,
            config: Some(self.record(run_id)),
        }
    }

    /// A stable hash of everything that can change what the agent does: the same task, model and
    /// limits give the same fingerprint however the run is displayed.
    pub fn fingerprint(&self) -> String {
        let mut behaviour = serde_json::to_value(self).expect("a config of strings and numbers serialises");
        let fields = behaviour.as_object_mut().expect("a struct serialises to an object");
        for presentation in ["output_mode", "stream", "events_file"] {
            fields.remove(presentation);
        }
        // serde_json's map is ordered by key, so equal configs give equal text.
        format!("fnv1a64:{:016x}", fnv1a64(behaviour.to_string().as_bytes()))
    }
}

/// FNV-1a: a fingerprint compares configs, it need not resist forgery.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

/// The open artifacts of one run.
pub struct Artifacts {
    dir: PathBuf,
    events: BufWriter<File>,
}

impl Artifacts {
    /// Creates `<data_dir>/runs/<run_id>/` and writes `config.json`. The directory must be new,
    /// so that a run never writes over another's artifacts (two runs given the same fixed id at
    /// once), unless the run resumes the session of its own id: then its events go on after
    /// that run's.
    pub fn create(data_dir: &Path, run_id: &str, config: &RunConfig) -> io::Result<Self> {
        let dir = data_dir.join("runs").join(run_id);
        let resumes_itself = config.resumed_from.as_deref() == Some(run_id);
        fs::create_dir_all(data_dir.join("runs")).map_err(|e| annotate(e, &dir))?;
        match fs::create_dir(&dir) {
            Err(e) if !(resumes_itself && e.kind() == io::ErrorKind::AlreadyExists) => return Err(annotate(e, &dir)),
            _ => {}
        }
        write_json(&dir.join("config.json"), &config.record(run_id))?;
        let path = dir.join("events.jsonl");
        let file = File::options().create(true).append(true).open(&path).map_err(|e| annotate(e, &path))?;
        Ok(Self { dir, events: BufWriter::new(file) })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends one internal event line; flushed so that a killed run keeps what it did.
    pub fn event(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.events, "{line}")?;
        self.events.flush()
    }

    /// Writes `result.json`.
    pub fn finish(&mut self, run_id: &str, end: &RunEnd) -> io::Result<()> {
        self.events.flush()?;
        let result = json!({
            "run_id": run_id,
            "exit_reason": end.exit_reason,
            "ok": end.ok(),
            "exit_code": end.exit_code,
            "final_output": end.final_output,
            "error": end.error,
            "turns": end.turns,
            "tool_calls": end.tool_calls,
            "compactions": end.compactions,
            "usage": end.usage,
            "duration_ms": end.duration_ms,
            "outcome": end.outcome,
            "result_data": end.result_data,
        });
        write_json(&self.dir.join("result.json"), &result)
    }
}

fn write_json(path: &Path, value: &Value) -> io::Result<()> {
    let text = serde_json::to_string_pretty(value).expect("JSON values serialise");
    fs::write(path, text + "\n").map_err(|e| annotate(e, path))
}

/// The error with the path it is about.
fn annotate(error: io::Error, path: &Path) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> RunConfig {
        RunConfig {
            task: "fix the bug".into(),
            provider: "anthropic".into(),
            model: "claude-sonnet-4-5".into(),
            base_url: "https://api.anthropic.com".into(),
            working_directory: "/work".into(),
            max_turns: 0,
            max_tool_rounds: 0,
            reasoning_effort: None,
            agent: None,
            output_schema: None,
            resumed_from: None,
            forked_from: None,
            sandbox: None,
            output_mode: "human".into(),
            stream: false,
            events_file: None,
        }
    }

    #[test]
    fn the_fingerprint_ignores_presentation_and_follows_behaviour() {
        let human = config();
        let json = RunConfig { output_mode: "json".into(), stream: true, events_file: Some("e.jsonl".into()), ..config() };
        assert_eq!(human.fingerprint(), json.fingerprint());
        assert!(human.fingerprint().starts_with("fnv1a64:") && human.fingerprint().len() == 24);
        for changed in [
            RunConfig { model: "claude-opus-4-6".into(), ..config() },
            RunConfig { max_turns: 5, ..config() },
            RunConfig { task: "fix the other bug".into(), ..config() },
            RunConfig { reasoning_effort: Some("high".into()), ..config() },
            RunConfig { agent: Some(json!({"id": "reviewer", "instructions": "Be terse."})), ..config() },
            RunConfig { resumed_from: Some("r_earlier".into()), ..config() },
            RunConfig { output_schema: Some(json!({"type": "object"})), ..config() },
            RunConfig { sandbox: Some(SandboxPolicy::full_access()), ..config() },
        ] {
            assert_ne!(changed.fingerprint(), human.fingerprint(), "{changed:?}");
        }
    }

    #[test]
    fn writes_config_events_and_result() {
        let data = std::env::temp_dir().join(format!("openagent-artifacts-{}", std::process::id()));
        let mut artifacts = Artifacts::create(&data, "r_1", &config()).unwrap();
        artifacts.event(r#"{"kind":"session_start"}"#).unwrap();
        let end = RunEnd { exit_reason: "completed".into(), final_output: "done".into(), ..RunEnd::default() };
        artifacts.finish("r_1", &end).unwrap();
        let dir = data.join("runs/r_1");
        let config: Value = serde_json::from_str(&fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
        assert_eq!((config["output_mode"].as_str(), config["run_id"].as_str()), (Some("human"), Some("r_1")));
        assert!(config["config_fingerprint"].as_str().unwrap().starts_with("fnv1a64:"));
        assert_eq!(fs::read_to_string(dir.join("events.jsonl")).unwrap(), "{\"kind\":\"session_start\"}\n");
        let result: Value = serde_json::from_str(&fs::read_to_string(dir.join("result.json")).unwrap()).unwrap();
        assert_eq!((result["ok"].as_bool(), result["final_output"].as_str()), (Some(true), Some("done")));
        fs::remove_dir_all(&data).unwrap();
    }
}
