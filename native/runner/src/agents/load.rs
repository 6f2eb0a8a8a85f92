//! Finding and reading agent configs: `<cwd>/.openagent/agents/<id>/agent.yml`. A file is read,
//! parsed by `yaml_serde` into [`AgentConfig`] (syntax, types, missing and unknown keys, each
//! with its line), then checked as a whole (`validate.rs`).

use std::io;
use std::path::{Path, PathBuf};

use super::config::AgentConfig;
use super::error::{AgentError, Problem};
use super::validate::validate;
use crate::config_file;
use crate::config_problems::{show, stop_at, Read, MAX_SHOWN};

/// Where agent configs live, relative to the working directory.
pub const AGENTS_DIR: &str = ".openagent/agents";
/// Each agent's file in its directory.
pub const CONFIG_FILE: &str = "agent.yml";

/// What a config must have, for messages about files that have none of it.
const NEEDS: &str = "an agent config is a YAML mapping with at least `schema: openagent.agent/1`, `id` and `name`";

/// An agent directory and what came of reading it.
#[derive(Debug)]
pub struct Found {
    /// The directory's name, which the config's `id` must match.
    pub id: String,
    pub file: PathBuf,
    pub config: Result<AgentConfig, AgentError>,
}

/// `<cwd>/.openagent/agents/<id>/agent.yml`.
pub fn config_path(cwd: &Path, id: &str) -> PathBuf {
    cwd.join(AGENTS_DIR).join(id).join(CONFIG_FILE)
}

/// The agent `id` of `cwd`, read and checked.
pub fn load(cwd: &Path, id: &str) -> Result<AgentConfig, AgentError> {
    let file = config_path(cwd, id);
    // The id names a directory: nothing that could climb out of the agents directory.
    let plain = !id.is_empty() && !id.starts_with('.') && !id.contains(['/', '\\']);
    if !plain {
        return Err(AgentError::file(&file, format!("`{id}` is not an agent id: use the name of a directory in {AGENTS_DIR}")));
    }
    match read(&file, id) {
        Some(config) => config,
        None => {
            let hint = format!(
                "no agent `{id}` here: this file does not exist (`openagent agents list --cwd {}` shows the agents there)",
                cwd.display()
            );
            Err(AgentError::file(&file, hint))
        }
    }
}

/// Every directory in `<cwd>/.openagent/agents`, sorted by name, each read and checked. No such
/// directory: no agents.
pub fn discover(cwd: &Path) -> io::Result<Vec<Found>> {
    let dir = cwd.join(AGENTS_DIR);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io::Error::new(e.kind(), format!("cannot list {}: {e}", dir.display()))),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry?;
        if !entry.file_type()?.is_dir() {
            continue;
        }
        let id = entry.file_name().to_string_lossy().into_owned();
        let file = entry.path().join(CONFIG_FILE);
        let config = read(&file, &id).unwrap_or_else(|| {
            Err(AgentError::file(&file, format!("missing: each directory in {AGENTS_DIR} holds its agent's {CONFIG_FILE}")))
        });
        found.push(Found { id, file, config });
    }
    found.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(found)
}

/// Reads `file`, the config of the directory `dir_name`; `None` when there is no such file.
fn read(file: &Path, dir_name: &str) -> Option<Result<AgentConfig, AgentError>> {
    let text = match config_file::read(file) {
        Ok(text) => text?,
        Err(problem) => return Some(Err(AgentError::file(file, problem.to_string()))),
    };
    Some(parse(&text, dir_name).map_err(|problems| AgentError { file: file.to_owned(), problems }))
}

