//! The checks serde cannot make: the format's version, the id against its directory, the
//! provider, profile and tool names, the limits, and the output schema (through the core's own
//! check, so a config that loads is one a session accepts). Every problem is reported, not just
//! the first.

use openagent_core::provider::ProviderKind;
use openagent_core::session::{check_output_schema, SUBAGENT_TOOLS};

use super::config::{AgentConfig, SCHEMA_VERSION};
use super::error::Problem;
use super::profile::{profile_kind, PROFILE_NAMES};

pub fn validate(config: &AgentConfig, dir_name: &str, text: &str) -> Vec<Problem> {
    let at = |key: &str| key_line(text, key);
    let mut problems = Vec::new();
    let mut problem = |field: &str, line: Option<usize>, message: String| problems.push(Problem::new(field, line, message));

    if config.schema != SCHEMA_VERSION {
        problem("schema", at("schema"), format!("is `{}`; this openagent reads `{SCHEMA_VERSION}`", config.schema));
    }
    if config.id != dir_name {
        problem(
            "id",
            at("id"),
            format!(
                "is `{}` but the directory is `{dir_name}`: make them the same (`--agent {dir_name}` finds the agent by its directory)",
                config.id
            ),
        );
    }
    for (key, value) in [("name", &config.name), ("model", &config.model)] {
        if value.trim().is_empty() {
            problem(key, at(key), "is empty: give it a value".into());
        }
    }
    let provider = ProviderKind::parse(&config.provider);
    if let Err(error) = &provider {
        problem("provider", at("provider"), error.to_string());
    }
    let family = match config.profile.as_deref() {
        Some(name) => profile_kind(name).ok_or_else(|| {
            problem("profile", at("profile"), format!("unknown profile `{name}`; the profiles are {PROFILE_NAMES}"))
        }),
        None => provider.map_err(|_| ()),
    };
    if let (Ok(family), Some(tools)) = (family, &config.tools) {
        let offered: Vec<String> = family.profile(&config.model).tool_registry().names();
        let known = |name: &str| offered.iter().any(|t| t == name) || SUBAGENT_TOOLS.contains(&name);
        let tools_line = at("tools");
        for (i, name) in tools.iter().enumerate().filter(|(_, name)| !known(name)) {
            let line = tools_line.and_then(|from| line_containing(text, from, name));
            problem(
                &format!("tools[{i}]"),
                line,
                format!(
                    "unknown tool `{name}`; the {} profile's tools are {}, and the subagent tools {}",
                    profile_name(family),
                    offered.join(", "),
                    SUBAGENT_TOOLS.join(", ")
                ),
            );
        }
    }
    if config.limits.max_result_attempts == Some(0) {
        problem("limits.max_result_attempts", at("limits"), "must be at least 1 (the first submission is an attempt)".into());
    }
    if let Some(schema) = config.output_schema() {
        if let Err(error) = check_output_schema(schema) {
            problem("output.schema", at("output"), format!("cannot be the result's schema: {error}"));
        }
    }
    problems
}

fn profile_name(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::OpenAiCompatible => "general",
        other => other.name(),
    }
}

/// The 1-based line where the top-level `key` is written, if it is written plainly (`key:` at
/// the start of a line): good enough to point at it, and never wrong about which key.
fn key_line(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|line| line.strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with(':')))
        .map(|index| index + 1)
}

/// The first line from `from` (1-based) on that contains `needle`.
fn line_containing(text: &str, from: usize, needle: &str) -> Option<usize> {
    text.lines().enumerate().skip(from - 1).find(|(_, line)| line.contains(needle)).map(|(index, _)| index + 1)
}
