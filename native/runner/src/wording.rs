//! The words every front end shares for a run: a tool call's main argument and its closing
//! detail, an input's summary line.

use serde_json::Value;

use crate::projection::RunEnd;

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// An input's closing line: how it ended, turns, tool calls, tokens, cost and time.
pub fn summary(end: &RunEnd) -> String {
    let cost = end.usage.cost_usd.map(|dollars| format!(" · {}", crate::models::dollars(dollars))).unwrap_or_default();
    format!(
        "{} · {} turn{} · {} tool call{} · {} tokens{cost} · {:.1}s",
        end.exit_reason.replace('_', " "),
        end.turns,
        plural(end.turns),
        end.tool_calls,
        plural(end.tool_calls),
        end.usage.total_tokens,
        end.duration_ms as f64 / 1000.0
    )
}

/// What a finished tool call's line says after its argument: `· 12 lines · 3ms`, or the first
/// line of its error.
pub fn tool_detail(output: Option<&str>, error: Option<&str>, duration_ms: u64) -> String {
    let time = if duration_ms >= 1000 { format!("{:.1}s", duration_ms as f64 / 1000.0) } else { format!("{duration_ms}ms") };
    let lines = output.map_or(0, |o| o.lines().count());
    let detail = match error {
        Some(error) => first_line(error, 100).to_owned(),
        None => format!("{lines} line{}", plural(lines)),
    };
    format!("· {detail} · {time}")
}

/// The first line of `text`, cut to `max` characters.
pub fn first_line(text: &str, max: usize) -> &str {
    let line = text.lines().next().unwrap_or("");
    line.char_indices().nth(max).map_or(line, |(at, _)| &line[..at])
}

/// The argument that best says what a call does (`command`, `path`, `pattern`, ...), for
/// the tool line; the whole arguments when none is known.
pub fn main_argument(arguments: &Value) -> String {
    const KEYS: [&str; 8] = ["command", "file_path", "path", "pattern", "absolute_path", "dir_path", "query", "agent_id"];
    let found = KEYS.iter().find_map(|key| arguments.get(*key).and_then(Value::as_str));
    let text = found.map_or_else(|| arguments.to_string(), str::to_owned);
    first_line(&text, 80).to_owned()
}
