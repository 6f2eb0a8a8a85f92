//! The API's routes: which handler a method and path reach, what each reads from the request,
//! and the status and JSON each answers with. Errors are `{"error": "..."}` with a status that
//! says whose the fault is: 400 a request that cannot work as given, 404 no such session, 409 a
//! session not in a state to do it, 500 the server's own failure.

use std::path::PathBuf;

use openagent_core::approval::{Approval, ApprovalMode};
use openagent_core::runtime::format_rfc3339;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::runs::{NewRun, Refusal, Runs, StartError};
use openagent_host::runtime::system_now_ms;
use openagent_http_server::{percent_decode, Request};
use openagent_runner::resume;
use openagent_runner::{new_run_id, AgentOptions, LimitFlags};
use openagent_store::session_json;
use openagent_store::{SessionFilter, SessionResult, Status, Store, StoreError};

/// The OpenAPI 3.1 document of this API, served at `GET /openapi.json`.
pub const OPENAPI: &str = include_str!("openapi.json");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    OpenApi,
    CreateSession,
    ListSessions,
    ShowSession,
    SessionEvents,
    SessionResult,
    Steer,
    Abort,
    Messages,
    Fork,
    Approve,
}

/// Every route: its method and path, written as the OpenAPI document writes them (`{id}` is one
/// path segment; a subagent's id holds a `/`, sent as `%2F`).
pub const ROUTES: [(&str, &str, Route); 11] = [
    ("GET", "/openapi.json", Route::OpenApi),
    ("POST", "/sessions", Route::CreateSession),
    ("GET", "/sessions", Route::ListSessions),
    ("GET", "/sessions/{id}", Route::ShowSession),
    ("GET", "/sessions/{id}/events", Route::SessionEvents),
    ("GET", "/sessions/{id}/result", Route::SessionResult),
    ("POST", "/sessions/{id}/steer", Route::Steer),
    ("POST", "/sessions/{id}/abort", Route::Abort),
    ("POST", "/sessions/{id}/messages", Route::Messages),
    ("POST", "/sessions/{id}/fork", Route::Fork),
    ("POST", "/sessions/{id}/approvals/{call_id}", Route::Approve),
];

/// What a request gets.
pub enum Reply {
    Json(u16, Value),
    /// The session's events as server-sent events, after number `after`.
    Events {
        store: Store,
        id: String,
        after: i64,
    },
}

/// A request refused: the status and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Self { status, message: message.into() }
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        let status = match error {
            StoreError::SessionNotFound(_) | StoreError::NoResult(_) | StoreError::NoSessionIn(_) => 404,
            // The session is there, but not in a state to be taken up again.
            StoreError::NoSnapshot { .. }
            | StoreError::BadSnapshot { .. }
            | StoreError::StillRunning(_)
            | StoreError::OpenElsewhere { .. }
            | StoreError::Subagent { .. } => 409,
            // Seed 003: a session still at work, or whose writer died, has no result yet.
            StoreError::NotFinished { .. } | StoreError::Ambiguous { .. } => 400,
            StoreError::Open { .. } | StoreError::TooNew { .. } | StoreError::Database(_) => 500,
        };
        Self::new(status, error.to_string())
    }
}

/// The API over the open sessions and the store.
pub struct Api {
    runs: Runs,
    data_dir: PathBuf,
    /// The base URLs a request may name (`--allow-base-url`), without a trailing `/`.
    allowed_base_urls: Vec<String>,
}

impl Api {
    pub fn new(runs: Runs, data_dir: PathBuf, allowed_base_urls: Vec<String>) -> Self {
        let allowed_base_urls = allowed_base_urls.iter().map(|url| url.trim_end_matches('/').to_owned()).collect();
        Self { runs, data_dir, allowed_base_urls }
    }

    /// Answers an authorised request.
    pub fn handle(&self, request: &Request) -> Reply {
        self.route(request).unwrap_or_else(|error| Reply::Json(error.status, json!({ "error": error.message })))
    }

