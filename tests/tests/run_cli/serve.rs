//! `openagent serve`: the real binary on a free port with a fixed token, the mock LLM server
//! behind it, driven over HTTP as a client would: auth, starting a session and reading its
//! result (seed 003's statuses), the event stream live, steering, aborting, the next input of an
//! open session, a child's result reaching its parent, and the server's bounds: its connection and
//! worker limits, the header deadline, the workers kept from event streams and idle sessions closed;
//! and the MCP servers and hooks of the working directory in its sessions.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::ffi::OsStrExt;
use std::time::{Duration, Instant};

use openagent_store::{SessionInfo, Store};
use openagent_tests::{Api, Reply, Step};
use serde_json::{json, Value};

use super::{call, read_notes_then_answer, sandbox_with_notes, ANSWER, NOTES, TASK};
use crate::api::{encode, Serve, TOKEN};
use openagent_tests::cli::{eventually, Sandbox};
use openagent_tests::over_http::{serve, KEY};

/// The routes the OpenAPI document must describe.
const ROUTES: [(&str, &str); 11] = [
    ("get", "/openapi.json"),
    ("post", "/sessions"),
    ("get", "/sessions"),
    ("get", "/sessions/{id}"),
    ("get", "/sessions/{id}/events"),
    ("get", "/sessions/{id}/result"),
    ("post", "/sessions/{id}/steer"),
    ("post", "/sessions/{id}/abort"),
    ("post", "/sessions/{id}/messages"),
    ("post", "/sessions/{id}/fork"),
    ("post", "/sessions/{id}/approvals/{call_id}"),
];

/// A model answer that takes `ms` to start.
fn slow(ms: u64, reply: Reply) -> Step {
    Step::slow_first_byte(ms, reply)
}

/// The `data` of every stored event of `id` whose kind is `kind`, read over the API's stream.
fn event_data(api: &Serve, id: &str, kind: &str) -> Vec<Value> {
    api.events(id, "").rest().into_iter().filter(|f| f.event == kind).map(|f| f.data["data"].clone()).collect()
}

