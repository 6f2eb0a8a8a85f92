//! `local-bench`: the task set of `tests/local-bench/tasks/` against a real model behind an
//! OpenAI-compatible server, through `openagent run` (or pi's coding agent, side by side), with
//! a row per task and the success rate. See tests/README.md, "Small local models".
//!
//! ```sh
//! cargo run -p openagent-tests --bin local-bench -- --url http://127.0.0.1:8093 [--json out.json]
//! cargo run -p openagent-tests --bin local-bench -- --compare before.json after.json
//! ```

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use openagent_tests::local_bench::{epoch_ms, load, run_bounded, tasks_dir, Task};
use serde::{Deserialize, Serialize};
use serde_json::Value;

const USAGE: &str = "usage: local-bench [--url URL] [--agent openagent|pi] [--tasks DIR] [--only SUBSTRING] [--timeout SECONDS] \
[--max-turns N] [--context-window TOKENS] [--openagent PATH] [--pi PATH] [--json FILE] [--keep DIR]
       local-bench --compare BEFORE.json AFTER.json
The server is --url or $OPENAGENT_E2E_LLM_URL: an OpenAI-compatible server such as the offline one:
  N_THREADS=2 CHAT_TEMPLATE_FILE=../shared/tools/offline-llm/chatml_fenced_tools.jinja \\
    /tmp/offline-llm/venv/bin/python ../shared/tools/offline-llm/serve.py \\
    /tmp/offline-llm/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf 8093 8192";

struct Options {
    url: String,
    agent: Agent,
    tasks: PathBuf,
    only: Option<String>,
    timeout: Duration,
    max_turns: u32,
    context_window: u32,
    json: Option<PathBuf>,
    /// Where each task's workspace and events are kept, for reading what the model did.
    keep: Option<PathBuf>,
}

enum Agent {
    OpenAgent(PathBuf),
    Pi(PathBuf),
}

/// What one task's run did: the row of the report and of `--json`.
#[derive(Serialize, Deserialize, Default, Clone)]
struct Row {
    task: String,
    passed: bool,
    /// Why the check failed, or how the run ended when it did not end by itself.
    reason: Option<String>,
    /// `completed`, an exit reason such as `max_turns`, or `timeout`.
    ended: String,
    turns: u64,
    tool_calls: u64,
    input_tokens: u64,
    output_tokens: u64,
    /// From the first request's start to its response's end.
    first_request_ms: Option<u64>,
    /// The first request's prompt, as the server counted it.
    first_prompt_tokens: Option<u64>,
    wall_ms: u64,
}

