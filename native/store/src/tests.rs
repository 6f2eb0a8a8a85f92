use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use openagent_core::session::{AgentOutcome, EventData, OutcomeStatus, SessionEvent, SessionStatus, StopReason};
use rusqlite::params;
use serde_json::json;

use super::*;

/// A data directory of its own, removed when dropped.
struct DataDir(PathBuf);

impl DataDir {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("openagent-store-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::SeqCst));
        Self(std::env::temp_dir().join(name))
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn new_session(id: &str, created_at: &str) -> SessionInfo {
    SessionInfo {
        id: id.into(),
        parent_id: None,
        task: "fix the bug".into(),
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        working_directory: "/work".into(),
        created_at: created_at.into(),
        config: Some(json!({"config_fingerprint": "fnv1a64:0123456789abcdef"})),
    }
}

fn event(session_id: &str, second: u32, data: EventData) -> SessionEvent {
    SessionEvent { timestamp: format!("2026-01-01T00:00:{second:02}.000Z").into(), session_id: session_id.into(), data }
}

fn result_event(session_id: &str, second: u32, text: &str, data: Option<serde_json::Value>) -> SessionEvent {
    let outcome = AgentOutcome::new(OutcomeStatus::Done, "The model finished its answer.");
    event(session_id, second, EventData::Result { result_text: text.into(), result_data: data, outcome })
}

fn append(store: &mut Store, seq: i64, event: &SessionEvent) {
    let json = serde_json::to_string(event).unwrap();
    store.append_event(&event.session_id, seq, event, &json).unwrap();
}

/// The pid of a process that has exited and been reaped.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[test]
fn open_creates_the_versioned_schema_in_wal_mode_and_reopens_it_as_it_is() {
    let dir = DataDir::new();
    let mut store = Store::open(&dir.0.join("nested")).unwrap();
    assert_eq!(store.path(), dir.0.join("nested").join(DATABASE));
    let version: i64 = store.conn.query_row("PRAGMA user_version", [], |row| row.get(0)).unwrap();
    let mode: String = store.conn.query_row("PRAGMA journal_mode", [], |row| row.get(0)).unwrap();
    assert_eq!((version, mode.as_str()), (schema::VERSION, "wal"));
    store.create_session(&new_session("r_1", "2026-01-01T00:00:00.000Z")).unwrap();
    drop(store);

    let store = Store::open(&dir.0.join("nested")).unwrap();
    assert_eq!(store.session("r_1").unwrap().info.task, "fix the bug");
}

#[test]
fn a_store_from_a_newer_openagent_is_refused() {
    let dir = DataDir::new();
    let store = Store::open(&dir.0).unwrap();
    store.conn.pragma_update(None, "user_version", schema::VERSION + 1).unwrap();
    drop(store);
    let refused = Store::open(&dir.0).err();
    assert_eq!(refused, Some(StoreError::TooNew { found: schema::VERSION + 1, known: schema::VERSION }));
}

#[test]
fn events_are_read_back_in_order_from_any_seq() {
    let dir = DataDir::new();
    let mut store = Store::open(&dir.0).unwrap();
    store.create_session(&new_session("r_1", "2026-01-01T00:00:00.000Z")).unwrap();
    let events = [
        event("r_1", 1, EventData::UserInput { content: "fix the bug".into(), images: vec![] }),
        event("r_1", 2, EventData::TurnStart { turn: 1 }),
        event("r_1", 3, EventData::AssistantTextDelta { delta: "Done.".into() }),
    ];
    for (seq, event) in (1..).zip(&events) {
        append(&mut store, seq, event);
    }
    let all = store.events_after("r_1", 0, None).unwrap();
    assert_eq!(all.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(all[1].kind, "turn_start");
    assert_eq!(all[1].timestamp, "2026-01-01T00:00:02.000Z");
    let parsed: SessionEvent = serde_json::from_str(&all[2].data).unwrap();
    assert_eq!(parsed, events[2]);
    let tail = store.events_after("r_1", 1, Some(1)).unwrap();
    assert_eq!((tail.len(), tail[0].seq), (1, 2));
    assert!(store.events_after("r_1", 3, None).unwrap().is_empty());
    assert_eq!(store.event_count("r_1").unwrap(), 3);
    // A seq is written once: a second writer of the same event is refused, not duplicated.
    let json = serde_json::to_string(&events[0]).unwrap();
    assert!(matches!(store.append_event("r_1", 1, &events[0], &json), Err(StoreError::Database(_))));
}

#[test]
fn the_result_is_given_only_for_a_finished_session_that_has_one() {
    let dir = DataDir::new();
    let mut store = Store::open(&dir.0).unwrap();
    assert_eq!(store.result("r_none").err(), Some(StoreError::SessionNotFound("r_none".into())));

    store.create_session(&new_session("r_1", "2026-01-01T00:00:00.000Z")).unwrap();
    append(&mut store, 1, &result_event("r_1", 1, "first answer", None));
    let not_finished = StoreError::NotFinished { id: "r_1".into(), status: Status::Running };
    assert_eq!(store.result("r_1").err(), Some(not_finished));
    // An interactive session's later input: the latest result is the session's.
    append(&mut store, 2, &result_event("r_1", 2, "second answer", Some(json!({"files": 2}))));
    store.finish_session("r_1", "completed", "2026-01-01T00:00:03.000Z").unwrap();
    let result = store.result("r_1").unwrap();
    assert_eq!((result.result_text.as_str(), result.result_data), ("second answer", Some(json!({"files": 2}))));
    assert_eq!(result.outcome.status, OutcomeStatus::Done);

    store.create_session(&new_session("r_2", "2026-01-01T00:00:00.000Z")).unwrap();
    store.finish_session("r_2", "provider_error", "2026-01-01T00:00:01.000Z").unwrap();
    assert_eq!(store.result("r_2").err(), Some(StoreError::NoResult("r_2".into())));
}

#[test]
fn a_running_session_whose_writer_died_reads_as_interrupted_and_is_marked_so() {
    let dir = DataDir::new();
    let mut store = Store::open(&dir.0).unwrap();
    for id in ["r_dead", "r_reused", "r_alive"] {
        store.create_session(&new_session(id, "2026-01-01T00:00:00.000Z")).unwrap();
    }
    append(&mut store, 1, &event("r_dead", 7, EventData::TurnStart { turn: 1 }));
    store.conn.execute("UPDATE sessions SET writer_pid = ?1 WHERE id = 'r_dead'", params![dead_pid()]).unwrap();
    // This process's pid, but a start time it never had: the pid was reused.
    store.conn.execute("UPDATE sessions SET writer_started = 1 WHERE id = 'r_reused'", []).unwrap();

    let dead = store.session("r_dead").unwrap();
    assert_eq!((dead.status, dead.finished_at.as_deref()), (Status::Interrupted, Some("2026-01-01T00:00:07.000Z")));
    assert_eq!(store.session("r_reused").unwrap().status, Status::Interrupted);
    assert_eq!(store.session("r_alive").unwrap().status, Status::Running);
    let stored: String = store.conn.query_row("SELECT status FROM sessions WHERE id = 'r_dead'", [], |row| row.get(0)).unwrap();
    assert_eq!(stored, "interrupted");
    let interrupted = StoreError::NotFinished { id: "r_dead".into(), status: Status::Interrupted };
    assert_eq!(store.result("r_dead").err(), Some(interrupted));
}

#[test]
fn sessions_are_listed_newest_first_with_filters_and_found_by_a_unique_prefix() {
    let dir = DataDir::new();
    let mut store = Store::open(&dir.0).unwrap();
    store.create_session(&new_session("r_a1", "2026-01-01T00:00:01.000Z")).unwrap();
    store.create_session(&new_session("r_a2", "2026-01-01T00:00:02.000Z")).unwrap();
    store.create_session(&new_session("r_b3", "2026-01-01T00:00:02.000Z")).unwrap();
    store
        .create_session(&SessionInfo {
            parent_id: Some("r_a1".into()),
            ..new_session("r_a1/agent_1", "2026-01-01T00:00:03.000Z")
        })
        .unwrap();
    store.finish_session("r_a2", "completed", "2026-01-01T00:00:04.000Z").unwrap();

    let ids = |filter: SessionFilter| store.sessions(&filter).unwrap().into_iter().map(|s| s.info.id).collect::<Vec<_>>();
    assert_eq!(ids(SessionFilter::default()), ["r_b3", "r_a2", "r_a1"]);
    assert_eq!(ids(SessionFilter { subagents: true, limit: Some(2), ..SessionFilter::default() }), ["r_a1/agent_1", "r_b3"]);
    assert_eq!(ids(SessionFilter { status: Some(Status::Finished), ..SessionFilter::default() }), ["r_a2"]);
    assert_eq!(store.subagents("r_a1").unwrap()[0].info.id, "r_a1/agent_1");
    assert_eq!(store.session("r_a1").unwrap().info.config, Some(json!({"config_fingerprint": "fnv1a64:0123456789abcdef"})));

    assert_eq!(store.resolve("r_b").unwrap(), "r_b3");
    assert_eq!(store.resolve("r_a1").unwrap(), "r_a1", "an exact id wins over the longer ones it prefixes");
    assert!(matches!(store.resolve("r_a"), Err(StoreError::Ambiguous { matches, .. }) if matches.len() == 3));
    assert_eq!(store.resolve("r_c").err(), Some(StoreError::SessionNotFound("r_c".into())));
}

#[test]
fn the_recorder_makes_subagents_sessions_of_their_own_under_their_parent() {
    let dir = DataDir::new();
    let mut recorder = Recorder::start(&dir.0, new_session("r_1", "2026-01-01T00:00:00.000Z")).unwrap();
    let child = "r_1/agent_1";
    let stream = [
        event("r_1", 1, EventData::UserInput { content: "fix the bug".into(), images: vec![] }),
        event(
            child,
            2,
            EventData::SessionStart {
                provider: "anthropic".into(),
                model: "claude-haiku-4-5".into(),
                working_directory: "/work/sub".into(),
            },
        ),
        event(child, 3, EventData::UserInput { content: "write the test".into(), images: vec![] }),
        event("r_1", 4, EventData::TurnStart { turn: 2 }),
        result_event(child, 5, "wrote it", None),
        event(child, 6, EventData::ProcessingEnd { state: SessionStatus::Idle, reason: StopReason::Completed }),
        result_event("r_1", 7, "fixed", None),
    ];
    for event in &stream {
        recorder.event(event, &serde_json::to_string(event).unwrap()).unwrap();
    }
    recorder.finish("completed", "2026-01-01T00:00:08.000Z").unwrap();

    let store = Store::open(&dir.0).unwrap();
    let SessionRecord { info, status, exit_reason, .. } = store.session(child).unwrap();
    assert_eq!(info.parent_id.as_deref(), Some("r_1"));
    assert_eq!(
        (info.task.as_str(), info.model.as_str(), info.working_directory.as_str()),
        ("write the test", "claude-haiku-4-5", "/work/sub")
    );
    assert_eq!((status, exit_reason.as_deref(), info.config), (Status::Finished, Some("completed"), None));
    assert_eq!(store.result(child).unwrap().result_text, "wrote it");
    assert_eq!(store.events_after(child, 0, None).unwrap().iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3, 4]);
    assert_eq!(store.events_after("r_1", 0, None).unwrap().len(), 3);
    let order: Vec<String> = store.events_with_subagents("r_1").unwrap().into_iter().map(|e| e.data).collect();
    let written: Vec<String> = stream.iter().map(|e| serde_json::to_string(e).unwrap()).collect();
    assert_eq!(order, written, "the whole stream, as it came");
    assert_eq!(store.result("r_1").unwrap().result_text, "fixed");
}

#[test]
fn a_store_of_the_first_version_is_upgraded_and_keeps_its_sessions() {
    let dir = DataDir::new();
    std::fs::create_dir_all(&dir.0).unwrap();
    let old = rusqlite::Connection::open(dir.0.join(DATABASE)).unwrap();
    old.execute_batch(schema::MIGRATIONS[0]).unwrap();
    old.pragma_update(None, "user_version", 1).unwrap();
    old.execute(
        "INSERT INTO sessions (id, task, provider, model, working_directory, status, created_at, writer_pid)
         VALUES ('r_old', 'an old task', 'anthropic', 'claude-sonnet-4-5', '/work', 'finished', '2026-01-01T00:00:00.000Z', 1)",
        [],
    )
    .unwrap();
    drop(old);

    let mut store = Store::open(&dir.0).unwrap();
    let version: i64 = store.conn.query_row("PRAGMA user_version", [], |row| row.get(0)).unwrap();
    assert_eq!(version, schema::VERSION);
    let old = store.session("r_old").unwrap();
    assert_eq!((old.info.task.as_str(), old.forked_from, old.forked_at), ("an old task", None, None));
    assert_eq!(store.snapshot("r_old", None).err(), Some(StoreError::NoSnapshot { id: "r_old".into(), at: None }));
    store.save_snapshot("r_old", 0, true, "2026-01-01T00:00:01.000Z", "{}").unwrap();
    assert_eq!(store.snapshot("r_old", None).unwrap().seq, 0);
}

#[test]
fn snapshots_are_kept_at_each_input_end_and_rolled_during_an_input() {
    let dir = DataDir::new();
    let mut recorder = Recorder::start(&dir.0, new_session("r_1", "2026-01-01T00:00:00.000Z")).unwrap();
    let emit = |recorder: &mut Recorder, second: u32, data: EventData| {
        let event = event("r_1", second, data);
        recorder.event(&event, &serde_json::to_string(&event).unwrap()).unwrap();
    };
    emit(&mut recorder, 1, EventData::UserInput { content: "fix the bug".into(), images: vec![] });
    emit(&mut recorder, 2, EventData::TurnStart { turn: 1 });
    recorder.snapshot("turn 1", false, "t").unwrap();
    emit(&mut recorder, 3, EventData::TurnStart { turn: 2 });
    recorder.snapshot("turn 2", false, "t").unwrap();
    recorder.snapshot("input 1", true, "t").unwrap();
    emit(&mut recorder, 4, EventData::UserInput { content: "and the test".into(), images: vec![] });
    emit(&mut recorder, 5, EventData::TurnStart { turn: 3 });
    recorder.snapshot("turn 3", false, "t").unwrap();
    recorder.finish("interrupted", "2026-01-01T00:00:06.000Z").unwrap();

    let store = Store::open(&dir.0).unwrap();
    let rows: Vec<(i64, bool, String)> = {
        let mut statement = store.conn.prepare("SELECT seq, input_end, snapshot FROM snapshots ORDER BY seq").unwrap();
        statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?))).unwrap().map(Result::unwrap).collect()
    };
    // The rolling snapshot of the first input was replaced, then dropped when it ended; the
    // second input's is its latest turn.
    assert_eq!(rows, [(3, true, "input 1".to_owned()), (5, false, "turn 3".to_owned())]);
    let latest = store.snapshot("r_1", None).unwrap();
    assert_eq!((latest.seq, latest.json), (5, Ok("turn 3".to_owned())));
    assert_eq!(store.snapshot("r_1", Some(4)).unwrap().json, Ok("input 1".to_owned()));
    assert_eq!(store.snapshot("r_1", Some(2)).err(), Some(StoreError::NoSnapshot { id: "r_1".into(), at: Some(2) }));

    // A row that does not hold text is reported as such, not as a failed query.
    store.conn.execute("UPDATE snapshots SET snapshot = x'00ff' WHERE seq = 5", []).unwrap();
    let not_text = store.snapshot("r_1", None).unwrap().json.unwrap_err().to_string();
    assert!(not_text.starts_with("the stored text is not UTF-8"), "{not_text}");

    // Taken up again, the session's events are numbered on from the last stored.
    let info = store.session("r_1").unwrap().info;
    drop(store);
    let mut recorder = Recorder::reopen(&dir.0, info).unwrap();
    let event = event("r_1", 7, EventData::UserInput { content: "go on".into(), images: vec![] });
    recorder.event(&event, &serde_json::to_string(&event).unwrap()).unwrap();
    let store = Store::open(&dir.0).unwrap();
    assert_eq!(store.events_after("r_1", 5, None).unwrap()[0].seq, 6);
    assert_eq!(store.session("r_1").unwrap().status, Status::Running);
}