    fn route(&self, request: &Request) -> Result<Reply, ApiError> {
        let path = request.path();
        let (route, id) = find(&request.method, path)?;
        let id = match id {
            Some(raw) => Some(percent_decode(raw).ok_or_else(|| {
                ApiError::new(400, format!("the session id {raw:?} in the path is not valid percent-encoded UTF-8"))
            })?),
            None => None,
        };
        let id = id.as_deref().unwrap_or_default();
        // Any request for a session keeps it open: its idle time starts again.
        self.runs.touch(id);
        match route {
            Route::OpenApi => {
                Ok(Reply::Json(200, serde_json::from_str(OPENAPI).expect("openapi.json is JSON (a unit test reads it)")))
            }
            Route::CreateSession => self.create(request),
            Route::ListSessions => self.list(request),
            Route::ShowSession => {
                let mut record = session_json(&self.store()?, id)?;
                record["open"] = json!(self.runs.is_open(id));
                Ok(Reply::Json(200, record))
            }
            Route::SessionEvents => {
                let store = self.store()?;
                store.session(id)?;
                Ok(Reply::Events { store, id: id.to_owned(), after: events_after(request)? })
            }
            Route::SessionResult => {
                let result = SessionResult::from(self.store()?.result(id)?);
                Ok(Reply::Json(200, serde_json::to_value(result).expect("a result serialises")))
            }
            Route::Steer => self.control(id, || Ok(self.runs.steer(id, message(request)?))),
            Route::Messages => self.message(id, request),
            Route::Fork => self.fork(id, request),
            Route::Abort => self.control(id, || Ok(self.runs.abort(id))),
            Route::Approve => {
                // The route matched, so the path ends in the call id.
                let raw = path.rsplit('/').next().unwrap_or_default();
                let call_id = percent_decode(raw)
                    .ok_or_else(|| ApiError::new(400, format!("the call id {raw:?} is not valid percent-encoded UTF-8")))?;
                let approval = approval(request)?;
                self.control(id, || match self.runs.approve(id, call_id.clone(), approval) {
                    Err(Refusal::NoSuchCall) => Err(ApiError::new(
                        404,
                        format!(
                            "no call {call_id:?} of session {id} waits for approval (it was answered, the input ended, or \
                             the id is not that of an `approval_requested` event)"
                        ),
                    )),
                    answer => Ok(answer),
                })
            }
        }
    }

    fn store(&self) -> Result<Store, ApiError> {
        Ok(Store::open(&self.data_dir)?)
    }

    fn create(&self, request: &Request) -> Result<Reply, ApiError> {
        let body: NewSessionBody = parse(&request.body)?;
        if let Some(url) =
            body.base_url.as_deref().filter(|url| !self.allowed_base_urls.contains(&url.trim_end_matches('/').to_owned()))
        {
            // The server's provider key goes wherever the base URL points.
            return Err(ApiError::new(
                403,
                format!("base_url {url:?} is not allowed here: the server sends its provider key to it; start the server with --allow-base-url {url} to allow it"),
            ));
        }
        let run = body.into_run()?;
        match self.runs.start(run) {
            Ok(id) => Ok(Reply::Json(201, json!({ "id": id, "status": Status::Running }))),
            Err(error) => Err(start_error(error)),
        }
    }

    fn list(&self, request: &Request) -> Result<Reply, ApiError> {
        let mut filter = SessionFilter { limit: Some(20), ..SessionFilter::default() };
        for (name, value) in request.query() {
            match name.as_str() {
                "limit" => {
                    let limit: usize =
                        value.parse().map_err(|_| ApiError::new(400, format!("limit {value:?} is not a whole number")))?;
                    filter.limit = (limit > 0).then_some(limit);
                }
                "status" => {
                    let status = Status::parse(&value).ok_or_else(|| {
                        ApiError::new(400, format!("status {value:?} is not one of running, finished, interrupted"))
                    })?;
                    filter.status = Some(status);
                }
                "subagents" => filter.subagents = flag(&value)?,
                _ => {
                    return Err(ApiError::new(400, format!("unknown query parameter {name:?}; known: limit, status, subagents")))
                }
            }
        }
        let sessions = self.store()?.sessions(&filter)?;
        Ok(Reply::Json(200, serde_json::to_value(sessions).expect("sessions serialise")))
    }

