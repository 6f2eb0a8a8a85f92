//! The server itself: CORS, recording, unknown routes, and stopping on drop.

use std::io::{Read, Write};
use std::net::TcpStream;

use futures::executor::block_on;
use openagent_core::llm::http::{HttpErrorKind, HttpRequest, Method};
use openagent_tests::{Api, Reply, Step};
use serde_json::json;

use crate::support::{post, send, serve};

/// Sends raw bytes and reads the whole answer (the server closes every connection).
fn raw_exchange(port: u16, request: &str) -> String {
    let mut socket = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    socket.write_all(request.as_bytes()).expect("write");
    let mut answer = String::new();
    socket.read_to_string(&mut answer).expect("read");
    answer
}

#[test]
fn cors_preflight_allows_the_provider_headers() {
    let server = serve([]);
    let answer = raw_exchange(
        server.port(),
        "OPTIONS /v1/messages HTTP/1.1\r\nHost: x\r\nOrigin: http://localhost:8000\r\nAccess-Control-Request-Method: POST\r\n\
         Access-Control-Request-Headers: x-api-key, anthropic-version, content-type\r\n\r\n",
    );
    assert!(answer.starts_with("HTTP/1.1 204 "), "{answer}");
    let lower = answer.to_ascii_lowercase();
    assert!(lower.contains("access-control-allow-origin: *\r\n"), "{answer}");
    assert!(lower.contains("access-control-allow-methods: get, post, options\r\n"), "{answer}");
    let allowed = lower.lines().find_map(|l| l.strip_prefix("access-control-allow-headers: ")).expect("allowed headers");
    for header in [
        "authorization",
        "x-api-key",
        "anthropic-version",
        "anthropic-beta",
        "anthropic-dangerous-direct-browser-access",
        "x-goog-api-key",
        "content-type",
    ] {
        assert!(allowed.split(", ").any(|h| h == header), "{header} missing from {allowed}");
    }
}

#[test]
fn every_answer_carries_cors_headers() {
    let server = serve([Step::reply(Reply::text("ok")), Step::error(429, Some(2))]);
    for _ in 0..2 {
        let answer = post(&server, "/v1/messages", &json!({}));
        assert_eq!(answer.header("access-control-allow-origin"), Some("*"));
        assert!(answer.header("access-control-expose-headers").is_some_and(|h| h.contains("retry-after")));
    }
}

#[test]
fn records_what_the_client_sent() {
    let server = serve([Step::reply(Reply::text("done"))]);
    let body = json!({
        "model": "claude-sonnet-4-5",
        "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "42"}]}],
    });
    let mut request = HttpRequest::post_json(format!("{}/v1/messages", server.base_url()), body.to_string().into_bytes());
    request.headers.push(("x-api-key".into(), "sk-ant-test-key".into()));
    request.headers.push(("anthropic-version".into(), "2023-06-01".into()));
    assert_eq!(send(request).expect("an answer").status, 200);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let recorded = &requests[0];
    assert_eq!((recorded.method.as_str(), recorded.path.as_str(), recorded.api), ("POST", "/v1/messages", Some(Api::Anthropic)));
    assert_eq!(recorded.header("X-Api-Key"), Some("sk-ant-test-key"));
    assert_eq!(recorded.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(recorded.body["messages"][0]["content"][0]["tool_use_id"], "toolu_01");
    assert!(!format!("{recorded:?}").contains("sk-ant-test-key"), "Debug hides the key");
}

#[test]
fn the_request_log_lists_the_requests_so_far_without_itself() {
    let server = serve([Step::reply(Reply::text("done"))]);
    post(&server, "/v1/chat/completions", &json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}));
    let get = |path: &str| HttpRequest {
        method: Method::Get,
        url: format!("{}{path}", server.base_url()),
        headers: vec![],
        body: Default::default(),
    };
    for _ in 0..2 {
        let log = block_on(send(get("/mock/requests")).expect("an answer").bytes()).expect("a body");
        let log: serde_json::Value = serde_json::from_slice(&log).expect("JSON");
        assert_eq!(
            log,
            json!([{"method": "POST", "path": "/v1/chat/completions", "body": {"model": "m", "messages": [{"role": "user", "content": "hi"}]}}])
        );
    }
    assert_eq!(server.requests().len(), 1, "reading the log is not a request of the script's");
}

#[test]
fn an_unknown_route_is_a_404_listing_the_routes() {
    let server = serve([Step::reply(Reply::text("unused"))]);
    let answer = post(&server, "/v2/complete?key=secret", &json!({}));
    assert_eq!(answer.status, 404);
    let message = answer.json()["error"]["message"].as_str().expect("a message").to_owned();
    assert!(
        message.contains("POST /v2/complete") && message.contains("/v1/messages") && !message.contains("secret"),
        "{message}"
    );
    assert_eq!(server.remaining(), 1, "no step was spent");
    assert_eq!(server.requests()[0].api, None);
}

#[test]
fn the_server_stops_when_dropped() {
    let server = serve([Step::reply(Reply::text("hi"))]);
    let (port, url) = (server.port(), format!("{}/v1/messages", server.base_url()));
    assert_eq!(post(&server, "/v1/messages", &json!({})).status, 200);
    drop(server);
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err(), "the port is closed");
    let error = send(HttpRequest::post_json(url, b"{}".to_vec())).err().expect("no server");
    assert_eq!(error.kind, HttpErrorKind::Connect);
}