#[derive(Serialize, Deserialize)]
struct Report {
    agent: String,
    model: String,
    rows: Vec<Row>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("--compare") => compare(&args[1..]),
        _ => parse(&args).and_then(|options| bench(&options)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("local-bench: {message}");
            ExitCode::from(2)
        }
    }
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut url = std::env::var("OPENAGENT_E2E_LLM_URL").ok().filter(|url| !url.trim().is_empty());
    let (mut agent, mut openagent, mut pi) = ("openagent".to_owned(), None, None);
    let mut options = Options {
        url: String::new(),
        agent: Agent::OpenAgent(PathBuf::new()),
        tasks: tasks_dir(),
        only: None,
        timeout: Duration::from_secs(400),
        max_turns: 12,
        context_window: 8192,
        json: None,
        keep: None,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().cloned().ok_or_else(|| format!("{arg} needs a value\n{USAGE}"));
        let number = |text: String| text.parse::<u32>().map_err(|_| format!("{arg} takes a whole number, not {text:?}"));
        match arg.as_str() {
            "--url" => url = Some(value()?),
            "--agent" => agent = value()?,
            "--tasks" => options.tasks = PathBuf::from(value()?),
            "--only" => options.only = Some(value()?),
            "--timeout" => options.timeout = Duration::from_secs(number(value()?)?.into()),
            "--max-turns" => options.max_turns = number(value()?)?,
            "--context-window" => options.context_window = number(value()?)?,
            "--openagent" => openagent = Some(PathBuf::from(value()?)),
            "--pi" => pi = Some(PathBuf::from(value()?)),
            "--json" => options.json = Some(PathBuf::from(value()?)),
            "--keep" => options.keep = Some(PathBuf::from(value()?)),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    options.url = url.ok_or_else(|| format!("no server: give --url or set OPENAGENT_E2E_LLM_URL\n{USAGE}"))?;
    options.url = options.url.trim().trim_end_matches('/').trim_end_matches("/v1").to_owned();
    options.agent = match agent.as_str() {
        "openagent" => Agent::OpenAgent(openagent.map_or_else(default_openagent, Ok)?),
        "pi" => Agent::Pi(pi.map_or_else(default_pi, Ok)?),
        other => return Err(format!("--agent is openagent or pi, not {other:?}")),
    };
    Ok(options)
}

fn bench(options: &Options) -> Result<(), String> {
    let model = served_model(&options.url)?;
    let mut tasks = load(&options.tasks)?;
    if let Some(only) = &options.only {
        tasks.retain(|task| task.name.contains(only.as_str()));
    }
    let agent = match options.agent {
        Agent::OpenAgent(_) => "openagent",
        Agent::Pi(_) => "pi",
    };
    let scratch =
        options.keep.clone().unwrap_or_else(|| std::env::temp_dir().join(format!("local-bench-{}", std::process::id())));
    println!(
        "{agent} on {model} at {}: {} tasks, at most {} turns and {} s each",
        options.url,
        tasks.len(),
        options.max_turns,
        options.timeout.as_secs()
    );
    println!("{}", header());
    let mut rows = Vec::new();
    for task in &tasks {
        let dir = scratch.join(&task.name);
        let row = run_task(options, task, &dir).unwrap_or_else(|e| Row {
            task: task.name.clone(),
            reason: Some(e),
            ended: "error".into(),
            ..Row::default()
        });
        println!("{}", line(&row));
        rows.push(row);
    }
    println!("{}", summary(&rows));
    if options.keep.is_none() {
        let _ = fs::remove_dir_all(&scratch);
    }
    if let Some(path) = &options.json {
        let report = Report { agent: agent.to_owned(), model, rows };
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// The model the server serves, for the report (and to fail early when nothing listens).
fn served_model(url: &str) -> Result<String, String> {
    let output = Command::new("curl")
        .args(["-sS", "--max-time", "10", &format!("{url}/v1/models")])
        .output()
        .map_err(|e| format!("cannot run curl: {e}"))?;
    let body: Value = serde_json::from_slice(&output.stdout)
        .map_err(|_| format!("{url}/v1/models did not answer with JSON: {}", String::from_utf8_lossy(&output.stderr).trim()))?;
    let id = body["data"][0]["id"].as_str().ok_or_else(|| format!("{url}/v1/models lists no model"))?;
    Ok(Path::new(id).file_name().map_or(id.to_owned(), |name| name.to_string_lossy().into_owned()))
}

fn run_task(options: &Options, task: &Task, dir: &Path) -> Result<Row, String> {
    let _ = fs::remove_dir_all(dir);
    let work = dir.join("work");
    task.seed(&work)?;
    let answer = dir.join("answer.txt");
    let mut row = match &options.agent {
        Agent::OpenAgent(binary) => run_openagent(options, binary, task, dir, &work)?,
        Agent::Pi(binary) => run_pi(options, binary, task, dir, &work)?,
    };
    fs::write(&answer, row.reason.take().unwrap_or_default()).map_err(|e| e.to_string())?;
    match task.check(&work, &answer) {
        Ok(()) => row.passed = true,
        Err(why) => row.reason = Some(why),
    }
    Ok(row)
}

/// `openagent run` with its run events on stdout and every internal event in a file. The row's
/// `reason` carries the final answer until the check has read it.
fn run_openagent(options: &Options, binary: &Path, task: &Task, dir: &Path, work: &Path) -> Result<Row, String> {
    let (stdout, events) = (dir.join("run.jsonl"), dir.join("events.jsonl"));
    let mut command = Command::new(binary);
    command
        .args(["run", "--provider", "openai-compatible", "--base-url", &format!("{}/v1", options.url)])
        .args(["--max-turns", &options.max_turns.to_string(), "--context-window", &options.context_window.to_string()])
        .arg("--cwd")
        .arg(work)
        .arg("--data-dir")
        .arg(dir.join("data"))
        .args(["--output", "json", "--events"])
        .arg(&events)
        .arg(&task.prompt);
    let finished = run_bounded(command, options.timeout, Some(&stdout))?;
    let mut row = Row { task: task.name.clone(), wall_ms: finished.elapsed.as_millis() as u64, ..Row::default() };
    let records = read_jsonl(&stdout);
    match records.iter().find(|record| record["type"] == "run_finished") {
        Some(end) => {
            let data = &end["data"];
            row.ended = data["exit_reason"].as_str().unwrap_or("?").to_owned();
            row.turns = data["turns"].as_u64().unwrap_or(0);
            row.tool_calls = data["tool_calls"].as_u64().unwrap_or(0);
            row.input_tokens = data["usage"]["input_tokens"].as_u64().unwrap_or(0);
            row.output_tokens = data["usage"]["output_tokens"].as_u64().unwrap_or(0);
        }
        None if finished.status.is_none() => row.ended = "timeout".into(),
        None => row.ended = format!("no run_finished ({})", finished.output.lines().last().unwrap_or("no output")),
    }
    let events = read_jsonl(&events);
    let at = |kind: &str| events.iter().find(|e| e["kind"] == kind);
    if let (Some(start), Some(end)) = (at("turn_start"), at("assistant_text_end")) {
        let ms = |event: &Value| event["timestamp"].as_str().and_then(epoch_ms);
        row.first_request_ms = ms(end).zip(ms(start)).map(|(end, start)| end.saturating_sub(start) as u64);
        row.first_prompt_tokens = end["data"]["usage"]["input_tokens"].as_u64();
    }
    if row.ended == "timeout" {
        // Counted from the events, as the run never wrote its end.
        row.turns = events.iter().filter(|e| e["kind"] == "assistant_text_end").count() as u64;
        row.tool_calls = events.iter().filter(|e| e["kind"] == "tool_call_start").count() as u64;
    }
    let answer = events.iter().rev().find(|e| e["kind"] == "assistant_text_end").and_then(|e| e["data"]["text"].as_str());
    row.reason = Some(answer.unwrap_or_default().to_owned());
    Ok(row)
}

fn read_jsonl(path: &Path) -> Vec<Value> {
    let text = fs::read_to_string(path).unwrap_or_default();
    text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
}

fn header() -> String {
    format!(
        "{:<28} {:<6} {:>5} {:>5} {:>9} {:>7} {:>8} {:>7} {:>7}  {}",
        "task", "result", "turns", "tools", "in tok", "out tok", "1st req", "1st tok", "wall", "ended / why it failed"
    )
}

fn line(row: &Row) -> String {
    let seconds = |ms: u64| format!("{:.1} s", ms as f64 / 1000.0);
    let why = match &row.reason {
        Some(reason) if !row.passed => format!("{}: {reason}", row.ended),
        _ => row.ended.clone(),
    };
    format!(
        "{:<28} {:<6} {:>5} {:>5} {:>9} {:>7} {:>8} {:>7} {:>7}  {}",
        row.task,
        if row.passed { "pass" } else { "FAIL" },
        row.turns,
        row.tool_calls,
        row.input_tokens,
        row.output_tokens,
        row.first_request_ms.map_or("-".into(), seconds),
        row.first_prompt_tokens.map_or("-".into(), |n| n.to_string()),
        seconds(row.wall_ms),
        why.chars().take(100).collect::<String>(),
    )
}

fn summary(rows: &[Row]) -> String {
    let passed = rows.iter().filter(|row| row.passed).count();
    let mut first: Vec<u64> = rows.iter().filter_map(|row| row.first_request_ms).collect();
    first.sort_unstable();
    let median = first.get(first.len() / 2).map_or("-".into(), |ms| format!("{:.1} s", *ms as f64 / 1000.0));
    let wall: u64 = rows.iter().map(|row| row.wall_ms).sum();
    let rate = if rows.is_empty() { 0.0 } else { 100.0 * passed as f64 / rows.len() as f64 };
    format!(
        "success {passed}/{} ({rate:.0}%), median first-request latency {median}, total wall {:.1} min",
        rows.len(),
        wall as f64 / 60_000.0
    )
}

/// Two reports task by task, for a before/after table.
fn compare(args: &[String]) -> Result<(), String> {
    let [before, after] = args else { return Err(USAGE.into()) };
    let read = |path: &String| -> Result<Report, String> {
        let text = fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
    };
    let (before, after) = (read(before)?, read(after)?);
    println!("| task | {} {} | {} {} |", before.agent, before.model, after.agent, after.model);
    println!("|---|---|---|");
    let cell = |row: Option<&Row>| {
        row.map_or("-".into(), |row| {
            format!("{} ({} turns, {} tools)", if row.passed { "pass" } else { "fail" }, row.turns, row.tool_calls)
        })
    };
    for row in &before.rows {
        println!("| {} | {} | {} |", row.task, cell(Some(row)), cell(after.rows.iter().find(|r| r.task == row.task)));
    }
    println!("| **success** | {} | {} |", summary(&before.rows), summary(&after.rows));
    Ok(())
}

/// `OPENAGENT_BIN`, else the `openagent` cargo built beside this binary.
fn default_openagent() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("OPENAGENT_BIN") {
        return Ok(path.into());
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let beside = exe.with_file_name("openagent");
    match beside.is_file() {
        true => Ok(beside),
        false => Err(format!(
            "no openagent at {}: build it (cargo build -p openagent-cli --bin openagent, with the same profile), or give --openagent PATH",
            beside.display()
        )),
    }
}

/// Where `scripts/install.sh`-style installs put npm tools: `$OPENAGENT_TOOLS_DIR`, else
/// `~/.cache/openagent/tools`; pi goes in `pi/` there, with a package.json of its own.
fn default_pi() -> Result<PathBuf, String> {
    let tools = std::env::var_os("OPENAGENT_TOOLS_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache/openagent/tools")))
        .ok_or("no $HOME")?;
    let pi = tools.join("pi/node_modules/.bin/pi");
    match pi.is_file() {
        true => Ok(pi),
        false => Err(format!(
            "no pi at {}: install it with\n  mkdir -p {dir} && echo '{{\"private\":true}}' > {dir}/package.json && \
             npm install --prefix {dir} @mariozechner/pi-coding-agent@0.73.1\nor give --pi PATH",
            pi.display(),
            dir = tools.join("pi").display()
        )),
    }
}

/// pi's coding agent in print mode with its JSON event stream, its configuration in a directory of
/// the run's own (`PI_CODING_AGENT_DIR`): the server as a provider, no compaction or retries (pi
/// would otherwise start a summary call after every run), and a small extension for the turn
/// limit pi lacks. Its default tools: read, bash, edit, write.
fn run_pi(options: &Options, binary: &Path, task: &Task, dir: &Path, work: &Path) -> Result<Row, String> {
    let config = dir.join("pi-agent");
    fs::create_dir_all(&config).map_err(|e| e.to_string())?;
    let models = serde_json::json!({"providers": {"local": {
        "baseUrl": format!("{}/v1", options.url),
        "api": "openai-completions",
        "apiKey": "none",
        "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false, "supportsStore": false, "maxTokensField": "max_tokens"},
        "models": [{"id": "local", "reasoning": false, "input": ["text"], "contextWindow": options.context_window,
                    "maxTokens": 1024, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}]
    }}});
    let write = |name: &str, text: String| fs::write(config.join(name), text).map_err(|e| format!("{name}: {e}"));
    write("models.json", models.to_string())?;
    write("settings.json", r#"{"compaction": {"enabled": false}, "retry": {"enabled": false}}"#.into())?;
    write(
        "max-turns.ts",
        "export default function (pi: any) {\n  const max = Number(process.env.PI_MAX_TURNS || \"0\");\n  let turns = 0;\n  \
         pi.on(\"turn_end\", async (_event: any, ctx: any) => { if (max > 0 && ++turns >= max) ctx.abort(); });\n}\n"
            .into(),
    )?;
    let stdout = dir.join("pi.jsonl");
    let mut command = Command::new(binary);
    command
        .args(["-p", "--mode", "json", "--provider", "local", "--model", "local", "--no-session", "-nc", "-ne", "-e"])
        .arg(config.join("max-turns.ts"))
        .args(["-ns", "-np", "--no-themes"])
        .arg(&task.prompt)
        .current_dir(work)
        .env("PI_CODING_AGENT_DIR", &config)
        .env("PI_OFFLINE", "1")
        .env("PI_MAX_TURNS", options.max_turns.to_string());
    let finished = run_bounded(command, options.timeout, Some(&stdout))?;
    let events = read_jsonl(&stdout);
    let assistant: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "assistant")
        .map(|e| &e["message"])
        .filter(|m| m["stopReason"] != "aborted")
        .collect();
    let usage = |m: &Value, key: &str| m["usage"][key].as_u64().unwrap_or(0);
    // pi counts llama.cpp's cached prompt tokens apart from the rest.
    let prompt = |m: &Value| usage(m, "input") + usage(m, "cacheRead") + usage(m, "cacheWrite");
    let mut row = Row {
        task: task.name.clone(),
        turns: assistant.len() as u64,
        tool_calls: events.iter().filter(|e| e["type"] == "tool_execution_start").count() as u64,
        input_tokens: assistant.iter().map(|m| prompt(m)).sum(),
        output_tokens: assistant.iter().map(|m| usage(m, "output")).sum(),
        first_prompt_tokens: assistant.first().map(|m| prompt(m)),
        wall_ms: finished.elapsed.as_millis() as u64,
        ..Row::default()
    };
    // Messages carry the time their request started: the first request took until the next message.
    let stamps: Vec<u64> =
        events.iter().filter(|e| e["type"] == "message_end").filter_map(|e| e["message"]["timestamp"].as_u64()).collect();
    if let Some(at) = stamps.iter().position(|&t| Some(t) == assistant.first().and_then(|m| m["timestamp"].as_u64())) {
        row.first_request_ms = stamps.get(at + 1).map(|next| next.saturating_sub(stamps[at]));
    }
    let aborted = events.iter().any(|e| e["type"] == "message_end" && e["message"]["stopReason"] == "aborted");
    row.ended = match (finished.status, assistant.last()) {
        (None, _) => "timeout".into(),
        _ if aborted => "max_turns".into(),
        (_, Some(last)) if last["stopReason"] == "stop" => "completed".into(),
        (_, Some(last)) => last["stopReason"].as_str().unwrap_or("?").to_owned(),
        (Some(status), None) => format!("no answer (exit {status})"),
    };
    let text = assistant.last().and_then(|m| m["content"].as_array()).into_iter().flatten();
    row.reason = Some(text.filter(|part| part["type"] == "text").filter_map(|part| part["text"].as_str()).collect());
    Ok(row)
}
