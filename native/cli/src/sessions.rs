//! `openagent sessions`: what the session store holds, read back. `list` the sessions, `show`
//! one, print its `events` (one line each, or the JSONL `--events` writes) or its `result`
//! (seed 003's `{result_text, result_data}`), or `fork` it. A session is named by its id or any
//! unique prefix of it.

use std::path::Path;

use openagent_core::session::{EventData, SessionEvent};
use serde_json::Value;

use openagent_core::runtime::format_rfc3339;

use openagent_runner::new_run_id;
use openagent_runner::stdout::Stdout;
use openagent_runner::terminal::terminal_text;
use openagent_runner::wording::main_argument;
use openagent_runner::{models, resume};
use openagent_store::{
    session_json, SessionFilter, SessionRecord, SessionResult, Shown, Spent, Status, Store, StoreError, StoredEvent,
};

#[derive(Debug, Clone, clap::Subcommand)]
pub enum SessionsCommand {
    /// The sessions, newest first.
    List {
        /// At most N sessions; 0: all of them.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Only sessions in this state.
        #[arg(long, value_parser = ["running", "finished", "interrupted"])]
        status: Option<String>,
        /// Subagents' sessions too.
        #[arg(long)]
        subagents: bool,
        /// A JSON array of the sessions.
        #[arg(long)]
        json: bool,
    },
    /// A session: its task, state, model, times, outcome, parent and subagents.
    Show {
        /// The session's id, or a unique prefix of it.
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// A session's events, one line each.
    Events {
        /// The session's id, or a unique prefix of it.
        id: String,
        /// The internal events as JSONL, exactly as `--events` writes them.
        #[arg(long)]
        json: bool,
        /// Its subagents' events too, in the order they happened (as the run's events.jsonl has them).
        #[arg(long)]
        subagents: bool,
    },
    /// The result of a finished session's last input: {"result_text": ..., "result_data": ...}.
    Result {
        /// The session's id, or a unique prefix of it.
        id: String,
    },
    /// A new session from a stored one's snapshot (its latest, or the latest at or before an
    /// event); prints the new id, to resume with `openagent run --resume ID`. The model is not called.
    Fork {
        /// The session's id, or a unique prefix of it.
        id: String,
        /// Fork from the latest snapshot at or before this event (its `seq`, as `sessions events` numbers it).
        #[arg(long, value_name = "SEQUENCE")]
        at: Option<i64>,
    },
}

/// Runs `command` on the store in `data_dir`; returns the exit code: 0, 1 when the store fails
/// or the session has no result (yet), 2 for a session that is not there.
pub fn run(command: SessionsCommand, data_dir: &Path) -> u8 {
    let mut out = Stdout::default();
    let done = Store::open(data_dir).and_then(|mut store| match command {
        SessionsCommand::List { limit, status, subagents, json } => {
            let filter = SessionFilter {
                status: status.as_deref().and_then(Status::parse),
                subagents,
                limit: (limit > 0).then_some(limit),
            };
            list(&store, &filter, json, &mut out)
        }
        SessionsCommand::Show { id, json } => show(&store, &store.resolve(&id)?, json, &mut out),
        SessionsCommand::Events { id, json, subagents } => events(&store, &store.resolve(&id)?, json, subagents, &mut out),
        SessionsCommand::Result { id } => {
            let result = SessionResult::from(store.result(&store.resolve(&id)?)?);
            print(&mut out, &serde_json::to_string(&result).expect("a result serialises"));
            Ok(())
        }
        SessionsCommand::Fork { id, at } => {
            let now = openagent_host::runtime::system_now_ms();
            let forked = resume::fork(&mut store, &id, at, &new_run_id(now), &format_rfc3339(now))?;
            eprintln!("forked {} after its event {} as:", forked.forked_from, forked.at);
            print(&mut out, &forked.id);
            Ok(())
        }
    });
    match done {
        Ok(()) => out.end(0),
        Err(error) => {
            eprintln!("error: {}", resume::explain(&error));
            if resume::names_no_session(&error) {
                2
            } else {
                1
            }
        }
    }
}

fn list(store: &Store, filter: &SessionFilter, json: bool, out: &mut Stdout) -> Result<(), StoreError> {
    let sessions = store.sessions(filter)?;
    if json {
        print(out, &serde_json::to_string(&sessions).expect("sessions serialise"));
        return Ok(());
    }
    if sessions.is_empty() {
        eprintln!("no sessions in {}", store.path().display());
        return Ok(());
    }
    let width = sessions.iter().map(|s| s.info.id.len()).max().unwrap_or(0);
    let header = format!(
        "{:width$}  {:11}  {:15}  {:19}  {:20}  {:>9}  {:>9}  TASK",
        "ID", "STATUS", "EXIT", "CREATED", "MODEL", "TOKENS", "COST"
    );
    print(out, &header);
    for SessionRecord { info, status, exit_reason, spent, .. } in &sessions {
        let created = info.created_at.get(..19).unwrap_or(&info.created_at).replace('T', " ");
        let exit = exit_reason.as_deref().unwrap_or("-");
        let task = one_line(&info.task, 60);
        let spent = spent.unwrap_or_default();
        let (tokens, cost) = (spent.total_tokens, cost(&spent));
        print(
            out,
            &format!(
                "{:width$}  {status:11}  {exit:15}  {created:19}  {:20}  {tokens:>9}  {cost:>9}  {task}",
                info.id, info.model
            ),
        );
    }
    Ok(())
}

fn show(store: &Store, id: &str, json: bool, out: &mut Stdout) -> Result<(), StoreError> {
    if json {
        print(out, &session_json(store, id)?.to_string());
        return Ok(());
    }
    let Shown { session, outcome, subagents, events } = Shown::load(store, id)?;
    let status = match &session.exit_reason {
        Some(reason) => format!("{} ({reason})", session.status),
        None => session.status.to_string(),
    };
    let outcome = outcome.map(|o| format!("{}: {}", word(&o.status), one_line(&o.summary, 200)));
    let info = &session.info;
    let spent = session.spent.unwrap_or_default();
    let mut lines = vec![
        ("id", info.id.clone()),
        ("task", one_line(&info.task, 200)),
        ("status", status),
        ("model", format!("{} · {}", info.provider, info.model)),
        ("directory", info.working_directory.clone()),
        ("created", info.created_at.clone()),
        ("finished", session.finished_at.clone().unwrap_or_else(|| "-".into())),
        ("outcome", outcome.unwrap_or_else(|| "-".into())),
        ("events", events.to_string()),
        ("used", format!("{} tokens · {}", spent.total_tokens, cost(&spent))),
    ];
    lines.extend(info.parent_id.clone().map(|parent| ("parent", parent)));
    if let (Some(from), Some(at)) = (&session.forked_from, session.forked_at) {
        lines.push(("forked", format!("from {from} after its event {at}")));
    }
    let subagent = |s: &SessionRecord| format!("{} · {} · {}", s.info.id, s.status, one_line(&s.info.task, 80));
    lines.extend(subagents.iter().map(|s| ("subagent", subagent(s))));
    for (label, value) in lines {
        print(out, &format!("{label:10} {value}"));
    }
    Ok(())
}

/// A session's cost, subagents included; `-` when its model has no price in the catalog.
fn cost(spent: &Spent) -> String {
    spent.cost_usd.map_or_else(|| "-".into(), models::dollars)
}

fn events(store: &Store, id: &str, json: bool, subagents: bool, out: &mut Stdout) -> Result<(), StoreError> {
    let events = if subagents { store.events_with_subagents(id)? } else { store.events_after(id, 0, None)? };
    for event in &events {
        if json {
            print(out, &event.data);
        } else {
            print(out, &event_line(event, id));
        }
    }
    Ok(())
}

/// `  12  10:04:05.120  tool_call_end  read_file ok · 3 ms · hello`, with the subagent named
/// before the kind when the event is one of `session`'s subagents'.
fn event_line(event: &StoredEvent, session: &str) -> String {
    let time = event.timestamp.get(11..23).unwrap_or(&event.timestamp);
    let agent = event.session_id.strip_prefix(session).and_then(|rest| rest.strip_prefix('/'));
    let kind = match agent {
        Some(agent) => format!("[{agent}] {}", event.kind),
        None => event.kind.clone(),
    };
    let summary = match serde_json::from_str::<SessionEvent>(&event.data) {
        Ok(parsed) => summary(&parsed.data),
        // An event this build does not know (a newer openagent wrote it): its raw data.
        Err(_) => serde_json::from_str::<Value>(&event.data).map(|v| v["data"].to_string()).unwrap_or_default(),
    };
    format!("{:>4}  {time}  {kind:24}  {}", event.seq, one_line(&summary, 120))
}

/// What an event says, in a few words.
fn summary(data: &EventData) -> String {
    match data {
        EventData::SessionStart { provider, model, working_directory } => format!("{provider} · {model} · {working_directory}"),
        EventData::SessionEnd { reason, .. } => reason.clone(),
        EventData::UserInput { content, images } if !images.is_empty() => format!("{content} · images: {}", images.join(", ")),
        EventData::UserInput { content, .. } | EventData::SteeringInjected { content } => content.clone(),
        EventData::ProcessingEnd { reason, .. } => word(reason),
        EventData::TurnStart { turn } => format!("turn {turn}"),
        EventData::ProviderRetry { attempt, delay_ms, message, .. } => format!("retry {attempt} in {delay_ms} ms: {message}"),
        EventData::AssistantTextStart { .. } => String::new(),
        EventData::AssistantTextDelta { delta }
        | EventData::AssistantReasoningDelta { delta }
        | EventData::ToolCallOutputDelta { delta, .. } => delta.clone(),
        EventData::AssistantTextEnd { text, tool_call_count: 0, .. } => text.clone(),
        EventData::AssistantTextEnd { text, tool_call_count, .. } if text.trim().is_empty() => {
            format!("{tool_call_count} tool calls")
        }
        EventData::AssistantTextEnd { text, tool_call_count, .. } => format!("{text} · {tool_call_count} tool calls"),
        EventData::ToolCallStart { tool_name, arguments, .. } => format!("{tool_name} {}", main_argument(arguments)),
        EventData::ApprovalRequested { tool_name, reason, always, .. } => format!("{tool_name} · {reason} · always: {always}"),
        EventData::ToolDecision { tool_name, decision, reason, .. } => {
            format!("{tool_name} {}{}", word(decision), reason.as_ref().map(|r| format!(": {r}")).unwrap_or_default())
        }
        EventData::ToolCallEnd { tool_name, output, error, duration_ms, .. } => match error {
            Some(error) => format!("{tool_name} failed · {duration_ms} ms · {error}"),
            None => format!("{tool_name} ok · {duration_ms} ms · {}", output.as_deref().unwrap_or_default()),
        },
        EventData::Result { outcome, .. } => format!("{}: {}", word(&outcome.status), outcome.summary),
        EventData::TurnLimit { limit, count } => format!("{limit} reached ({count})"),
        EventData::CompactionStart { reason, tokens_before, context_window } => {
            format!("{} · {tokens_before} of {context_window} tokens", word(reason))
        }
        EventData::CompactionEnd { reason, error: Some(error), .. } => format!("{} · failed: {error}", word(reason)),
        EventData::CompactionEnd { reason, tokens_before, tokens_after, summarized_turns, kept_turns, error: None } => {
            format!(
                "{} · {tokens_before} → {tokens_after} tokens · {summarized_turns} summarised, {kept_turns} kept",
                word(reason)
            )
        }
        EventData::LoopDetection { message } | EventData::Warning { message } | EventData::Error { message, .. } => {
            message.clone()
        }
    }
}

/// A unit enum's serialised name (`completed`, `allow`, `partial_success`).
fn word(value: &impl serde::Serialize) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// `text` on one line (runs of whitespace, newlines included, become one space), cut to `max`
/// characters with an ellipsis, its control characters shown, not sent to the terminal.
fn one_line(text: &str, max: usize) -> String {
    let line = terminal_text(text).split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

/// One line on stdout; [`Stdout::end`] says at the end whether they all got there.
fn print(out: &mut Stdout, line: &str) {
    out.write(&format!("{line}\n"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_joins_lines_and_cuts_on_a_character_boundary() {
        assert_eq!(one_line("read\n  the   notes\n", 60), "read the notes");
        assert_eq!(one_line("héllo wörld", 4), "héll…");
        assert_eq!(one_line("\x1b[2Jdone\u{202e}", 60), "␛[2Jdone�");
    }

    #[test]
    fn an_event_line_names_the_subagent_and_says_what_happened() {
        let event = SessionEvent {
            timestamp: "2026-01-01T10:04:05.120Z".into(),
            session_id: "r_1/agent_1".into(),
            data: EventData::ToolCallEnd {
                call_id: "c1".into(),
                tool_name: "read_file".into(),
                output: Some("hello\nhello".into()),
                error: None,
                duration_ms: 3,
            },
        };
        let stored = StoredEvent {
            session_id: event.session_id.to_string(),
            seq: 12,
            kind: event.kind().into(),
            timestamp: event.timestamp.to_string(),
            data: serde_json::to_string(&event).unwrap(),
        };
        assert_eq!(event_line(&stored, "r_1"), "  12  10:04:05.120  [agent_1] tool_call_end   read_file ok · 3 ms · hello hello");
        assert_eq!(
            event_line(&stored, "r_1/agent_1"),
            "  12  10:04:05.120  tool_call_end             read_file ok · 3 ms · hello hello"
        );
    }
}
