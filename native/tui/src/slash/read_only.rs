//! The commands that only read, answered at once, also while a run goes on.

use crossterm::style::Color;
use openagent_core::approval::ApprovalMode;
use openagent_core::llm::Usage;
use openagent_core::sandbox::SandboxMode;
use openagent_core::Session;

use crate::help_lines;
use crate::text::{self, Line};
use crate::view::View;
use openagent_runner::Launcher;

/// Answers a command that only reads, at once (also while a run goes on): `/help`, `/cost`,
/// `/status`, `/mcp`, `/tools` (which opens and closes output on the screen), and `/model`,
/// `/effort`, `/approval` or `/sandbox` without an argument. False for the others, which change the session.
pub(crate) fn answer(name: &str, arg: &str, session: &Session, agent: &Launcher, view: &mut View, in_store: bool) -> bool {
    let lines = match (name, arg) {
        ("help", _) => help_lines(),
        ("cost", _) => info(cost(&session.total_usage(), &agent.model)),
        ("status", _) => info(status(session, agent, view.context, in_store)),
        ("mcp", _) => mcp(agent),
        ("model", "") => {
            let provider = agent.settings.kind.name();
            let known: Vec<String> = agent.catalog.list(Some(provider)).iter().take(8).map(|m| m.id.clone()).collect();
            let mut lines = vec![("model", agent.model.clone())];
            if !known.is_empty() {
                lines.push(("known", known.join(", ")));
            }
            let mut lines = info(lines);
            lines.push(Line::styled("  /model NAME switches for the next input; the conversation stays", text::dim()));
            lines
        }
        ("effort", "") => {
            let now = session.config().reasoning_effort.unwrap_or_else(|| "the model's default".into());
            let mut lines = info(vec![("effort", now)]);
            lines.push(Line::styled("  /effort low|medium|high|minimal|off sets it, from the next request", text::dim()));
            lines
        }
        ("approval", "") => {
            info(vec![("approval", agent.policy.mode.name().to_owned()), ("modes", ApprovalMode::NAMES.to_owned())])
        }
        ("sandbox", "") => {
            let mut lines = info(vec![("sandbox", agent.sandbox.describe()), ("modes", SandboxMode::NAMES.to_owned())]);
            lines.push(Line::styled(
                "  /sandbox MODE sets it, /sandbox network on|off the network; from the next input",
                text::dim(),
            ));
            lines
        }
        ("tools", "") => view.tool_list(),
        ("tools", number) => {
            match number.trim_start_matches('#').parse() {
                Ok(number) => view.toggle_output(Some(number)),
                Err(_) => view.screen.note(Color::Red, "✗", &format!("{number:?} is not a call's number: /tools lists them")),
            }
            return true;
        }
        _ => return false,
    };
    view.screen.lines(lines);
    true
}

/// Key and value pairs as aligned lines.
fn info(pairs: Vec<(&str, String)>) -> Vec<Line> {
    pairs
        .into_iter()
        .map(|(key, value)| {
            let mut line = Line::styled(format!("  {key:<10}"), text::dim());
            line.push(value, Default::default());
            line
        })
        .collect()
}

/// `/cost`: the conversation's tokens and what they cost; nothing spent is not an unknown price.
fn cost(usage: &Usage, model: &str) -> Vec<(&'static str, String)> {
    let mut lines =
        vec![("input", format!("{} tokens", usage.input_tokens)), ("output", format!("{} tokens", usage.output_tokens))];
    if let Some(read) = usage.cache_read_tokens {
        lines.push(("cached", format!("{read} tokens read from the cache")));
    }
    if let Some(reasoning) = usage.reasoning_tokens {
        lines.push(("reasoning", format!("{reasoning} tokens")));
    }
    let cost = match usage.cost_usd {
        Some(dollars) => openagent_runner::models::dollars(dollars),
        None if usage.input_tokens + usage.output_tokens == 0 => "nothing spent yet".to_owned(),
        None => format!("no price known for {model}"),
    };
    lines.push(("cost", cost));
    lines
}

fn status(session: &Session, agent: &Launcher, context: (u64, Option<u64>), in_store: bool) -> Vec<(&'static str, String)> {
    let context = match context {
        (used, Some(window)) if window > 0 => format!("{used} of {window} tokens ({}%)", used * 100 / window),
        (used, _) => format!("{used} tokens (window unknown)"),
    };
    let stored = if in_store { "" } else { " (stored at its first input)" };
    vec![
        ("provider", agent.settings.kind.to_string()),
        ("model", agent.model.clone()),
        ("directory", agent.cwd.display().to_string()),
        ("session", format!("{}{stored}", session.id())),
        ("approval", agent.policy.mode.name().to_owned()),
        ("sandbox", agent.sandbox.describe()),
        ("context", context),
        ("tools", session.tool_names().join(", ")),
    ]
}

fn mcp(agent: &Launcher) -> Vec<Line> {
    if agent.mcp.is_empty() {
        let mut line = Line::styled("· ", text::fg(Color::DarkGrey));
        line.push("no MCP servers are configured (.openagent/mcp.json, or the agent config)", Default::default());
        return vec![line];
    }
    let mut lines = Vec::new();
    for server in &agent.mcp {
        let mut line = Line::styled(format!("  {} ", server.name), text::bold());
        line.push(server.config.describe_with_sandbox(), text::dim());
        lines.push(line);
        match &server.connection {
            Ok((_, tools)) => {
                let names: Vec<&str> = tools.tools.iter().map(|tool| tool.definition.name.as_str()).collect();
                lines.push(Line::plain(format!("    {} tools: {}", names.len(), names.join(", "))));
            }
            Err(error) => lines.push(Line::styled(format!("    failed: {error}"), text::fg(Color::Red))),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_spent_is_not_an_unknown_price() {
        let shown = |usage: &Usage| cost(usage, "claude-sonnet-4-5").pop().unwrap().1;
        assert_eq!(shown(&Usage::default()), "nothing spent yet");
        assert_eq!(shown(&Usage::new(1_000, 10)), "no price known for claude-sonnet-4-5");
        let priced = Usage { cost_usd: Some(0.0123), ..Usage::new(1_000, 10) };
        assert_eq!(shown(&priced), openagent_runner::models::dollars(0.0123));
    }
}
