//! A server (or a proxy in front of it) that answers 200 with something other than a response:
//! an HTML page, a JSON error object, or a body with no end. Every codec, whole and streamed,
//! must end in an error that carries the server's own words, and never hold more than the
//! response cap in memory.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::Cell;
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use futures::StreamExt;
use openagent_llm::anthropic_messages::AnthropicMessages;
use openagent_llm::gemini::Gemini;
use openagent_llm::http::{HttpClient, HttpError, HttpRequest, HttpResponse};
use openagent_llm::openai_chat::OpenAiChat;
use openagent_llm::openai_responses::OpenAiResponses;
use openagent_llm::{ApiKey, HttpLlmClient, LlmClient, LlmError, Message, ProviderConfig, Request, StreamEvent};

/// Answers every request 200 with `body`, in chunks of `chunk` bytes, `repeat` times over.
struct Odd {
    body: Vec<u8>,
    repeat: usize,
    sent: Rc<Cell<usize>>,
}

#[async_trait(?Send)]
impl HttpClient for Odd {
    async fn send(&self, _request: HttpRequest) -> Result<HttpResponse, HttpError> {
        let (body, sent) = (self.body.clone(), self.sent.clone());
        let chunks = futures::stream::iter(0..self.repeat).map(move |_| {
            sent.set(sent.get() + body.len());
            Ok(body.clone())
        });
        Ok(HttpResponse { status: 200, headers: vec![], body: Box::pin(chunks) })
    }
}

fn clients(http: Rc<dyn HttpClient>, max_response_bytes: Option<usize>) -> Vec<(&'static str, Rc<dyn LlmClient>)> {
    let config = ProviderConfig { api_key: ApiKey::new("k"), base_url: "http://127.0.0.1:1".into(), ..Default::default() };
    macro_rules! client {
        ($codec:expr) => {{
            let client = HttpLlmClient::new($codec, http.clone());
            Rc::new(match max_response_bytes {
                Some(max) => client.with_max_response_bytes(max),
                None => client,
            }) as Rc<dyn LlmClient>
        }};
    }
    vec![
        ("anthropic", client!(AnthropicMessages::new(config.clone()))),
        ("responses", client!(OpenAiResponses::new(config.clone()))),
        ("chat", client!(OpenAiChat::new(config.clone()))),
        ("gemini", client!(Gemini::new(config))),
    ]
}

fn request() -> Request {
    Request { model: "m".into(), messages: vec![Message::user("hi")], ..Request::default() }
}

/// The error a whole call ends in, and the one a stream ends in.
fn errors(client: &Rc<dyn LlmClient>) -> (LlmError, LlmError) {
    let whole = block_on(client.complete(&request())).expect_err("not a response");
    let streamed = block_on(async {
        match client.stream(&request()).await {
            Err(error) => error,
            Ok(events) => {
                let events: Vec<StreamEvent> = events.collect().await;
                events
                    .into_iter()
                    .find_map(|e| match e {
                        StreamEvent::Error { error } => Some(error),
                        _ => None,
                    })
                    .expect("the stream ends in an error")
            }
        }
    });
    (whole, streamed)
}

fn serve(body: &str, repeat: usize) -> (Rc<dyn HttpClient>, Rc<Cell<usize>>) {
    let sent = Rc::new(Cell::new(0));
    (Rc::new(Odd { body: body.as_bytes().to_vec(), repeat, sent: sent.clone() }), sent)
}

#[test]
fn an_html_page_with_status_200_is_an_error_that_quotes_the_page() {
    let page = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>nginx</body></html>";
    let (http, _) = serve(page, 1);
    for (api, client) in clients(http, None) {
        let (whole, streamed) = errors(&client);
        for error in [whole, streamed] {
            assert!(error.message.contains("502 Bad Gateway"), "{api}: {error}");
        }
    }
}

#[test]
fn a_json_error_with_status_200_is_an_error_with_the_servers_message() {
    let body = r#"{"error": {"message": "The model is overloaded, try again later", "type": "server_error"}}"#;
    let (http, _) = serve(body, 1);
    for (api, client) in clients(http, None) {
        let (whole, streamed) = errors(&client);
        for error in [whole, streamed] {
            assert!(error.message.contains("The model is overloaded"), "{api}: {error}");
        }
    }
}

#[test]
fn a_body_without_end_is_cut_at_the_response_cap() {
    // 1 KiB chunks of one endless SSE line, 64 MiB of them if nobody stops reading.
    let chunk = format!("data: {}", "x".repeat(1018));
    let (http, sent) = serve(&chunk, 64 * 1024);
    for (api, client) in clients(http, Some(256 * 1024)) {
        sent.set(0);
        let (whole, streamed) = errors(&client);
        for error in [whole, streamed] {
            assert!(error.message.contains("256 KiB"), "{api}: {error}");
        }
        assert!(sent.get() < 2 * 1024 * 1024, "{api}: {} bytes were read", sent.get());
    }
}

#[test]
fn the_errors_read_well() {
    let (http, _) = serve("<html><body><h1>502 Bad Gateway</h1></body></html>", 1);
    let (_, client) = clients(http, None).remove(2);
    let (whole, streamed) = errors(&client);
    assert!(whole.message.starts_with("the server answered 200 without a response: "), "{whole}");
    assert_eq!(whole.message, streamed.message);
}
