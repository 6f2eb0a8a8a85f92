//! The API's routes: which handler a method and path reach, and the status and JSON each
//! answers with (what each reads from the request is in `requests`). Errors are
//! `{"error": "..."}` with a status that says whose the fault is: 400 a request that cannot work
//! as given, 404 no such session, 409 a session not in a state to do it, 500 the server's own
//! failure.

use std::path::PathBuf;

use openagent_core::runtime::format_rfc3339;
use serde_json::{json, Value};

use super::requests::{approval, events_after, flag, message, parse, ForkBody, NewSessionBody};
use super::runs::{Refusal, Runs, StartError};
use crate::api_error::ApiError;
use openagent_host::runtime::system_now_ms;
use openagent_http_server::{percent_decode, Request};
use openagent_runner::new_run_id;
use openagent_runner::resume;
use openagent_store::session_json;
use openagent_store::{SessionFilter, SessionResult, Status, Store};

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

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use openagent_core::approval::Approval;

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
}