#[test]
fn a_fork_is_stored_finished_with_its_origin_and_the_latest_session_of_a_directory_is_found() {
    let dir = DataDir::new();
    let mut store = Store::open(&dir.0).unwrap();
    assert_eq!(store.latest_in("/work").err(), Some(StoreError::NoSessionIn("/work".into())));
    store.create_session(&new_session("r_busy", "2026-01-01T00:00:00.000Z")).unwrap();
    store.create_session(&new_session("r_new", "2026-01-01T00:00:05.000Z")).unwrap();
    store
        .create_session(&SessionInfo {
            parent_id: Some("r_new".into()),
            ..new_session("r_new/agent_1", "2026-01-01T00:00:09.000Z")
        })
        .unwrap();
    // The older session worked last: its latest event is after the newer one's creation.
    append(&mut store, 1, &event("r_busy", 8, EventData::TurnStart { turn: 1 }));
    assert_eq!(store.latest_in("/work").unwrap(), "r_busy");

    let fork = SessionInfo { created_at: "2026-01-01T00:00:10.000Z".into(), ..new_session("r_fork", "") };
    store.create_fork(&fork, "r_busy", 1, "{\"schema\":\"openagent.session/1\"}").unwrap();
    let stored = store.session("r_fork").unwrap();
    assert_eq!(
        (stored.status, stored.forked_from.as_deref(), stored.forked_at, stored.finished_at.as_deref()),
        (Status::Finished, Some("r_busy"), Some(1), Some("2026-01-01T00:00:10.000Z"))
    );
    assert_eq!(
        store.snapshot("r_fork", None).unwrap(),
        StoredSnapshot { seq: 0, json: Ok("{\"schema\":\"openagent.session/1\"}".into()) }
    );
    assert_eq!(store.latest_in("/work").unwrap(), "r_fork", "a fork without events counts from its creation");
}

