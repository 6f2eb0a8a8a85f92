//! `Client::from_env`: which providers register, where they send, and that the key stays in its
//! header. The model is a fake HTTP client that records requests and plays one canned answer.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::RefCell;
use std::collections::HashMap;

use async_trait::async_trait;
use futures::executor::block_on;
use futures::StreamExt;

use super::*;
use crate::anthropic_messages::AnthropicMessages;
use crate::gemini::Gemini;
use crate::http::{HttpError, HttpRequest, HttpResponse};
use crate::openai_chat::OpenAiChat;
use crate::openai_responses::OpenAiResponses;
use crate::runtime::{Runtime, VirtualRuntime};
use crate::{generate, ErrorKind, Generate, LlmClient, LlmError, Message, Request, RetryPolicy, StreamEvent};

/// Distinctive and not `sk-`-shaped, so only redaction of the exact key can hide it (a proxy or
/// OpenAI-compatible server may issue keys of any shape).
const KEY: &str = "test-key-DO-NOT-LEAK-8c1f27";

/// Answers every request with `status` and `body`, and keeps the requests.
struct FakeHttp {
    status: u16,
    body: String,
    sent: RefCell<Vec<HttpRequest>>,
}

impl FakeHttp {
    fn new(status: u16, body: &str) -> Rc<Self> {
        Rc::new(Self { status, body: body.to_owned(), sent: RefCell::default() })
    }
}

#[async_trait(?Send)]
impl HttpClient for FakeHttp {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        self.sent.borrow_mut().push(request);
        let body: Vec<Result<Vec<u8>, HttpError>> = vec![Ok(self.body.clone().into_bytes())];
        Ok(HttpResponse { status: self.status, headers: Vec::new(), body: Box::pin(futures::stream::iter(body)) })
    }
}

fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    move |name| map.get(name).cloned()
}

fn client_with(pairs: &[(&str, &str)], http: Rc<FakeHttp>) -> Client {
    Client::from_env(vars(pairs), http).expect("the variables are valid")
}

fn names(pairs: &[(&str, &str)]) -> (Vec<String>, Option<String>) {
    let client = client_with(pairs, FakeHttp::new(500, ""));
    (client.provider_names().iter().map(|n| n.to_string()).collect(), client.default_provider().map(str::to_owned))
}

fn request_for(provider: Option<&str>) -> Request {
    Request { model: "m".into(), messages: vec![Message::user("hi")], provider: provider.map(Into::into), ..Default::default() }
}

#[test]
fn only_providers_whose_keys_are_set_register_in_order_and_the_first_is_the_default() {
    assert_eq!(names(&[]), (vec![], None));
    assert_eq!(names(&[("ANTHROPIC_API_KEY", KEY)]), (vec!["anthropic".into()], Some("anthropic".into())));
    let both = [("ANTHROPIC_API_KEY", KEY), ("OPENAI_API_KEY", KEY)];
    assert_eq!(names(&both), (vec!["openai".into(), "anthropic".into()], Some("openai".into())));
    let all = [("GEMINI_API_KEY", KEY), ("ANTHROPIC_API_KEY", KEY), ("OPENAI_API_KEY", KEY)];
    assert_eq!(names(&all).0, ["openai", "anthropic", "gemini"]);
    assert_eq!(names(&[("GOOGLE_API_KEY", KEY)]), (vec!["gemini".into()], Some("gemini".into())));
    // A blank key is no key; a base URL alone registers nothing.
    assert_eq!(
        names(&[("OPENAI_API_KEY", " \n"), ("OPENAI_BASE_URL", "http://x/v1"), ("ANTHROPIC_API_KEY", "")]),
        (vec![], None)
    );
}

#[test]
fn with_no_key_every_call_is_a_configuration_error_naming_the_variables() {
    let client = client_with(&[], FakeHttp::new(200, ""));
    let error = block_on(client.complete(&request_for(None))).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Configuration);
    assert!(error.message.contains("OPENAI_API_KEY") && error.message.contains("ANTHROPIC_API_KEY"), "{error}");
    assert!(!error.retryable);
}

