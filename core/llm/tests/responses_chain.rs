//! `provider_options.openai.chain`: a conversation the server keeps. Once a response has come,
//! the next request names it (`previous_response_id`) and sends only the messages after its
//! answer; a changed history or a server that forgot the response gets the whole request again.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use futures::StreamExt;
use openagent_llm::http::{HttpClient, HttpError, HttpRequest, HttpResponse};
use openagent_llm::openai_responses::OpenAiResponses;
use openagent_llm::{
    ApiKey, ContentPart, ErrorKind, HttpLlmClient, LlmClient, Message, MessageMemo, ProviderConfig, Request, Role, ToolCall,
    ToolResult,
};
use serde_json::{json, Value};

/// Plays `answers` (status, body) in order and keeps each request's JSON body.
struct Server {
    answers: RefCell<VecDeque<(u16, String)>>,
    bodies: Rc<RefCell<Vec<Value>>>,
}

#[async_trait(?Send)]
impl HttpClient for Server {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        self.bodies.borrow_mut().push(serde_json::from_slice(&request.body.to_vec()).expect("a JSON body"));
        let (status, body) = self.answers.borrow_mut().pop_front().expect("an answer for every request");
        let chunks: Vec<Result<Vec<u8>, HttpError>> = vec![Ok(body.into_bytes())];
        Ok(HttpResponse { status, headers: vec![], body: Box::pin(futures::stream::iter(chunks)) })
    }
}

/// A streamed response `id` that calls a tool.
fn calling(id: &str) -> (u16, String) {
    let call = json!({"type": "function_call", "id": "fc_1", "call_id": format!("call_{id}"), "name": "read", "arguments": "{}"});
    let events = [
        json!({"type": "response.created", "response": {"id": id, "model": "gpt-5-nano", "output": []}}),
        json!({"type": "response.output_item.done", "item": call}),
        json!({"type": "response.completed", "response": {"id": id, "status": "completed", "output": [call],
               "usage": {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}}}),
    ];
    (200, events.iter().map(|event| format!("data: {event}\n\n")).collect())
}

fn forgotten() -> (u16, String) {
    let error = json!({"error": {"message": "Previous response with id 'resp_1' not found.", "type": "invalid_request_error",
                                  "param": "previous_response_id", "code": "previous_response_not_found"}});
    (400, error.to_string())
}

fn client(answers: Vec<(u16, String)>) -> (HttpLlmClient<OpenAiResponses>, Rc<RefCell<Vec<Value>>>) {
    let bodies = Rc::default();
    let server = Server { answers: RefCell::new(answers.into()), bodies: Rc::clone(&bodies) };
    let config = ProviderConfig { api_key: ApiKey::new("sk-test"), ..ProviderConfig::default() };
    (HttpLlmClient::new(OpenAiResponses::new(config), Rc::new(server)), bodies)
}

fn chained(messages: Vec<Message>) -> Request {
    let mut request = Request { model: "gpt-5-nano".into(), messages, ..Request::default() };
    request.provider_options = Some(json!({"openai": {"chain": true}}));
    request.memo = MessageMemo::new();
    request
}

/// Streams `request` to its end, then adds the answer and a result for its call, as a session does.
fn round(client: &HttpLlmClient<OpenAiResponses>, request: &mut Request) {
    let events: Vec<_> = block_on(block_on(client.stream(request)).expect("a stream").collect());
    let Some(id) = events.iter().find_map(|event| match event {
        openagent_llm::StreamEvent::StreamStart { id, .. } => id.clone(),
        _ => None,
    }) else {
        panic!("no response id in {events:?}")
    };
    let call_id = format!("call_{id}");
    let call = ContentPart::ToolCall { tool_call: ToolCall::from_raw(&call_id, "read", "{}") };
    request.messages.push(Message::new(Role::Assistant, vec![call]));
    request.messages.push(Message::tool_result(ToolResult::new(call_id, format!("output of {id}"), false)));
}

fn kinds(body: &Value) -> Vec<&str> {
    body["input"].as_array().unwrap().iter().map(|item| item["type"].as_str().unwrap()).collect()
}

#[test]
fn each_request_after_the_first_sends_only_what_follows_the_last_response() {
    let (client, bodies) = client(vec![calling("resp_1"), calling("resp_2"), calling("resp_3")]);
    let mut request = chained(vec![Message::system("Be brief."), Message::user("Read it.")]);
    for _ in 0..3 {
        round(&client, &mut request);
    }
    let bodies = bodies.borrow();
    assert_eq!(bodies[0].get("previous_response_id"), None);
    assert_eq!(kinds(&bodies[0]), ["message"]);
    assert_eq!((&bodies[0]["store"], bodies[0].get("chain")), (&json!(true), None), "stored, and `chain` is not sent");
    for (body, previous) in bodies[1..].iter().zip(["resp_1", "resp_2"]) {
        assert_eq!(body["previous_response_id"], previous);
        assert_eq!(kinds(body), ["function_call_output"], "{body}");
        assert_eq!(body["input"][0]["output"], format!("output of {previous}"));
        assert_eq!(body["instructions"], "Be brief.", "instructions go with every request");
    }
}

#[test]
fn a_changed_history_or_a_forgotten_response_sends_the_whole_conversation() {
    let (client, bodies) = client(vec![calling("resp_1"), forgotten(), calling("resp_2"), calling("resp_3"), calling("resp_4")]);
    let mut request = chained(vec![Message::user("Read it.")]);
    round(&client, &mut request);
    // The server forgot resp_1: the request goes again, whole, and the conversation goes on from resp_2.
    round(&client, &mut request);
    round(&client, &mut request);
    // A compaction replaced the history: whole again.
    request.messages.truncate(1);
    request.memo.forget_from(0);
    round(&client, &mut request);
    let bodies = bodies.borrow();
    let previous: Vec<Option<&str>> = bodies.iter().map(|b| b.get("previous_response_id").and_then(Value::as_str)).collect();
    assert_eq!(previous, [None, Some("resp_1"), None, Some("resp_2"), None]);
    assert_eq!(kinds(&bodies[2]), ["message", "function_call", "function_call_output"]);
    assert_eq!(kinds(&bodies[4]), ["message"]);
}

#[test]
fn an_error_that_is_not_a_forgotten_response_is_returned_and_chain_needs_store() {
    let rate_limited = (429, json!({"error": {"message": "slow down", "code": "rate_limit_exceeded"}}).to_string());
    let (client, bodies) = client(vec![calling("resp_1"), rate_limited]);
    let mut request = chained(vec![Message::user("Read it.")]);
    round(&client, &mut request);
    let error = block_on(client.stream(&request)).err().expect("the 429");
    assert_eq!(error.kind, ErrorKind::RateLimit);
    assert_eq!(bodies.borrow().len(), 2, "not sent again");

    request.provider_options = Some(json!({"openai": {"chain": true, "store": false}}));
    let error = block_on(client.stream(&request)).err().expect("refused");
    assert!(error.message.contains("needs store true"), "{error}");
    request.provider_options = Some(json!({"openai": {"chain": "yes"}}));
    assert!(block_on(client.stream(&request)).err().expect("refused").message.contains("true or false"));
}