    /// The next input of an open session; a stored session not open here is taken up again
    /// from its latest snapshot with it.
    fn message(&self, id: &str, request: &Request) -> Result<Reply, ApiError> {
        let text = message(request)?;
        self.control(id, || match self.runs.message(id, text.clone()) {
            Err(Refusal::NotOpen) => match self.runs.resume(id, text) {
                Ok(true) => Ok(Ok(())),
                // Another message opened it meanwhile: it is running that one.
                Ok(false) => Ok(Err(Refusal::Running)),
                Err(error) => Err(start_error(error)),
            },
            answer => Ok(answer),
        })
    }

    /// A new session from the stored one's snapshot (the latest, or at or before `at`); the
    /// model is not called.
    fn fork(&self, id: &str, request: &Request) -> Result<Reply, ApiError> {
        let body: ForkBody = if request.body.is_empty() { ForkBody::default() } else { parse(&request.body)? };
        let now = system_now_ms();
        let forked = resume::fork(&mut self.store()?, id, body.at, &new_run_id(now), &format_rfc3339(now))?;
        Ok(Reply::Json(201, json!({ "id": forked.id, "forked_from": forked.forked_from, "at": forked.at })))
    }

    /// Steer, messages, abort: a 404 for a session never stored, else what its thread says.
    fn control(&self, id: &str, ask: impl FnOnce() -> Result<Result<(), Refusal>, ApiError>) -> Result<Reply, ApiError> {
        self.store()?.session(id)?;
        match ask()? {
            Ok(()) => Ok(Reply::Json(202, json!({ "id": id }))),
            Err(Refusal::NotOpen) => Err(ApiError::new(
                409,
                format!(
                    "session {id} is not open in this server: it was aborted, closed after --session-idle-timeout without a request, or another process ran it; POST /sessions/{{id}}/messages takes it up again"
                ),
            )),
            Err(Refusal::Running) => Err(ApiError::new(
                409,
                format!("session {id} is running an input: steer it (POST /sessions/{{id}}/steer), or send the message once the input is finished"),
            )),
            Err(Refusal::NotRunning) => Err(ApiError::new(
                409,
                format!("session {id} is not running: give it a new input with POST /sessions/{{id}}/messages"),
            )),
            Err(Refusal::NoAnswer) => Err(ApiError::new(503, format!("session {id} did not answer in time; try again"))),
            Err(Refusal::NoSuchCall) => Err(ApiError::new(404, format!("no call of session {id} waits for approval"))),
        }
    }
}

/// A session that could not start, as the API answers.
fn start_error(error: StartError) -> ApiError {
    match error {
        StartError::Refused(message) => ApiError::new(400, message),
        StartError::Failed(message) => ApiError::new(500, message),
        StartError::Stored(error) => error.into(),
    }
}

/// The route `method` and `path` reach, and the raw `{id}` segment if the route has one.
fn find<'a>(method: &str, path: &'a str) -> Result<(Route, Option<&'a str>), ApiError> {
    let mut allowed = Vec::new();
    for (route_method, pattern, route) in ROUTES {
        if let Some(id) = matches(pattern, path) {
            if route_method == method {
                return Ok((route, id));
            }
            allowed.push(route_method);
        }
    }
    match allowed.as_slice() {
        [] => Err(ApiError::new(404, format!("no route {path}; GET /openapi.json lists them"))),
        _ => Err(ApiError::new(405, format!("{path} takes {}, not {method}", allowed.join(" or ")))),
    }
}

/// Whether `path` fits `pattern`; `Some(id)` with the segment that stood for `{id}`, if any.
fn matches<'a>(pattern: &str, path: &'a str) -> Option<Option<&'a str>> {
    let (mut wanted, mut given) = (pattern.split('/'), path.split('/'));
    let mut id = None;
    loop {
        match (wanted.next(), given.next()) {
            (None, None) => return Some(id),
            (Some("{id}"), Some(segment)) if !segment.is_empty() => id = Some(segment),
            (Some("{call_id}"), Some(segment)) if !segment.is_empty() => {}
            (Some(literal), Some(segment)) if literal == segment => {}
            _ => return None,
        }
    }
}

