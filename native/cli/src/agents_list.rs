//! `openagent agents list [--cwd DIR] [--json]`: every agent config of a directory, each checked.
//! Exit 0 when all load, 1 when any is broken, 2 when the directory cannot be read.

use std::path::Path;

use serde_json::{json, Value};

use openagent_runner::agents::AgentConfig;
use openagent_runner::agents::{discover, Found, AGENTS_DIR};

/// Lists the agents of `cwd` on stdout, as text or as one JSON array; returns the exit code.
pub fn run(cwd: &Path, json: bool) -> u8 {
    let found = match discover(cwd) {
        Ok(found) => found,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let text = if json {
        let records: Vec<Value> = found.iter().map(|agent| record(agent, cwd)).collect();
        format!("{}\n", Value::Array(records))
    } else {
        found.iter().map(|agent| human(agent, cwd)).collect()
    };
    let mut out = openagent_runner::stdout::Stdout::default();
    out.write(&text);

    let broken = found.iter().filter(|agent| agent.config.is_err()).count();
    if !json {
        match found.len() {
            0 => eprintln!("no agents in {} (each is {AGENTS_DIR}/<id>/agent.yml)", cwd.join(AGENTS_DIR).display()),
            n => eprintln!("{n} agent{}, {broken} broken", if n == 1 { "" } else { "s" }),
        }
    }
    out.end(u8::from(broken > 0))
}

/// `id  name · provider model · tools · result`, or the id and one indented line per problem.
fn human(agent: &Found, cwd: &Path) -> String {
    match &agent.config {
        Ok(config) => format!("✓ {}  {}\n", agent.id, summary(config)),
        Err(error) => {
            let problems: String = error.lines(Some(cwd)).iter().map(|line| format!("    {line}\n")).collect();
            format!("✗ {}\n{problems}", agent.id)
        }
    }
}

fn summary(config: &AgentConfig) -> String {
    let provider = config.provider.as_deref().unwrap_or("provider from flags or the environment");
    let mut parts = vec![config.name.clone(), format!("{provider} {}", config.model.as_deref().unwrap_or("(its default model)"))];
    if let Some(profile) = &config.profile {
        parts.push(format!("profile {profile}"));
    }
    parts.push(match &config.tools {
        Some(tools) if tools.is_empty() => "no tools".to_owned(),
        Some(tools) => format!("tools: {}", tools.join(", ")),
        None => "all tools".to_owned(),
    });
    if config.output.is_some() {
        parts.push("structured result".to_owned());
    }
    parts.join(" · ")
}

/// `{id, file, ok, config, problems}`: `config` as loaded (`null` when broken), every problem
/// with its field and line.
fn record(agent: &Found, cwd: &Path) -> Value {
    let file = agent.file.strip_prefix(cwd).unwrap_or(&agent.file);
    let (config, problems) = match &agent.config {
        Ok(config) => (json!(config), json!([])),
        Err(error) => (Value::Null, json!(error.problems)),
    };
    json!({"id": agent.id, "file": file, "ok": agent.config.is_ok(), "config": config, "problems": problems})
}