#[test]
fn base_urls_have_defaults_and_overrides_and_openai_gets_its_org_headers() {
    let http = FakeHttp::new(500, "{}");
    let client = client_with(&[("OPENAI_API_KEY", KEY), ("ANTHROPIC_API_KEY", KEY), ("GEMINI_API_KEY", KEY)], http.clone());
    for provider in ["openai", "anthropic", "gemini"] {
        let _ = block_on(client.complete(&request_for(Some(provider))));
    }
    let urls: Vec<String> = http.sent.borrow().iter().map(|r| r.url.clone()).collect();
    assert_eq!(urls[0], "https://api.openai.com/v1/responses");
    assert_eq!(urls[1], "https://api.anthropic.com/v1/messages");
    assert_eq!(urls[2], "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent");
    assert_eq!(urls.len(), 3, "a 500 is not retried by the low-level client");

    let http = FakeHttp::new(500, "{}");
    let pairs = [
        ("OPENAI_API_KEY", KEY),
        ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/"),
        ("OPENAI_ORG_ID", "org-1"),
        ("OPENAI_PROJECT_ID", "proj-1"),
        ("ANTHROPIC_API_KEY", KEY),
        ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9"),
        ("GOOGLE_API_KEY", "ignored: GEMINI_API_KEY wins"),
        ("GEMINI_API_KEY", KEY),
        ("GEMINI_BASE_URL", "http://127.0.0.1:9/"),
    ];
    let client = client_with(&pairs, http.clone());
    let _ = block_on(client.complete(&request_for(None)));
    let _ = block_on(client.stream(&request_for(Some("anthropic"))));
    let _ = block_on(client.stream(&request_for(Some("gemini"))));
    let sent = http.sent.borrow();
    assert_eq!(sent[2].url, "http://127.0.0.1:9/v1beta/models/m:streamGenerateContent?alt=sse");
    assert_eq!(sent[2].header("x-goog-api-key"), Some(KEY));
    assert_eq!(
        (sent[0].url.as_str(), sent[1].url.as_str()),
        ("http://127.0.0.1:9/v1/responses", "http://127.0.0.1:9/v1/messages")
    );
    assert_eq!((sent[0].header("openai-organization"), sent[0].header("openai-project")), (Some("org-1"), Some("proj-1")));
    assert_eq!(sent[1].header("openai-organization"), None);
}

#[test]
fn the_key_travels_only_in_its_header() {
    let http = FakeHttp::new(500, "{}");
    let client = client_with(&[("OPENAI_API_KEY", KEY), ("ANTHROPIC_API_KEY", KEY), ("GOOGLE_API_KEY", KEY)], http.clone());
    for provider in ["openai", "anthropic", "gemini"] {
        let _ = block_on(client.complete(&request_for(Some(provider))));
    }
    let sent = http.sent.borrow();
    let bearer = format!("Bearer {KEY}");
    assert_eq!(sent[0].header("authorization"), Some(bearer.as_str()));
    assert_eq!(sent[1].header("x-api-key"), Some(KEY));
    assert_eq!(sent[2].header("x-goog-api-key"), Some(KEY));
    for request in sent.iter() {
        assert!(!request.url.contains(KEY) && !String::from_utf8_lossy(&request.body.to_vec()).contains(KEY));
    }
}

/// Each provider's 401 and mid-stream error, both echoing the key back as proxies and OpenAI do.
fn echoing_answers() -> [(u16, String); 4] {
    let http_error = format!(
        r#"{{"type": "error", "error": {{"type": "authentication_error", "code": "invalid_api_key",
            "message": "Incorrect API key provided: {KEY}", "param": "{KEY}"}}}}"#
    );
    let error_event = format!(
        r#"{{"type": "error", "code": "server_error", "message": "upstream refused {KEY}", "error": {{"type": "api_error", "message": "upstream refused {KEY}"}}}}"#
    );
    let stream = format!("event: error\ndata: {error_event}\n\n");
    [(401, http_error.clone()), (429, http_error), (200, stream.clone()), (200, stream)]
}

#[test]
fn the_key_never_appears_in_debug_output_or_any_error() {
    let mut seen = Vec::new();
    for (status, body) in echoing_answers() {
        let http = FakeHttp::new(status, &body);
        let pairs = [("OPENAI_API_KEY", KEY), ("ANTHROPIC_API_KEY", KEY), ("GEMINI_API_KEY", KEY)];
        let mut client = client_with(&pairs, http.clone());
        client.add_openai_compatible("http://127.0.0.1:9/v1", Some(ApiKey::new(KEY)), http.clone());
        seen.push(format!("{client:?}"));
        for provider in ["openai", "anthropic", "gemini", "openai-compatible"] {
            let request = request_for(Some(provider));
            let errors = if status == 200 { stream_errors(&client, &request) } else { vec![complete_error(&client, &request)] };
            assert!(!errors.is_empty(), "{provider} {status}: no error came back");
            for error in errors {
                seen.push(format!("{error} {error:?} {}", serde_json::to_string(&error).unwrap()));
            }
        }
        seen.extend(http.sent.borrow().iter().map(|r| format!("{r:?}")));
    }
    let config = ProviderConfig {
        api_key: ApiKey::new(KEY),
        default_headers: vec![("api-key".into(), KEY.into()), ("x-trace".into(), "t".into())],
        ..Default::default()
    };
    seen.push(format!("{config:?} {:?}", AnthropicMessages::new(config.clone())));
    seen.push(format!("{:?} {:?}", OpenAiResponses::new(config.clone()), OpenAiChat::new(config.clone())));
    seen.push(format!("{:?}", Gemini::new(config)));
    for text in &seen {
        assert!(!text.contains(KEY), "the key leaked: {text}");
    }
    assert!(seen.iter().any(|t| t.contains("[redacted]")), "some output had the key and hid it");
}

