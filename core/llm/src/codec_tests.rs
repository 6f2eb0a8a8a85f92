//! The key policy, for every codec: a key echoed back anywhere (an error body, a 200 body that is
//! an error, a stream's error event or a broken event, a transport error naming a URL) never
//! reaches an error that `HttpLlmClient` returns or streams.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::rc::Rc;

use futures::executor::block_on;
use futures::stream;

use super::*;
use crate::providers::ProviderKind;
use crate::{collect_stream, Message};

/// Not `sk-`-shaped, so only the scrub of the request's own key can hide it (a proxy or an
/// OpenAI-compatible server may issue keys of any shape).
const KEY: &str = "proxy-token-0123456789";

/// Answers with one status and body, or fails to connect with a message naming the key, as a
/// transport error that quotes a URL with `?key=` would. Checks the key is in the request.
struct Echo(Result<(u16, String), ()>);

#[async_trait(?Send)]
impl HttpClient for Echo {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        assert!(request.headers.iter().any(|(_, value)| value.ends_with(KEY)), "{:?}", request.headers);
        let (status, body) = self.0.clone().map_err(|()| {
            HttpError::new(HttpErrorKind::Connect, format!("cannot connect to https://proxy.example/v1?key={KEY}"))
        })?;
        let body: Vec<Result<Vec<u8>, HttpError>> = vec![Ok(body.into_bytes())];
        Ok(HttpResponse { status, headers: Vec::new(), body: Box::pin(stream::iter(body)) })
    }
}

fn config() -> ProviderConfig {
    ProviderConfig { api_key: ApiKey::new(KEY), base_url: "http://127.0.0.1:1/v1".into(), ..ProviderConfig::default() }
}

/// The stream error event each codec's API sends, saying `text`.
fn error_event(kind: ProviderKind, text: &str) -> String {
    let error = serde_json::json!({"message": text, "type": "server_error"});
    match kind {
        ProviderKind::Anthropic => format!("event: error\ndata: {}\n\n", serde_json::json!({"type": "error", "error": error})),
        ProviderKind::OpenAi => format!("data: {}\n\n", serde_json::json!({"type": "error", "error": error})),
        ProviderKind::OpenAiCompatible => format!("data: {}\n\n", serde_json::json!({"error": error})),
        ProviderKind::Gemini => {
            format!("data: {}\n\n", serde_json::json!({"error": {"code": 500, "message": text, "status": "INTERNAL"}}))
        }
    }
}

/// `kind`'s codec over `http`.
fn client(kind: ProviderKind, http: Echo) -> Rc<dyn LlmClient> {
    kind.client(config(), Rc::new(http))
}

fn request() -> Request {
    Request { model: "m".into(), messages: vec![Message::user("hi")], ..Request::default() }
}

/// Everything of `error` anyone could see: its message, `Debug` and serialised form.
fn shown(error: &LlmError) -> String {
    format!("{error} {error:?} {}", serde_json::to_string(error).unwrap())
}

fn streamed_error(client: &dyn LlmClient) -> LlmError {
    let events = match block_on(client.stream(&request())) {
        Ok(events) => events,
        Err(error) => return error,
    };
    block_on(collect_stream("p", events)).unwrap_err()
}

#[test]
fn an_echoed_key_never_reaches_an_error_of_any_codec() {
    let echo = format!("Incorrect API key provided: {KEY}");
    let bodies = [
        (401, serde_json::json!({"error": {"message": echo, "type": "invalid_request_error", "code": 401}}).to_string()),
        (502, format!("<html>bad gateway for {KEY}</html>")),
        (200, serde_json::json!({"error": {"message": echo, "code": 500}}).to_string()),
    ];
    for kind in ProviderKind::ALL {
        for (status, body) in &bodies {
            let error = block_on(client(kind, Echo(Ok((*status, body.clone())))).complete(&request())).unwrap_err();
            assert!(!shown(&error).contains(KEY) && shown(&error).contains("[redacted]"), "{kind}, {status}: {error:?}");
            let error = streamed_error(&*client(kind, Echo(Ok((*status, body.clone())))));
            assert!(!shown(&error).contains(KEY), "{kind}, streamed {status}: {error:?}");
        }
        let error = streamed_error(&*client(kind, Echo(Ok((200, error_event(kind, &echo))))));
        assert!(!shown(&error).contains(KEY) && error.message.contains("[redacted]"), "{kind}, event: {error:?}");
        let broken = format!("data: {{\"choices\": [{KEY}\n\n");
        let error = streamed_error(&*client(kind, Echo(Ok((200, broken)))));
        assert!(!shown(&error).contains(KEY), "{kind}, broken event: {error:?}");
        let error = block_on(client(kind, Echo(Err(()))).complete(&request())).unwrap_err();
        assert_eq!(error.message, "cannot connect to https://proxy.example/v1?key=[redacted]", "{kind}");
    }
}

#[test]
fn openai_key_shapes_are_scrubbed_even_masked_and_other_words_are_left_alone() {
    let secrets = Secrets(vec![KEY.to_owned()]);
    let text = "Incorrect API key provided: sk-proj-********1234. Also sk-proj-secret-key-1234, task-list.";
    assert_eq!(secrets.scrub_text(text), "Incorrect API key provided: [redacted]. Also [redacted], task-list.");
    let mut raw = serde_json::json!({"error": {"message": text, "details": [KEY, 7]}});
    secrets.scrub_value(&mut raw);
    assert!(!raw.to_string().contains("sk-proj") && !raw.to_string().contains(KEY), "{raw}");
}

#[test]
fn the_secrets_are_the_credential_headers_of_the_request() {
    let mut request = HttpRequest::post_json("http://x", Vec::new());
    request.headers.push(("Authorization".into(), format!("Bearer {KEY}")));
    request.headers.push(("x-goog-api-key".into(), "short".into()));
    request.headers.push(("x-trace".into(), "not-a-secret-at-all".into()));
    assert_eq!(Secrets::of(&request).0, [KEY]);
}