/// Parses and checks the text of the config of the directory `dir_name`: every problem, each
/// with its line, up to [`MAX_SHOWN`] (then how many more).
pub fn parse(text: &str, dir_name: &str) -> Result<AgentConfig, Vec<Problem>> {
    if text.trim().is_empty() {
        return Err(vec![Problem::new("", None, format!("the file is empty: {NEEDS}"))]);
    }
    let first = match yaml_serde::from_str::<AgentConfig>(text) {
        Ok(config) => {
            let problems = validate(&config, dir_name, text);
            return if problems.is_empty() { Ok(config) } else { Err(problems) };
        }
        Err(error) => yaml_problem(&error),
    };
    // serde stops at the first problem: the others come from the tree read again without each
    // wrong part. Text that is not even a tree has only the one.
    let Ok(tree) = yaml_serde::from_str::<serde_json::Value>(text) else { return Err(vec![first]) };
    let read = Read::<AgentConfig>::from(tree, text.len());
    let mut problems = vec![(first, None)];
    for found in &read.found {
        // An unknown key's path ends in the key, which the message names.
        let unknown = found.message.starts_with("unknown field");
        let field = show(&found.path[..found.path.len() - usize::from(unknown && !found.path.is_empty())]);
        let problem = problem_of(&field, &found.message, None);
        // The file as a whole is wrong: the text's own problem has said so.
        if !problem.field.is_empty() {
            problems.push((problem, Some(&found.path)));
        }
    }
    if let Some(config) = &read.value {
        for mut problem in validate(config, dir_name, text) {
            if let Some(field) = read.field(&problem.field) {
                problem.field = field;
                problems.push((problem, None));
            }
        }
    }
    // The first problem serde found in the text comes again from the tree, in other words.
    let mut seen = Vec::new();
    problems.retain(|(problem, _)| {
        let key = if problem.field.is_empty() { &problem.message } else { &problem.field };
        let new = !seen.contains(key);
        seen.push(key.clone());
        new
    });
    let mut problems: Vec<Problem> = problems
        .into_iter()
        .map(|(mut problem, path)| {
            if let Some(path) = path {
                let stopped = stop_at(yaml_serde::Deserializer::from_str(text), path).err();
                problem.line = stopped.and_then(|e| e.location()).map(|at| at.line());
            }
            problem
        })
        .collect();
    problems.sort_by_key(|problem| problem.line);
    let more = problems.len().saturating_sub(MAX_SHOWN);
    problems.truncate(MAX_SHOWN);
    if let Some(more) = read.and_more(more) {
        problems.push(Problem::new("", None, more));
    }
    Err(problems)
}

/// A `yaml_serde` error as a problem. Its text is `PATH: MESSAGE at line L column C`, the path
/// left out at the top level; the line comes from its location.
fn yaml_problem(error: &yaml_serde::Error) -> Problem {
    let line = error.location().map(|at| at.line());
    let text = error.to_string();
    let text = match text.rfind(" at line ") {
        Some(at) if line.is_some() => &text[..at],
        _ => text.as_str(),
    };
    // A path has no spaces; a message before its first ": " always has some ("invalid type").
    match text.split_once(": ") {
        Some((path, message)) if !path.contains(' ') => problem_of(path, message, line),
        _ => problem_of("", text, line),
    }
}

/// serde's `message` about the value at `path` as a problem: its messages about keys are
/// reworded to name the key as the field and say what to do.
fn problem_of(path: &str, message: &str, line: Option<usize>) -> Problem {
    let field = |key: &str| if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") };
    let message = without_values(message)
        .replace("expected usize", "expected a whole number")
        .replace("expected u64", "expected a whole number");
    match key_of(&message) {
        Some(("missing field", key)) => Problem::new(field(key), line, "is missing: add it"),
        Some(("duplicate field", key)) => Problem::new(field(key), line, "is given twice: keep one"),
        Some(("unknown field", key)) => {
            let known =
                message.split_once("expected one of ").map_or(String::new(), |(_, keys)| format!(" (the keys here are {keys})"));
            Problem::new(field(key), line, format!("is not a key of this format{known}: remove it or correct its spelling"))
        }
        _ if message.contains("expected struct AgentConfig") => Problem::new(path, line, format!("{message}: {NEEDS}")),
        _ if path.is_empty() && !message.starts_with("invalid") => Problem::new(path, line, format!("not valid YAML: {message}")),
        _ => Problem::new(path, line, message),
    }
}

/// `message` without the values serde quotes (`invalid type: string "…"`): the file may not be
/// an agent config at all but a link to one that holds secrets (a `.env`), and an error must
/// not print them.
fn without_values(message: &str) -> String {
    const QUOTED: &str = "string \"";
    let mut out = String::new();
    let mut rest = message;
    while let Some(at) = rest.find(QUOTED) {
        out.push_str(&rest[..at]);
        out.push_str("a string");
        let value = &rest[at + QUOTED.len()..];
        // The value ends at the first quote that no backslash escapes.
        let mut escaped = false;
        let end = value.char_indices().find(|&(_, c)| {
            let closes = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            closes
        });
        rest = end.map_or("", |(i, _)| &value[i + 1..]);
    }
    out.push_str(rest);
    out
}

/// `("missing field", "model")` from "missing field `model`", and the like.
fn key_of(message: &str) -> Option<(&str, &str)> {
    let (what, rest) = message.split_once(" `")?;
    let (key, _) = rest.split_once('`')?;
    Some((what, key))
}