/// `POST /sessions`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewSessionBody {
    task: String,
    provider: Option<String>,
    model: Option<String>,
    base_url: Option<String>,
    max_turns: Option<usize>,
    max_tool_rounds: Option<usize>,
    reasoning_effort: Option<String>,
    context_window: Option<usize>,
    compact_at: Option<usize>,
    output_schema: Option<Value>,
    /// An agent config of the server's working directory (`.openagent/agents/<id>/agent.yml`).
    agent: Option<String>,
    parent_id: Option<String>,
    /// The approval mode, over the agent config's and the server's `--approval`.
    approval: Option<String>,
}

impl NewSessionBody {
    fn into_run(self) -> Result<NewRun, ApiError> {
        if self.task.trim().is_empty() {
            return Err(ApiError::new(400, "task is empty: say what the agent should do"));
        }
        let limits = LimitFlags {
            max_turns: self.max_turns,
            max_tool_rounds: self.max_tool_rounds,
            reasoning_effort: self.reasoning_effort,
            context_window: self.context_window,
            compact_at: self.compact_at,
        };
        limits.check().map_err(|e| ApiError::new(400, e.to_string()))?;
        if self.output_schema.as_ref().is_some_and(|schema| !schema.is_object()) {
            return Err(ApiError::new(400, "output_schema must be a JSON Schema object"));
        }
        let approval = self.approval.as_deref().map(ApprovalMode::parse).transpose().map_err(|e| ApiError::new(400, e))?;
        Ok(NewRun {
            task: self.task,
            agent: AgentOptions {
                provider: self.provider,
                model: self.model,
                base_url: self.base_url,
                cwd: None,
                agent: self.agent,
                approval,
                ..AgentOptions::default()
            },
            limits,
            output_schema: self.output_schema,
            parent_id: self.parent_id,
            resume: None,
        })
    }
}

/// `POST /sessions/{id}/fork`'s body, which may be left out.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ForkBody {
    /// Fork from the latest snapshot at or before this event; the latest of all when absent.
    at: Option<i64>,
}

/// `POST /sessions/{id}/approvals/{call_id}`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApprovalBody {
    decision: String,
    reason: Option<String>,
}

/// The most a denial's reason may say: it goes to the model.
const MAX_REASON_BYTES: usize = 4096;

fn approval(request: &Request) -> Result<Approval, ApiError> {
    let body: ApprovalBody = parse(&request.body)?;
    let reason = body.reason.filter(|reason| !reason.trim().is_empty());
    if reason.as_ref().is_some_and(|reason| reason.len() > MAX_REASON_BYTES) {
        return Err(ApiError::new(
            400,
            format!("reason is longer than {MAX_REASON_BYTES} bytes; it goes to the model: say it shorter"),
        ));
    }
    match body.decision.as_str() {
        "allow" | "always" if reason.is_some() => Err(ApiError::new(400, "reason is for a denial; leave it out to allow")),
        "allow" => Ok(Approval::Allow),
        "always" => Ok(Approval::AllowAlways),
        "deny" => Ok(Approval::Deny(reason.map(|reason| format!("the user denied this call: {reason}")))),
        other => Err(ApiError::new(400, format!("decision {other:?} is not one of allow, deny, always"))),
    }
}

/// The body of steer and messages.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MessageBody {
    message: String,
}

fn message(request: &Request) -> Result<String, ApiError> {
    let body: MessageBody = parse(&request.body)?;
    if body.message.trim().is_empty() {
        return Err(ApiError::new(400, "message is empty"));
    }
    Ok(body.message)
}

/// The body as the JSON object a route takes; the error says what is wrong with it.
fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    if body.is_empty() {
        return Err(ApiError::new(400, "the request has no body; this route takes a JSON object (see GET /openapi.json)"));
    }
    serde_json::from_slice(body).map_err(|e| ApiError::new(400, format!("invalid body: {e}")))
}