#[test]
fn a_session_kept_open_by_another_live_process_is_found_as_such() {
    let dir = DataDir::new();
    let mut store = Store::open(&dir.0).unwrap();
    store.create_session(&new_session("r_1", "2026-01-01T00:00:00.000Z")).unwrap();
    assert_eq!(store.open_elsewhere("r_1").unwrap(), None, "no events: nobody has it open");
    append(&mut store, 1, &event("r_1", 1, EventData::TurnStart { turn: 1 }));
    store.finish_session("r_1", "completed", "2026-01-01T00:00:02.000Z").unwrap();
    assert_eq!(store.open_elsewhere("r_1").unwrap(), None, "this process's own");

    let mut other = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    store.conn.execute("UPDATE sessions SET writer_pid = ?1, writer_started = NULL", params![other.id()]).unwrap();
    assert_eq!(store.open_elsewhere("r_1").unwrap(), Some(other.id()));
    other.kill().unwrap();
    other.wait().unwrap();
    assert_eq!(store.open_elsewhere("r_1").unwrap(), None, "its process is gone");
}

/// Closing leaves the log for the next run (no copy into the database, no fsyncs on the way out),
/// and a commit that grows it past its bound copies it in, so the next open has a small log to read.
#[test]
fn the_log_outlives_the_store_closing_and_stays_bounded() {
    let dir = DataDir::new();
    let wal = dir.0.join(format!("{DATABASE}-wal"));
    let pages = |bytes: u64| bytes / 4096;
    {
        let mut store = Store::open(&dir.0).unwrap();
        store.create_session(&new_session("r_1", "2026-01-01T00:00:00.000Z")).unwrap();
        append(&mut store, 1, &event("r_1", 1, EventData::UserInput { content: "hi".into(), images: Vec::new() }));
    }
    let kept = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    assert!(kept > 0, "the log is kept when the store closes");
    let mut largest = 0;
    for run in 2..40 {
        let mut store = Store::open(&dir.0).unwrap();
        let id = format!("r_{run}");
        store.create_session(&new_session(&id, "2026-01-01T00:00:00.000Z")).unwrap();
        let big = EventData::UserInput { content: "x".repeat(40_000), images: Vec::new() };
        for seq in 1..=20 {
            append(&mut store, seq, &event(&id, 1, big.clone()));
        }
        drop(store);
        largest = largest.max(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0));
    }
    // 38 runs of ~200 pages each: the log was copied in along the way, never far past its bound.
    assert!(pages(largest) < 2 * WAL_PAGES as u64 + 300, "the log reached {} pages", pages(largest));
    let store = Store::open(&dir.0).unwrap();
    assert_eq!(store.session("r_39").unwrap().info.task, "fix the bug", "what the log held is all there");
    assert_eq!(store.events_after("r_2", 0, None).unwrap().len(), 20);
}
