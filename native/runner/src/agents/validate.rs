//! The checks serde cannot make: the format's version, the id against its directory, the
//! provider, profile and tool names, the limits, and the output schema (through the core's own
//! check, so a config that loads is one a session accepts). Every problem is reported, not just
//! the first.

use openagent_core::approval::{ApprovalMode, Policy};
use openagent_core::llm::catalog::Catalog;
use openagent_core::session::{check_output_schema, SUBAGENT_TOOLS};
use openagent_core::setup::ProviderKind;

use super::config::{AgentConfig, SCHEMA_VERSION};
use super::error::Problem;
use super::profile::{profile_kind, PROFILE_NAMES};
use crate::hooks;

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
    let empty = |value: Option<&String>| value.is_some_and(|v| v.trim().is_empty());
    if empty(Some(&config.name)) {
        problem("name", at("name"), "is empty: give it a value".into());
    }
    if let Err(error) = crate::mcp::check(&config.mcp_servers) {
        problem("mcp_servers", at("mcp_servers"), error.to_string());
    }
    if empty(config.model.as_ref()) {
        problem("model", at("model"), "is empty: give it a value, or leave it out for the provider's default".into());
    }
    let provider = config.provider.as_deref().map(ProviderKind::parse);
    if let Some(Err(error)) = &provider {
        problem("provider", at("provider"), error.to_string());
    }
    // Without a profile or a provider the family is only known at run time: the tools are then
    // checked against every family's.
    let families: Result<Vec<ProviderKind>, ()> = match (config.profile.as_deref(), provider) {
        (Some(name), _) => profile_kind(name).map(|kind| vec![kind]).ok_or_else(|| {
            problem("profile", at("profile"), format!("unknown profile `{name}`; the profiles are {PROFILE_NAMES}"))
        }),
        (None, Some(provider)) => provider.map(|kind| vec![kind]).map_err(|_| ()),
        (None, None) => Ok(["openai", "anthropic", "gemini", "general"].into_iter().filter_map(profile_kind).collect()),
    };
    if let (Ok(families), Some(tools)) = (families, &config.tools) {
        let model = config.model.as_deref().unwrap_or_default();
        let mut offered: Vec<String> = Vec::new();
        for name in
            families.iter().flat_map(|f| openagent_core::setup::profile(*f, model, Catalog::builtin()).tool_registry().names())
        {
            if !offered.contains(&name) {
                offered.push(name);
            }
        }
        let whose = match families[..] {
            [family] => format!("the {} profile's", profile_name(family)),
            _ => "the profiles'".to_owned(),
        };
        let known = |name: &str| offered.iter().any(|t| t == name) || SUBAGENT_TOOLS.contains(&name);
        let tools_line = at("tools");
        for (i, name) in tools.iter().enumerate().filter(|(_, name)| !known(name)) {
            let line = tools_line.and_then(|from| line_containing(text, from, name));
            problem(
                &format!("tools[{i}]"),
                line,
                format!(
                    "unknown tool `{name}`; {whose} tools are {}, and the subagent tools {}",
                    offered.join(", "),
                    SUBAGENT_TOOLS.join(", ")
                ),
            );
        }
    }
    if config.limits.max_result_attempts == Some(0) {
        problem("limits.max_result_attempts", at("limits"), "must be at least 1 (the first submission is an attempt)".into());
    }
    if let Some(permissions) = &config.permissions {
        let policy = Policy { mode: ApprovalMode::default(), rules: permissions.rules.clone() };
        if let Err((index, field, message)) = policy.check() {
            let rule = &permissions.rules[index];
            let needle = match field {
                "command" => rule.command.as_deref(),
                "path" => rule.path.as_deref(),
                _ => None,
            };
            let line = at("permissions").and_then(|from| line_containing(text, from, needle.unwrap_or("tool")));
            problem(&format!("permissions.rules[{index}].{field}"), line, message);
        }
    }
    if let Err((hook, message)) = hooks::check(&config.hooks) {
        let point = hook.split('[').next().unwrap_or_default();
        let line = at("hooks").and_then(|from| line_containing(text, from, point));
        problem(&format!("hooks.{hook}"), line, message);
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