/// Where an event stream starts: after `Last-Event-ID` (a reconnecting client), or `?after=`.
fn events_after(request: &Request) -> Result<i64, ApiError> {
    let query = request.query();
    let given = request
        .header("last-event-id")
        .map(|value| ("Last-Event-ID", value.to_owned()))
        .or_else(|| query.into_iter().find(|(name, _)| name == "after").map(|(_, value)| ("after", value)));
    match given {
        None => Ok(0),
        Some((name, value)) => value
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|seq| *seq >= 0)
            .ok_or_else(|| ApiError::new(400, format!("{name} {value:?} is not an event number (0 or more)"))),
    }
}

fn flag(value: &str) -> Result<bool, ApiError> {
    match value {
        "true" | "1" | "" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(ApiError::new(400, format!("subagents {value:?} is not true or false"))),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn the_openapi_document_describes_every_route_and_no_other() {
        let document: Value = serde_json::from_str(OPENAPI).expect("openapi.json is JSON");
        assert_eq!(document["openapi"].as_str().map(|v| &v[..4]), Some("3.1."));
        let mut documented = BTreeSet::new();
        for (path, operations) in document["paths"].as_object().expect("paths") {
            for (method, operation) in operations.as_object().expect("operations") {
                if method == "parameters" {
                    continue;
                }
                documented.insert((method.to_uppercase(), path.clone()));
                assert!(operation["responses"]["401"].is_object(), "{method} {path} documents the 401");
            }
        }
        let routed: BTreeSet<_> = ROUTES.iter().map(|(method, path, _)| ((*method).to_owned(), (*path).to_owned())).collect();
        assert_eq!(documented, routed);
        assert_eq!(document["components"]["securitySchemes"]["bearer"]["scheme"], "bearer");
        assert_eq!(document["security"], json!([{"bearer": []}]));
    }

    #[test]
    fn paths_reach_their_route_with_the_raw_id() {
        assert_eq!(find("GET", "/sessions"), Ok((Route::ListSessions, None)));
        assert_eq!(find("POST", "/sessions"), Ok((Route::CreateSession, None)));
        assert_eq!(find("GET", "/sessions/r_1%2Fagent_1/result"), Ok((Route::SessionResult, Some("r_1%2Fagent_1"))));
        assert_eq!(find("POST", "/sessions/r_1/steer"), Ok((Route::Steer, Some("r_1"))));
        assert_eq!(find("GET", "/sessions/r_1/steer").map_err(|e| e.status), Err(405));
        assert_eq!(find("DELETE", "/sessions").map_err(|e| e.status), Err(405));
        for unknown in ["/", "/session", "/sessions/", "/sessions//result", "/sessions/r_1/agent_1/result", "/sessions/r_1/x"] {
            assert_eq!(find("GET", unknown).map_err(|e| e.status), Err(404), "{unknown}");
        }
    }

    #[test]
    fn a_new_session_body_is_checked_field_by_field() {
        let error =
            |body: &str| parse::<NewSessionBody>(body.as_bytes()).and_then(NewSessionBody::into_run).expect_err(body).message;
        assert!(error("").contains("no body"));
        assert!(error("{").starts_with("invalid body: EOF"));
        assert!(error(r#"{"model": "m"}"#).contains("missing field `task`"));
        assert!(error(r#"{"task": "x", "max_turns": -1}"#).contains("invalid value: integer `-1`"));
        assert!(error(r#"{"task": "x", "tusk": 1}"#).contains("unknown field `tusk`"));
        assert!(error(r#"{"task": " "}"#).contains("task is empty"));
        assert!(error(r#"{"task": "x", "reasoning_effort": "max"}"#).contains("not one of low, medium, high"));
        assert!(error(r#"{"task": "x", "output_schema": "object"}"#).contains("JSON Schema object"));
        let run = parse::<NewSessionBody>(br#"{"task": "x", "max_turns": 3, "model": "m", "parent_id": "r_1"}"#)
            .and_then(NewSessionBody::into_run)
            .expect("valid");
        assert_eq!(
            (run.limits.max_turns, run.agent.model.as_deref(), run.parent_id.as_deref()),
            (Some(3), Some("m"), Some("r_1"))
        );
    }

    /// The window and compaction settings `openagent run` takes as flags, a request takes too.
    #[test]
    fn a_new_session_takes_the_window_and_compaction_settings_and_refuses_impossible_ones() {
        let error = |body: &str| parse::<NewSessionBody>(body.as_bytes()).and_then(NewSessionBody::into_run).unwrap_err().message;
        assert!(error(r#"{"task": "x", "context_window": 0}"#).contains("context_window must be at least 1 token"));
        assert!(error(r#"{"task": "x", "compact_at": 101}"#).contains("compact_at 101 is a percent"));
        let run = parse::<NewSessionBody>(br#"{"task": "x", "context_window": 8192, "compact_at": 0}"#)
            .and_then(NewSessionBody::into_run)
            .expect("valid");
        assert_eq!((run.limits.context_window, run.limits.compact_at), (Some(8192), Some(0)));
    }

    #[test]
    fn an_approval_answer_is_checked_and_hostile_ones_refused() {
        let answer = |body: &str| {
            let request = Request { method: "POST".into(), target: "/".into(), headers: Vec::new(), body: body.into() };
            approval(&request)
        };
        assert_eq!(answer(r#"{"decision": "allow"}"#), Ok(Approval::Allow));
        assert_eq!(answer(r#"{"decision": "always", "reason": " "}"#), Ok(Approval::AllowAlways));
        assert_eq!(answer(r#"{"decision": "deny"}"#), Ok(Approval::Deny(None)));
        let denied = answer(r#"{"decision": "deny", "reason": "not on main"}"#);
        assert_eq!(denied, Ok(Approval::Deny(Some("the user denied this call: not on main".into()))));
        let refused = |body: &str| answer(body).expect_err(body).message;
        assert!(refused(r#"{"decision": "yes"}"#).contains("\"yes\" is not one of allow, deny, always"));
        assert!(refused(r#"{"decision": "allow", "reason": "fine"}"#).contains("reason is for a denial"));
        assert!(refused(r#"{"decision": 1}"#).contains("invalid type: integer"));
        assert!(refused(r#"{"decision": "deny", "why": "x"}"#).contains("unknown field `why`"));
        assert!(refused(&format!(r#"{{"decision": "deny", "reason": "{}"}}"#, "x".repeat(5000))).contains("longer than 4096"));
        assert!(refused("").contains("no body"));
        assert_eq!(find("POST", "/sessions/r_1/approvals/toolu_1"), Ok((Route::Approve, Some("r_1"))));
        assert_eq!(find("POST", "/sessions/r_1/approvals/").map_err(|e| e.status), Err(404));
        let error = parse::<NewSessionBody>(br#"{"task": "x", "approval": "yolo"}"#).and_then(NewSessionBody::into_run);
        assert!(error.expect_err("unknown mode").message.contains("unknown approval mode `yolo`"));
    }

    #[test]
    fn an_event_stream_starts_after_last_event_id_or_after() {
        let request = |target: &str, header: Option<&str>| Request {
            method: "GET".into(),
            target: target.into(),
            headers: header.map(|v| ("Last-Event-ID".to_owned(), v.to_owned())).into_iter().collect(),
            body: Vec::new(),
        };
        assert_eq!(events_after(&request("/sessions/r/events", None)), Ok(0));
        assert_eq!(events_after(&request("/sessions/r/events?after=4", None)), Ok(4));
        assert_eq!(events_after(&request("/sessions/r/events?after=4", Some("9"))), Ok(9));
        assert_eq!(events_after(&request("/sessions/r/events", Some("-1"))).map_err(|e| e.status), Err(400));
        assert_eq!(events_after(&request("/sessions/r/events?after=x", None)).map_err(|e| e.status), Err(400));
    }
}