fn complete_error(client: &Client, request: &Request) -> LlmError {
    block_on(client.complete(request)).expect_err("the fake answers an error")
}

/// The errors of a stream: its opening's, or the error events it carried.
fn stream_errors(client: &Client, request: &Request) -> Vec<LlmError> {
    match block_on(client.stream(request)) {
        Err(error) => vec![error],
        Ok(events) => block_on(events.collect::<Vec<_>>())
            .into_iter()
            .filter_map(|e| match e {
                StreamEvent::Error { error } => Some(error),
                _ => None,
            })
            .collect(),
    }
}

#[test]
fn an_openai_compatible_server_is_reached_with_or_without_a_key() {
    let http = FakeHttp::new(500, "{}");
    let mut client = Client::new();
    client.add_openai_compatible("http://127.0.0.1:8080/v1", None, http.clone());
    assert_eq!((client.provider_names(), client.default_provider()), (vec!["openai-compatible"], Some("openai-compatible")));
    let error = block_on(client.complete(&request_for(None))).unwrap_err();
    assert_eq!(error.provider.as_deref(), Some("openai-compatible"));
    client.add_openai_compatible("http://127.0.0.1:8081/v1", Some(ApiKey::new(KEY)), http.clone());
    let _ = block_on(client.complete(&request_for(None)));
    let sent = http.sent.borrow();
    assert_eq!((sent[0].url.as_str(), sent[0].header("authorization")), ("http://127.0.0.1:8080/v1/chat/completions", None));
    let bearer = format!("Bearer {KEY}");
    assert_eq!(
        (sent[1].url.as_str(), sent[1].header("authorization")),
        ("http://127.0.0.1:8081/v1/chat/completions", Some(bearer.as_str()))
    );
}

#[test]
fn an_openai_compatible_server_registers_from_its_variables_after_the_keyed_providers() {
    let local = [("OPENAI_COMPATIBLE_BASE_URL", "http://127.0.0.1:8080/v1/"), ("OPENAI_COMPATIBLE_API_KEY", KEY)];
    assert_eq!(names(&local), (vec!["openai-compatible".into()], Some("openai-compatible".into())));
    assert_eq!(names(&[("OPENAI_COMPATIBLE_API_KEY", KEY)]), (vec![], None), "a key alone names no server");
    let both = [local[0], local[1], ("GEMINI_API_KEY", KEY)];
    assert_eq!(names(&both), (vec!["gemini".into(), "openai-compatible".into()], Some("gemini".into())));

    let http = FakeHttp::new(500, "{}");
    let client = client_with(&local, http.clone());
    let _ = block_on(client.complete(&request_for(None)));
    let sent = &http.sent.borrow()[0];
    let bearer = format!("Bearer {KEY}");
    assert_eq!(
        (sent.url.as_str(), sent.header("authorization")),
        ("http://127.0.0.1:8080/v1/chat/completions", Some(bearer.as_str()))
    );

    let bad = Client::from_env(vars(&[("OPENAI_COMPATIBLE_BASE_URL", "127.0.0.1:8080/v1")]), FakeHttp::new(500, ""));
    assert_eq!(bad.unwrap_err().to_string(), "the base URL `127.0.0.1:8080/v1` is not an http:// or https:// URL");
}

#[test]
fn the_low_level_client_never_retries_and_generate_retries_each_call() {
    let http = FakeHttp::new(500, "{}");
    let client = client_with(&[("ANTHROPIC_API_KEY", KEY)], http.clone());
    let error = block_on(client.complete(&request_for(None))).unwrap_err();
    assert_eq!((error.kind, error.retryable, http.sent.borrow().len()), (ErrorKind::Server, true, 1));
    let opened = block_on(client.stream(&request_for(None)));
    assert!(opened.is_err() && http.sent.borrow().len() == 2, "a stream is not retried either");

    let runtime = VirtualRuntime::new(|_| {});
    let mut options = Generate::new("m", "hi");
    options.retry = RetryPolicy { jitter: false, ..RetryPolicy::default() };
    let start = runtime.now_ms();
    let error = block_on(generate(&client, &runtime, options.clone())).unwrap_err();
    assert_eq!((error.kind, http.sent.borrow().len()), (ErrorKind::Server, 5), "the first try and max_retries = 2");
    assert_eq!(runtime.now_ms() - start, 3000, "waited 1 s, then 2 s");
    options.retry.max_retries = 0;
    let _ = block_on(generate(&client, &runtime, options));
    assert_eq!(http.sent.borrow().len(), 6, "max_retries = 0 disables retrying");
}