#[test]
fn every_request_needs_the_bearer_token() {
    let sandbox = Sandbox::new();
    let api = Serve::start(&sandbox, None, &[]);
    for (authorization, path) in [(None, "/openapi.json"), (Some("Bearer wrong"), "/sessions"), (Some(TOKEN), "/sessions")] {
        let refused = api.call_as(authorization, "GET", path, None);
        assert_eq!(refused.status, 401, "{authorization:?}: {refused:?}");
        assert!(refused.head.contains("www-authenticate: Bearer"), "{refused:?}");
        assert!(refused.error().contains("bearer token"), "{refused:?}");
    }
    let refused = api.call_as(None, "POST", "/sessions", Some(r#"{"task": "x"}"#));
    assert_eq!(refused.status, 401, "a session is not started without the token: {refused:?}");
    assert_eq!(api.call("GET", "/sessions", None).json(), json!([]));
}

#[test]
fn the_openapi_document_lists_every_route() {
    let sandbox = Sandbox::new();
    let api = Serve::start(&sandbox, None, &[]);
    let document = api.call("GET", "/openapi.json", None).json();
    let mut listed: Vec<(String, String)> = Vec::new();
    for (path, operations) in document["paths"].as_object().expect("paths") {
        listed.extend(
            operations.as_object().expect("operations").keys().filter(|m| *m != "parameters").map(|m| (m.clone(), path.clone())),
        );
    }
    listed.sort();
    let mut expected: Vec<(String, String)> = ROUTES.iter().map(|(m, p)| ((*m).to_owned(), (*p).to_owned())).collect();
    expected.sort();
    assert_eq!(listed, expected);
    assert_eq!(document["components"]["securitySchemes"]["bearer"]["type"], "http");
}

#[test]
fn a_session_runs_its_task_to_the_end_and_is_listed_with_its_result() {
    let sandbox = sandbox_with_notes();
    let mock = serve(read_notes_then_answer());
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    let created = api.call("POST", "/sessions", Some(&json!({"task": TASK, "max_turns": 5})));
    assert_eq!((created.status, &created.json()["status"]), (201, &json!("running")), "{created:?}");
    let id = created.json()["id"].as_str().expect("an id").to_owned();

    assert_eq!(api.wait_for_result(&id), json!({"result_text": ANSWER, "result_data": null}));
    let shown = api.show(&id);
    assert_eq!(
        [&shown["task"], &shown["status"], &shown["exit_reason"], &shown["open"], &shown["outcome"]["status"]],
        [&json!(TASK), &json!("finished"), &json!("completed"), &json!(true), &json!("done")],
        "{shown}"
    );
    assert_eq!(shown["config"]["max_turns"], 5, "{shown}");
    let listed = api.call("GET", "/sessions?limit=5", None).json();
    assert_eq!(listed.as_array().map(|all| all.iter().map(|s| s["id"].clone()).collect::<Vec<_>>()), Some(vec![json!(id)]));
    assert_eq!(mock.requests().len(), 2, "the tool round and the answer");
    // The store is the CLI's too.
    let cli = sandbox.sessions(&["result", &id]);
    assert_eq!(cli.stdout.trim(), format!(r#"{{"result_text":"{ANSWER}","result_data":null}}"#));
}

#[test]
fn the_result_is_404_for_no_session_400_while_running_and_404_when_there_is_none() {
    let sandbox = Sandbox::new();
    let mock = serve([slow(1500, Reply::text(ANSWER))]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    let unknown = api.result("r_nowhere");
    assert_eq!((unknown.status, unknown.error()), (404, "session not found: r_nowhere".to_owned()));

    let id = api.start_session(&json!({"task": TASK}));
    let running = api.result(&id);
    assert_eq!(running.status, 400, "{running:?}");
    assert!(running.error().starts_with("session not finished"), "{running:?}");
    assert_eq!(api.wait_for_result(&id)["result_text"], ANSWER);

    // A session finished without a result: only a store written otherwise has one.
    let mut store = Store::open(&sandbox.data_dir()).expect("the store");
    let info = SessionInfo {
        id: "r_resultless".into(),
        parent_id: None,
        task: "nothing".into(),
        provider: "anthropic".into(),
        model: "m".into(),
        working_directory: "/".into(),
        created_at: "2026-01-01T00:00:00.000Z".into(),
        config: None,
    };
    store.create_session(&info).expect("created");
    store.finish_session("r_resultless", "completed", "2026-01-01T00:00:01.000Z").expect("finished");
    let none = api.result("r_resultless");
    assert_eq!(none.status, 404, "{none:?}");
    assert!(none.error().starts_with("no result"), "{none:?}");
}

#[test]
fn the_event_stream_sends_the_history_then_live_events_until_the_input_ends() {
    let sandbox = sandbox_with_notes();
    let mock = serve([call("toolu_read", "read_file", json!({"file_path": NOTES})), slow(1000, Reply::text(ANSWER))]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    let id = api.start_session(&json!({"task": TASK}));
    // Connected while the model still thinks over its second answer.
    eventually("the second model call", || mock.requests().len() == 2);
    assert_eq!(api.result(&id).status, 400, "still running when the stream opens");
    let frames = api.events(&id, "").rest();

    let ids: Vec<i64> = frames.iter().map(|f| f.id.expect("an id")).collect();
    assert_eq!(ids, (1..=frames.len() as i64).collect::<Vec<_>>(), "ids are the seqs, in order, without gaps");
    let kinds: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
    assert_eq!(kinds.first(), Some(&"session_start"));
    assert_eq!(&kinds[kinds.len() - 2..], ["result", "processing_end"], "{kinds:?}");
    assert!(kinds.contains(&"tool_call_end") && kinds.contains(&"assistant_text_delta"), "{kinds:?}");
    for frame in &frames {
        assert_eq!(
            (frame.data["kind"].as_str(), frame.data["session_id"].as_str()),
            (Some(frame.event.as_str()), Some(id.as_str()))
        );
    }
    assert_eq!(frames[frames.len() - 2].data["data"]["result_text"], ANSWER);
    let stored: Vec<Value> =
        sandbox.sessions(&["events", &id, "--json"]).stdout.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert_eq!(frames.iter().map(|f| f.data.clone()).collect::<Vec<_>>(), stored, "the stream is the store");

    // Reconnecting after an event gives only what came after it.
    let resumed = api.events(&id, "Last-Event-ID: 3\r\n").rest();
    assert_eq!(resumed.first().and_then(|f| f.id), Some(4));
    assert_eq!(resumed.len(), frames.len() - 3);
}

#[test]
fn steering_while_running_reaches_the_models_next_request() {
    let sandbox = sandbox_with_notes();
    let mock = serve([
        slow(1500, Reply::default().with_tool_call("read_file", json!({"file_path": NOTES}))),
        Step::reply(Reply::text(ANSWER)),
    ]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    let id = api.start_session(&json!({"task": TASK}));
    let path = format!("/sessions/{}/steer", encode(&id));
    let steered = api.call("POST", &path, Some(&json!({"message": "count the lines too"})));
    assert_eq!((steered.status, steered.json()), (202, json!({"id": id})), "{steered:?}");
    api.wait_for_result(&id);

    let second = &mock.requests()[1].body;
    assert!(second.to_string().contains("count the lines too"), "the steering is in the next request: {second}");
    assert_eq!(event_data(&api, &id, "steering_injected"), [json!({"content": "count the lines too"})]);
    let idle = api.call("POST", &path, Some(&json!({"message": "too late"})));
    assert_eq!(idle.status, 409, "{idle:?}");
    assert!(idle.error().contains("is not running"), "{idle:?}");
}

/// A call the policy asks about waits: `approval_requested` on the event stream, answered by
/// `POST /sessions/{id}/approvals/{call_id}`: deny with a reason (the model reads it), then always.
#[test]
fn a_call_that_asks_waits_for_its_approval_over_http() {
    let sandbox = Sandbox::new();
    let mock = serve([
        call("toolu_1", "shell", json!({"command": "touch one.txt"})),
        call("toolu_2", "shell", json!({"command": "touch two.txt"})),
        call("toolu_3", "shell", json!({"command": "touch three.txt"})),
        Step::reply(Reply::text(ANSWER)),
    ]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    let refused = api.call("POST", "/sessions", Some(&json!({"task": TASK, "approval": "yolo"})));
    assert_eq!(refused.status, 400, "{refused:?}");
    let id = api.start_session(&json!({"task": TASK, "approval": "auto-edit"}));
    let mut stream = api.events(&id, "");
    let asked = |stream: &mut crate::api::EventStream| loop {
        let frame = stream.next_frame().expect("the stream goes on until the call is answered");
        if frame.event == "approval_requested" {
            return frame.data["data"].clone();
        }
    };
    let first = asked(&mut stream);
    assert_eq!((&first["call_id"], &first["tool_name"]), (&json!("toolu_1"), &json!("shell")), "{first}");
    assert_eq!(first["reason"], "the auto-edit approval mode asks before commands");
    assert_eq!(first["always"], "shell `touch`");
    let approve = |call_id: &str, body: Value| api.call("POST", &format!("/sessions/{id}/approvals/{call_id}"), Some(&body));

    let hostile = approve("toolu_1", json!({"decision": "sure"}));
    assert_eq!(hostile.status, 400, "{hostile:?}");
    assert!(hostile.error().contains("not one of allow, deny, always"), "{hostile:?}");
    let unknown = approve("toolu_9", json!({"decision": "allow"}));
    assert_eq!(unknown.status, 404, "{unknown:?}");
    assert!(unknown.error().contains("no call \"toolu_9\""), "{unknown:?}");
    let denied = approve("toolu_1", json!({"decision": "deny", "reason": "not in the repo root"}));
    assert_eq!((denied.status, denied.json()), (202, json!({"id": id})), "{denied:?}");
    assert_eq!(approve("toolu_1", json!({"decision": "allow"})).status, 404, "answered once only");

    let second = asked(&mut stream);
    assert_eq!(second["call_id"], "toolu_2");
    assert_eq!(approve("toolu_2", json!({"decision": "always"})).status, 202);
    assert_eq!(api.wait_for_result(&id)["result_text"], ANSWER);

    assert!(!sandbox.cwd().join("one.txt").exists(), "denied");
    assert!(sandbox.cwd().join("two.txt").exists() && sandbox.cwd().join("three.txt").exists());
    let decisions: Vec<(Value, Value)> =
        event_data(&api, &id, "tool_decision").into_iter().map(|d| (d["decision"].clone(), d["reason"].clone())).collect();
    assert_eq!(decisions[0], (json!("deny"), json!("the user denied this call: not in the repo root")));
    assert_eq!(decisions[2], (json!("allow"), json!("allowed always for shell `touch` earlier in this session")));
    assert_eq!(event_data(&api, &id, "approval_requested").len(), 2, "the third call was not asked about");
    let after_denial = mock.requests()[1].body.to_string();
    assert!(after_denial.contains("the user denied this call: not in the repo root"), "{after_denial}");
}

/// The model answers without a tool round while the steering comes: it is not left for some later
/// input but opens the next one at once.
#[test]
fn a_steer_after_the_last_tool_round_opens_the_next_input() {
    let sandbox = Sandbox::new();
    let mock = serve([slow(1500, Reply::text("Hello.")), Step::reply(Reply::text(ANSWER))]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    let id = api.start_session(&json!({"task": "say hello"}));
    let steered = api.call("POST", &format!("/sessions/{id}/steer"), Some(&json!({"message": "then summarise"})));
    assert_eq!(steered.status, 202, "{steered:?}");
    eventually("the steering is answered", || mock.requests().len() == 2);
    assert_eq!(api.wait_for_result(&id)["result_text"], ANSWER);
    let inputs = event_data(&api, &id, "user_input");
    assert_eq!(inputs, [json!({"content": "say hello"}), json!({"content": "then summarise"})]);
    assert!(event_data(&api, &id, "steering_injected").is_empty(), "delivered once, as the input");
}

#[test]
fn abort_stops_a_long_run_and_closes_the_session() {
    let sandbox = Sandbox::new();
    let mock = serve([slow(30_000, Reply::text("too late"))]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    let id = api.start_session(&json!({"task": TASK}));
    eventually("the model is called", || mock.requests().len() == 1);
    let started = std::time::Instant::now();
    let aborted = api.call("POST", &format!("/sessions/{id}/abort"), None);
    assert_eq!(aborted.status, 202, "{aborted:?}");
    api.wait_for_result(&id);
    assert!(started.elapsed().as_secs() < 10, "the abort did not wait for the model");
    let shown = api.show(&id);
    assert_eq!(
        [&shown["status"], &shown["exit_reason"], &shown["open"]],
        [&json!("finished"), &json!("interrupted"), &json!(false)]
    );
    let closed = api.call("POST", &format!("/sessions/{id}/abort"), None);
    assert_eq!(closed.status, 409, "{closed:?}");
    assert!(closed.error().contains("not open in this server"), "{closed:?}");
    // A message takes the closed session up again from the store (`resume.rs` tests that further).
    let again = api.call("POST", &format!("/sessions/{id}/messages"), Some(&json!({"message": "again"})));
    assert_eq!(again.status, 202, "{again:?}");
    assert_eq!(api.show(&id)["open"], true);
}

#[test]
fn an_open_session_takes_its_next_input_with_the_history_kept() {
    let sandbox = Sandbox::new();
    let mock = serve([Step::reply(Reply::text("Hello.")), slow(500, Reply::text(ANSWER))]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    let id = api.start_session(&json!({"task": "say hello"}));
    assert_eq!(api.wait_for_result(&id)["result_text"], "Hello.");
    let sent = api.call("POST", &format!("/sessions/{id}/messages"), Some(&json!({"message": "now summarise"})));
    assert_eq!(sent.status, 202, "{sent:?}");
    // Running before the answer came: no stale result is read.
    assert_eq!(api.result(&id).status, 400);
    let busy = api.call("POST", &format!("/sessions/{id}/messages"), Some(&json!({"message": "and again"})));
    assert_eq!(busy.status, 409, "{busy:?}");
    assert!(busy.error().contains("is running"), "{busy:?}");
    assert_eq!(api.wait_for_result(&id)["result_text"], ANSWER);
    let second = mock.requests()[1].body.to_string();
    assert!(second.contains("say hello") && second.contains("Hello.") && second.contains("now summarise"), "{second}");
    assert_eq!(event_data(&api, &id, "user_input").len(), 2);
}

/// The child's result comes to its idle parent as a new input: the callback of seed 003, with
/// the child's structured result.
#[test]
fn a_childs_result_reaches_its_idle_parent_as_its_next_input() {
    let sandbox = Sandbox::new();
    let mock = serve([
        Step::reply(Reply::text("I will wait for the count.")),
        Step::reply(Reply::text("Counted.").with_tool_call("submit_result", json!({"notes": 2}))),
        Step::reply(Reply::text("The child counted two notes.")),
    ]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    let parent = api.start_session(&json!({"task": "orchestrate the count"}));
    api.wait_for_result(&parent);
    let schema = json!({"type": "object", "properties": {"notes": {"type": "integer"}}, "required": ["notes"]});
    let child = api.start_session(&json!({"task": "count the notes", "parent_id": parent, "output_schema": schema}));
    assert_eq!(api.wait_for_result(&child), json!({"result_text": "Counted.", "result_data": {"notes": 2}}));

    let callback = format!(
        "<agent-callback session=\"{child}\" status=\"completed\">\n## Child Result\n\nCounted.\n\n## Structured Data\n\n```json\n{{\n  \"notes\": 2\n}}\n```\n</agent-callback>"
    );
    eventually("the parent answers the callback", || mock.requests().len() == 3);
    assert_eq!(api.wait_for_result(&parent)["result_text"], "The child counted two notes.");
    let inputs = event_data(&api, &parent, "user_input");
    assert_eq!(inputs, [json!({"content": "orchestrate the count"}), json!({"content": callback})]);
    assert_eq!(api.show(&parent)["subagents"], json!([child]));
    assert_eq!(api.show(&child)["parent_id"], json!(parent));
    let top = api.call("GET", "/sessions", None).json();
    assert_eq!(top.as_array().map(Vec::len), Some(1), "a child is listed under its parent only: {top}");
    assert_eq!(api.call("GET", "/sessions?subagents=true", None).json().as_array().map(Vec::len), Some(2));
}

/// The parent talks to OpenAI and the child to Anthropic, so the mock's script can tell their
/// requests apart whichever comes first.
#[test]
fn a_childs_result_steers_its_running_parent() {
    let sandbox = sandbox_with_notes();
    let mock = serve([
        slow(3000, Reply::default().with_tool_call("read_file", json!({"file_path": NOTES}))).expecting(Api::OpenAiResponses),
        Step::reply(Reply::text("Two notes.")).expecting(Api::Anthropic),
        Step::reply(Reply::text(ANSWER)).expecting(Api::OpenAiResponses),
    ]);
    let openai = [("OPENAI_API_KEY", KEY), ("OPENAI_BASE_URL", &format!("{}/v1", mock.base_url()))];
    let api = Serve::start(&sandbox, Some(&mock), &openai);
    let parent = api.start_session(&json!({"task": TASK, "provider": "openai"}));
    let child = api.start_session(&json!({"task": "count the notes", "provider": "anthropic", "parent_id": parent}));
    assert_eq!(api.wait_for_result(&child)["result_text"], "Two notes.");
    assert_eq!(api.wait_for_result(&parent)["result_text"], ANSWER);

    let callback =
        format!("<agent-callback session=\"{child}\" status=\"completed\">\n## Child Result\n\nTwo notes.\n</agent-callback>");
    assert_eq!(event_data(&api, &parent, "steering_injected"), [json!({"content": callback})]);
    let last = mock.requests().into_iter().rfind(|r| r.api == Some(Api::OpenAiResponses)).expect("the parent's second call");
    assert!(last.body.to_string().contains("agent-callback"), "{:?}", last.body);
    assert_eq!(event_data(&api, &parent, "user_input").len(), 1, "one input: the callback came as steering");
}

#[test]
fn bad_requests_get_400_with_what_is_wrong() {
    let sandbox = Sandbox::new();
    let mock = serve(Vec::new());
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    for (body, wanted) in [
        ("", "no body"),
        ("{not json", "invalid body"),
        (r#"{"model": "m"}"#, "missing field `task`"),
        (r#"{"task": "x", "max_turns": "5"}"#, "invalid type"),
        (r#"{"task": "x", "colour": "red"}"#, "unknown field `colour`"),
        (r#"{"task": "x", "parent_id": "r_nowhere"}"#, "no open session r_nowhere"),
        (r#"{"task": "x", "output_schema": {"type": "string"}}"#, "output_schema"),
    ] {
        let refused = api.call_as(Some(&format!("Bearer {TOKEN}")), "POST", "/sessions", Some(body));
        assert_eq!(refused.status, 400, "{body}: {refused:?}");
        assert!(refused.error().contains(wanted), "{body}: {refused:?}");
    }
    let huge = format!(r#"{{"task": "{}"}}"#, "x".repeat(2 << 20));
    assert_eq!(api.call_as(Some(&format!("Bearer {TOKEN}")), "POST", "/sessions", Some(&huge)).status, 413);
    assert_eq!(api.call("GET", "/sessions?limit=many", None).status, 400);
    assert_eq!(api.call("GET", "/nowhere", None).status, 404);
    assert_eq!(api.call("DELETE", "/sessions", None).status, 405);
    assert_eq!(api.call("POST", "/sessions/r_nowhere/steer", Some(&json!({"message": "x"}))).status, 404);
    assert!(mock.requests().is_empty(), "no session started");
}

#[test]
fn a_session_without_a_provider_is_refused_with_what_to_set() {
    let sandbox = Sandbox::new();
    let api = Serve::start(&sandbox, None, &[]);
    let refused = api.call("POST", "/sessions", Some(&json!({"task": TASK})));
    assert_eq!(refused.status, 400, "{refused:?}");
    assert!(refused.error().contains("ANTHROPIC_API_KEY"), "{refused:?}");
    assert_eq!(api.call("GET", "/sessions", None).json(), json!([]), "nothing was stored");
}

/// A request naming a base URL the server was not started to allow is refused: the server would
/// send its own provider key there. An allowed one works.
#[test]
fn a_base_url_the_server_does_not_allow_is_refused_and_gets_no_key() {
    let sandbox = Sandbox::new();
    let thief = serve([Step::reply(Reply::text("thanks for the key"))]);
    let mock = serve([Step::reply(Reply::text(ANSWER))]);
    let server = Serve::start(&sandbox, Some(&mock), &[]);
    let refused = server.call("POST", "/sessions", Some(&json!({"task": TASK, "base_url": thief.base_url()})));
    assert_eq!(refused.status, 403, "{refused:?}");
    assert!(refused.body.contains("--allow-base-url"), "{}", refused.body);
    assert!(thief.requests().is_empty(), "nothing reached the other URL");

    let url = thief.base_url();
    let allowed = Serve::start_with(&sandbox, Some(&mock), &[], &["--allow-base-url", &url]);
    let id = allowed.start_session(&json!({"task": TASK, "base_url": format!("{url}/")}));
    allowed.wait_for_result(&id);
    assert_eq!(thief.requests().len(), 1, "an allowed URL is used");
}

/// The token is checked from the request's head: a client without it is answered 401 at once,
/// before the server reads (or waits for) any of the body it announced.
#[test]
fn a_request_without_the_token_is_refused_before_its_body_is_read() {
    use std::io::{Read, Write};
    let sandbox = Sandbox::new();
    let server = Serve::start(&sandbox, None, &[]);
    let mut socket = std::net::TcpStream::connect(&server.addr).expect("the server accepts");
    socket.set_read_timeout(Some(std::time::Duration::from_secs(5))).expect("a timeout");
    let head = format!("POST /sessions HTTP/1.1\r\nHost: {}\r\nContent-Length: 1048576\r\n\r\n", server.addr);
    socket.write_all(head.as_bytes()).expect("the head is sent");
    let mut answer = [0u8; 512];
    let read = socket.read(&mut answer).expect("an answer without sending the body");
    let answer = String::from_utf8_lossy(&answer[..read]);
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(answer.to_ascii_lowercase().contains("www-authenticate: bearer"), "{answer}");
}

/// How many threads the `openagent serve` working in `sandbox` has, from /proc: the server is
/// the process whose arguments name the sandbox's data directory, which no other process shares.
fn server_threads(sandbox: &Sandbox) -> usize {
    let data_dir = sandbox.data_dir();
    for process in std::fs::read_dir("/proc").expect("/proc lists processes").flatten() {
        let Ok(arguments) = std::fs::read(process.path().join("cmdline")) else { continue };
        let arguments: Vec<&[u8]> = arguments.split(|byte| *byte == 0).collect();
        if arguments.contains(&b"serve".as_slice()) && arguments.contains(&data_dir.as_os_str().as_bytes()) {
            let status = std::fs::read_to_string(process.path().join("status")).expect("the server's status");
            let threads = status.lines().find_map(|line| line.strip_prefix("Threads:"));
            return threads.and_then(|n| n.trim().parse().ok()).expect("a thread count");
        }
    }
    panic!("no openagent serve with --data-dir {}", data_dir.display());
}

/// Everything the server sends on `socket` until it closes it (or a minute passes).
fn read_all(mut socket: TcpStream) -> String {
    socket.set_read_timeout(Some(Duration::from_secs(60))).expect("a timeout");
    let mut answer = Vec::new();
    let _ = socket.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// More idle connections than the server counts (twice `--max-connections`) cost no thread: the ones beyond are
/// answered 503 at once, a request among them too, and once the header deadline has cut the idle
/// ones the server answers again.
#[test]
fn a_flood_of_idle_connections_keeps_the_threads_bounded_and_is_turned_away_with_503() {
    let sandbox = Sandbox::new();
    let api = Serve::start_with(&sandbox, None, &[], &["--max-connections", "4", "--header-deadline-ms", "1500"]);
    let before = server_threads(&sandbox);
    // Fewer than the listen backlog (128), so that no connection waits for the kernel.
    let idle: Vec<TcpStream> = (0..100).map(|_| TcpStream::connect(&api.addr).expect("the server accepts")).collect();
    let busy = api.call("GET", "/sessions", None);
    assert_eq!(busy.status, 503, "{busy:?}");
    assert!(busy.head.to_ascii_lowercase().contains("retry-after: 1"), "{busy:?}");
    assert!(busy.error().contains("the server is busy"), "{busy:?}");
    let during = server_threads(&sandbox);
    assert!(during <= before + 2, "{during} threads with 100 idle connections, {before} before");

    let answers: Vec<String> = idle.into_iter().map(read_all).collect();
    let status = |code: &str| answers.iter().filter(|answer| answer.starts_with(&format!("HTTP/1.1 {code} "))).count();
    let (cut, turned_away) = (status("408"), status("503"));
    assert_eq!(cut + turned_away, 100, "every idle connection is answered 408 or 503: {answers:?}");
    assert!((4..=8).contains(&cut), "the 4 workers and at most 4 waiting are cut at the deadline: {cut}");
    assert_eq!(api.call("GET", "/sessions", None).status, 200, "the workers are free again");
}

/// A client sending its head a byte at a time never waits long enough for a per-read timeout;
/// the deadline counts from its first byte.
#[test]
fn a_client_dribbling_its_head_is_cut_at_the_header_deadline_with_408() {
    let sandbox = Sandbox::new();
    let api = Serve::start_with(&sandbox, None, &[], &["--header-deadline-ms", "1000"]);
    let mut socket = TcpStream::connect(&api.addr).expect("the server accepts");
    socket.set_read_timeout(Some(Duration::from_millis(100))).expect("a timeout");
    socket.write_all(format!("GET /sessions HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\nX-Slow: ").as_bytes()).expect("sent");
    let started = Instant::now();
    let mut answer = Vec::new();
    while started.elapsed() < Duration::from_secs(10) && socket.write_all(b"a").is_ok() {
        let mut buf = [0; 1024];
        match socket.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => break,
        }
    }
    let cut_after = started.elapsed();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408 Request Timeout"), "{answer}");
    assert!(answer.contains("the request head did not arrive within 1s"), "{answer}");
    assert!(cut_after < Duration::from_secs(4), "cut after {cut_after:?}");
}

/// An event stream holds a worker while it streams: with two workers only one stream is served,
/// and the other worker still takes the abort.
#[test]
fn event_streams_leave_a_worker_for_other_requests() {
    let sandbox = Sandbox::new();
    let mock = serve([slow(30_000, Reply::text("too late"))]);
    let api = Serve::start_with(&sandbox, Some(&mock), &[], &["--max-connections", "2"]);
    let id = api.start_session(&json!({"task": TASK}));
    let mut stream = api.events(&id, "");
    let second = api.call("GET", &format!("/sessions/{id}/events"), None);
    assert_eq!(second.status, 503, "{second:?}");
    assert!(second.error().contains("--max-connections"), "{second:?}");
    let aborted = api.call("POST", &format!("/sessions/{id}/abort"), None);
    assert_eq!(aborted.status, 202, "{aborted:?}");
    let kinds: Vec<String> = stream.rest().into_iter().map(|frame| frame.event).collect();
    assert_eq!(kinds.last().map(String::as_str), Some("session_end"), "the stream follows the abort to its end: {kinds:?}");
}

/// A session with no request and no input for the idle timeout is closed: it stays in the store
/// and a message takes it up again with its history. Running longer than the timeout, or being
/// asked about, does not close it.
#[test]
fn an_idle_session_is_closed_after_its_idle_timeout_and_a_message_takes_it_up_again() {
    let sandbox = Sandbox::new();
    let mock = serve([slow(1500, Reply::text("Hello.")), Step::reply(Reply::text(ANSWER))]);
    let api = Serve::start_with(&sandbox, Some(&mock), &[], &["--session-idle-timeout", "1"]);
    let id = api.start_session(&json!({"task": "say hello"}));
    assert_eq!(api.wait_for_result(&id)["result_text"], "Hello.", "ran past the idle timeout");
    for _ in 0..4 {
        assert_eq!(api.show(&id)["open"], true, "requests keep it open");
        std::thread::sleep(Duration::from_millis(400));
    }
    std::thread::sleep(Duration::from_millis(2200));
    let shown = api.show(&id);
    assert_eq!(
        [&shown["open"], &shown["status"], &shown["exit_reason"]],
        [&json!(false), &json!("finished"), &json!("completed")]
    );
    let steered = api.call("POST", &format!("/sessions/{id}/steer"), Some(&json!({"message": "x"})));
    assert_eq!(steered.status, 409, "{steered:?}");
    assert!(steered.error().contains("closed after --session-idle-timeout"), "{steered:?}");

    let again = api.call("POST", &format!("/sessions/{id}/messages"), Some(&json!({"message": "now summarise"})));
    assert_eq!(again.status, 202, "{again:?}");
    assert_eq!(api.wait_for_result(&id)["result_text"], ANSWER);
    let second = mock.requests()[1].body.to_string();
    assert!(second.contains("say hello") && second.contains("Hello.") && second.contains("now summarise"), "{second}");
}

#[test]
fn a_session_offers_the_mcp_servers_of_its_directory() {
    let Some((node, script)) = openagent_tests::mcp::server("server-everything") else { return };
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.cwd().join(".openagent")).expect("the directory");
    let config = json!({"mcpServers": {"everything": {"command": node, "args": [script, "stdio"]}}});
    sandbox.write(".openagent/mcp.json", &config.to_string());
    sandbox.trust();
    let echo =
        openagent_tests::ToolCall { name: "mcp__everything__echo".into(), arguments: json!({"message": "over serve"}), id: None };
    let mock = serve([Step::reply(Reply { tool_calls: vec![echo], ..Reply::default() }), Step::reply(Reply::text(ANSWER))]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    let id = api.start_session(&json!({"task": "echo it"}));
    assert_eq!(api.wait_for_result(&id)["result_text"], ANSWER);
    let requests = mock.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert!(requests[1].body.to_string().contains("Echo: over serve"), "the server's answer reaches the model");
}

/// The directory's hooks run in serve's sessions too: a pre_tool_use hook refuses a command (the
/// decision is in the stored events), and closing an idle session runs its session_end hook
/// before the abort is answered.
#[test]
fn a_sessions_hooks_refuse_a_command_and_see_the_session_end() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.cwd().join(".openagent")).unwrap();
    let hooks = json!({"hooks": {
        "pre_tool_use": [{"matcher": "shell", "command": "echo 'commands are reviewed first' >&2; exit 2"}],
        "session_end": [{"command": "cat > ended.json"}],
    }});
    sandbox.write(".openagent/hooks.json", &hooks.to_string());
    sandbox.trust();
    let mock = serve([call("toolu_1", "shell", json!({"command": "touch made"})), Step::reply(Reply::text(ANSWER))]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    let id = api.start_session(&json!({"task": TASK}));
    api.wait_for_result(&id);
    let decision = &event_data(&api, &id, "tool_decision")[0];
    assert_eq!((&decision["decision"], &decision["source"]), (&json!("deny"), &json!("hook")), "{decision}");
    assert_eq!(decision["reason"], "commands are reviewed first");
    assert!(!sandbox.cwd().join("made").exists());
    assert!(!sandbox.cwd().join("ended.json").exists(), "the session is still open");
    let aborted = api.call("POST", &format!("/sessions/{id}/abort"), None);
    assert_eq!(aborted.status, 202, "{aborted:?}");
    let ended: Value = serde_json::from_str(&std::fs::read_to_string(sandbox.cwd().join("ended.json")).unwrap()).unwrap();
    assert_eq!((&ended["session_id"], &ended["reason"]), (&json!(id), &json!("aborted")), "{ended}");
}

/// serve starts no session on hooks the user has not trusted: the request is refused with the
/// command that trusts them, and once they are trusted the same request starts one.
#[test]
fn a_session_on_untrusted_hooks_is_refused_with_the_command_that_trusts_them() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.cwd().join(".openagent")).unwrap();
    sandbox.write(".openagent/hooks.json", &json!({"hooks": {"user_prompt_submit": [{"command": "touch ran"}]}}).to_string());
    let mock = serve([Step::reply(Reply::text(ANSWER))]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    let refused = api.call("POST", "/sessions", Some(&json!({"task": TASK})));
    assert_eq!(refused.status, 400, "{refused:?}");
    let error = refused.json()["error"].to_string();
    assert!(error.contains("hooks.json names hooks or MCP servers") && error.contains("openagent trust --cwd"), "{error}");
    assert!(!sandbox.cwd().join("ran").exists() && mock.requests().is_empty());
    sandbox.trust();
    let id = api.start_session(&json!({"task": TASK}));
    assert_eq!(api.wait_for_result(&id)["result_text"], ANSWER);
    assert!(sandbox.cwd().join("ran").exists(), "the trusted hook ran");
}
