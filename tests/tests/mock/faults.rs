//! Scripted faults: error statuses in each provider's shape (unified-llm-spec 6.4, 6.7, 7.6),
//! broken streams, slow first bytes, an exhausted script, and `expect`.

use std::time::{Duration, Instant};

use futures::executor::block_on;
use openagent_core::llm::http::{HttpClient, HttpErrorKind, HttpRequest};
use openagent_host::{NativeHttpClient, NativeHttpConfig};
use openagent_tests::{Api, MockServer, Reply, Script, Step};
use serde_json::{json, Value};

use crate::support::{post, read_until_error, send, serve, GEMINI_PATH};

/// Each API's path and a streamed request body for it.
const APIS: [(Api, &str); 4] = [
    (Api::Anthropic, "/v1/messages"),
    (Api::OpenAiResponses, "/v1/responses"),
    (Api::OpenAiChat, "/v1/chat/completions"),
    (Api::Gemini, GEMINI_PATH),
];

fn body() -> Value {
    json!({"model": "m", "stream": true, "messages": []})
}

/// The error body has the provider's shape and names the status; returns the message.
fn check_error_shape(api: Api, status: u16, error: &Value) -> String {
    let e = &error["error"];
    match api {
        Api::Anthropic => {
            assert_eq!(error["type"], "error", "{error}");
            let expected = match status {
                400 => "invalid_request_error",
                401 => "authentication_error",
                429 => "rate_limit_error",
                503 => "overloaded_error",
                _ => "api_error",
            };
            assert_eq!(e["type"], expected, "{error}");
        }
        Api::OpenAiResponses | Api::OpenAiChat => {
            assert!(e["type"].is_string() && e.get("code").is_some() && e.get("param").is_some(), "{error}");
            if status == 401 {
                assert_eq!(e["code"], "invalid_api_key");
            }
        }
        Api::Gemini => {
            assert_eq!(e["code"], status, "{error}");
            let expected = match status {
                400 => "INVALID_ARGUMENT",
                401 => "UNAUTHENTICATED",
                429 => "RESOURCE_EXHAUSTED",
                503 => "UNAVAILABLE",
                _ => "INTERNAL",
            };
            assert_eq!(e["status"], expected, "{error}");
        }
    }
    e["message"].as_str().filter(|m| !m.is_empty()).expect("a message").to_owned()
}

#[test]
fn spec_6_7_rate_limits_carry_retry_after_and_the_provider_error_shape() {
    let server = serve(APIS.map(|_| Step::error(429, Some(1))));
    for (api, path) in APIS {
        let answer = post(&server, path, &body());
        assert_eq!((answer.status, answer.header("retry-after")), (429, Some("1")), "{api}");
        check_error_shape(api, 429, &answer.json());
    }
}

#[test]
fn spec_6_4_every_scripted_status_has_the_provider_error_shape() {
    for status in [400, 401, 500, 503] {
        let server = serve(APIS.map(|_| Step::error(status, None)));
        for (api, path) in APIS {
            let answer = post(&server, path, &body());
            assert_eq!(answer.status, status, "{api}");
            assert_eq!(answer.header("retry-after"), None);
            check_error_shape(api, status, &answer.json());
        }
    }
}

#[test]
fn a_fault_message_from_the_script_is_sent() {
    let script =
        Script::from_json(r#"[{"fault": {"status": 400, "message": "prompt is too long: 210000 tokens"}}]"#).expect("valid");
    let server = MockServer::start(script).expect("a port");
    let message = check_error_shape(Api::Anthropic, 400, &post(&server, "/v1/messages", &body()).json());
    assert_eq!(message, "prompt is too long: 210000 tokens");
}

#[test]
fn drop_mid_stream_breaks_the_body_after_some_bytes() {
    let reply = Reply::text("one two three four five six seven eight nine ten");
    let server = serve(APIS.map(|_| Step::drop_mid_stream(reply.clone())));
    for (api, path) in APIS {
        let path = if api == Api::Gemini { "/v1beta/models/m:streamGenerateContent?alt=sse" } else { path };
        let request = HttpRequest::post_json(format!("{}{path}", server.base_url()), body().to_string().into_bytes());
        let response = send(request).expect("the head arrives");
        assert_eq!(response.status, 200);
        let (bytes, error) = read_until_error(response);
        assert!(bytes.starts_with(b"event: ") || bytes.starts_with(b"data: "), "{api}: part of the stream came first");
        assert_eq!(error.map(|e| e.kind), Some(HttpErrorKind::Body), "{api}");
    }
}

#[test]
fn drop_mid_stream_cuts_a_plain_json_body_too() {
    let server = serve([Step::drop_mid_stream(Reply::text("cut"))]);
    let request = HttpRequest::post_json(format!("{}/v1/chat/completions", server.base_url()), b"{}".to_vec());
    let (bytes, error) = read_until_error(send(request).expect("the head arrives"));
    assert!(!bytes.is_empty() && serde_json::from_slice::<Value>(&bytes).is_err());
    assert_eq!(error.map(|e| e.kind), Some(HttpErrorKind::Body));
}

#[test]
fn a_slow_first_byte_is_waited_for_or_times_out() {
    let server = serve([Step::slow_first_byte(300, Reply::text("late")), Step::slow_first_byte(2000, Reply::text("later"))]);
    let url = format!("{}/v1/messages", server.base_url());
    let started = Instant::now();
    let answer = post(&server, "/v1/messages", &json!({"model": "m"}));
    assert!(started.elapsed() >= Duration::from_millis(300), "the reply waited");
    assert_eq!(answer.json()["content"][0]["text"], "late");

    let impatient =
        NativeHttpClient::with_config(NativeHttpConfig { read_timeout: Duration::from_millis(200), ..Default::default() });
    let error = block_on(impatient.send(HttpRequest::post_json(url, b"{}".to_vec()))).err().expect("a timeout");
    assert_eq!(error.kind, HttpErrorKind::Timeout, "{error}");
}

#[test]
fn an_exhausted_script_answers_500_naming_the_request() {
    let server = serve([Step::reply(Reply::text("only one"))]);
    assert_eq!(post(&server, "/v1/responses", &json!({"model": "m"})).status, 200);
    assert_eq!(server.remaining(), 0);
    let answer = post(&server, "/v1/responses", &json!({"model": "m"}));
    assert_eq!(answer.status, 500);
    let message = check_error_shape(Api::OpenAiResponses, 500, &answer.json());
    assert!(message.contains("POST /v1/responses") && message.contains("exhausted") && message.contains("1 served"), "{message}");
}

#[test]
fn steps_with_expect_go_to_their_api() {
    let server = serve([
        Step::reply(Reply::text("for gemini")).expecting(Api::Gemini),
        Step::reply(Reply::text("for anyone")),
        Step::reply(Reply::text("for anthropic")).expecting(Api::Anthropic),
    ]);
    let text = |path: &str, pointer: &str| post(&server, path, &json!({"model": "m"})).json().pointer(pointer).cloned();
    assert_eq!(text("/v1/messages", "/content/0/text"), Some(json!("for anyone")));
    assert_eq!(text("/v1/messages", "/content/0/text"), Some(json!("for anthropic")));
    let answer = post(&server, "/v1/chat/completions", &json!({"model": "m"}));
    let message = check_error_shape(Api::OpenAiChat, 500, &answer.json());
    assert!(message.contains("none expecting this API"), "{message}");
    assert_eq!(text(GEMINI_PATH, "/candidates/0/content/parts/0/text"), Some(json!("for gemini")));
}
