//! `Client::from_env` over real HTTP (unified-llm-spec 2.2, 2.3, 8.1): the variables point each
//! provider at the mock LLM server, and the mock's recording shows where each call went, with
//! which key, through which middleware, and that only the high-level functions retry.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use futures::StreamExt;
use openagent_core::llm::{
    generate, ApiKey, Client, ErrorKind, EventStream, Generate, LlmClient, LlmError, Message, Middleware, Next, Request,
    Response, RetryPolicy, StreamEvent,
};
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::{SessionError, StopReason};
use openagent_core::tools::ToolRegistry;
use openagent_core::{CoreProfile, Session};
use openagent_host::NativeHttpClient;
use openagent_memenv::MemoryEnvironment;
use openagent_tests::{Api, MockServer, Reply, Step};

use openagent_tests::over_http::{assert_no_key_in, drain, key_sent, serve, KEY};

fn env_client(server: &MockServer) -> Client {
    let vars: HashMap<&str, String> = HashMap::from([
        ("OPENAI_API_KEY", KEY.to_owned()),
        ("OPENAI_BASE_URL", format!("{}/v1", server.base_url())),
        ("ANTHROPIC_API_KEY", KEY.to_owned()),
        ("ANTHROPIC_BASE_URL", server.base_url()),
        ("GOOGLE_API_KEY", KEY.to_owned()),
        ("GEMINI_BASE_URL", server.base_url()),
    ]);
    Client::from_env(|name| vars.get(name).cloned(), Rc::new(NativeHttpClient::new())).expect("valid variables")
}

fn request(provider: Option<&str>) -> Request {
    Request {
        model: "mock-model".into(),
        messages: vec![Message::user("hi")],
        provider: provider.map(Into::into),
        ..Default::default()
    }
}

#[test]
fn from_env_routes_by_provider_and_defaults_to_the_first_registered() {
    let replies = ["from openai", "from anthropic", "from gemini"].map(|text| Step::reply(Reply::text(text)));
    let server = serve(replies);
    let client = env_client(&server);
    assert_eq!(client.default_provider(), Some("openai"));
    let answers = [None, Some("anthropic"), Some("gemini")].map(|provider| {
        let response = block_on(client.complete(&request(provider))).unwrap_or_else(|e| panic!("{provider:?}: {e}"));
        (response.provider.clone(), response.text())
    });
    let expected = [("openai", "from openai"), ("anthropic", "from anthropic"), ("gemini", "from gemini")];
    assert_eq!(answers, expected.map(|(p, t)| (p.to_owned(), t.to_owned())));
    let requests = server.requests();
    let apis = [Api::OpenAiResponses, Api::Anthropic, Api::Gemini];
    for (request, api) in requests.iter().zip(apis) {
        assert_eq!((request.api, key_sent(api, request)), (Some(api), Some(KEY)));
    }

    let unknown = block_on(client.complete(&request(Some("mistral")))).expect_err("not configured");
    assert_eq!(unknown.kind, ErrorKind::Configuration);
    assert!(unknown.message.contains("openai, anthropic, gemini"), "{unknown}");
    assert!(!format!("{client:?}").contains(KEY));
}

/// Spec 6.6: the low-level client gives the 503 back at once; `generate` retries its call.
#[test]
fn from_env_providers_do_not_retry_but_generate_does_over_http() {
    let server = serve([Step::error(503, None), Step::error(500, None), Step::reply(Reply::text("third try"))]);
    let client = env_client(&server);
    let error = block_on(client.complete(&request(Some("anthropic")))).expect_err("not retried");
    assert_eq!((error.kind, server.requests().len()), (ErrorKind::Server, 1));
    let mut options = Generate::new("mock-model", "hi");
    options.retry = RetryPolicy { jitter: false, ..RetryPolicy::default() };
    let clock = VirtualRuntime::new(|_| {});
    let result = block_on(generate(&client, &clock, options)).expect("retried");
    assert_eq!((result.text(), server.requests().len()), ("third try", 3));
}

#[test]
fn from_env_registers_an_openai_compatible_server_from_its_variables() {
    let server = serve([Step::reply(Reply::text("local model"))]);
    let vars = HashMap::from([("OPENAI_COMPATIBLE_BASE_URL", format!("{}/v1", server.base_url()))]);
    let client = Client::from_env(|name| vars.get(name).cloned(), Rc::new(NativeHttpClient::new())).expect("valid");
    let response = block_on(client.complete(&request(None))).expect("answers");
    assert_eq!((response.provider.as_str(), response.text().as_str()), ("openai-compatible", "local model"));
    assert_eq!((server.requests()[0].api, server.requests()[0].header("authorization")), (Some(Api::OpenAiChat), None));
}

/// Logs its name on the way in and out, and each streamed `Finish` it sees pass.
struct Trace(&'static str, Rc<RefCell<Vec<String>>>);

#[async_trait(?Send)]
impl Middleware for Trace {
    async fn complete(&self, request: &Request, next: Next<'_>) -> Result<Response, LlmError> {
        self.1.borrow_mut().push(format!("{} in", self.0));
        let response = next.complete(request).await;
        self.1.borrow_mut().push(format!("{} out", self.0));
        response
    }

    async fn stream(&self, request: &Request, next: Next<'_>) -> Result<EventStream, LlmError> {
        let (name, log) = (self.0, self.1.clone());
        let events = next.stream(request).await?;
        Ok(Box::pin(events.inspect(move |e| {
            if matches!(e, StreamEvent::Finish { .. }) {
                log.borrow_mut().push(format!("{name} saw finish"));
            }
        })))
    }
}

#[test]
fn middleware_wraps_http_calls_in_registration_order() {
    let server = serve([Step::reply(Reply::text("whole")), Step::reply(Reply::text("streamed"))]);
    let log = Rc::new(RefCell::new(Vec::new()));
    let mut client = env_client(&server);
    client.add_middleware(Rc::new(Trace("first", log.clone())));
    client.add_middleware(Rc::new(Trace("second", log.clone())));
    block_on(client.complete(&request(None))).expect("answers");
    assert_eq!(*log.borrow(), ["first in", "second in", "second out", "first out"]);
    log.borrow_mut().clear();
    let events: Vec<StreamEvent> = block_on(async { client.stream(&request(None)).await.expect("opens").collect().await });
    assert!(matches!(events.last(), Some(StreamEvent::Finish { .. })));
    assert_eq!(*log.borrow(), ["second saw finish", "first saw finish"]);
}

#[test]
fn an_openai_compatible_server_gets_a_bearer_token_only_when_there_is_a_key() {
    let server = serve([Step::reply(Reply::text("local model")), Step::reply(Reply::text("hosted model"))]);
    let base_url = format!("{}/v1", server.base_url());
    let mut client = Client::new();
    let add = |client: &mut Client, key: Option<ApiKey>| {
        client.add_openai_compatible(base_url.clone(), key, Rc::new(NativeHttpClient::new()));
    };
    add(&mut client, None);
    let response = block_on(client.complete(&request(None))).expect("answers");
    assert_eq!((response.provider.as_str(), response.text().as_str()), ("openai-compatible", "local model"));
    add(&mut client, Some(ApiKey::new(KEY))); // replaces the keyless one
    block_on(client.complete(&request(None))).expect("answers");
    let requests = server.requests();
    assert_eq!((requests[0].api, requests[0].header("authorization")), (Some(Api::OpenAiChat), None));
    assert_eq!(key_sent(Api::OpenAiChat, &requests[1]), Some(KEY));
}

/// A session names its provider by its profile's id, so over a routing client the profile's id
/// must be a registered provider; the plain `CoreProfile` ("core") is refused, not guessed.
#[test]
fn a_session_over_the_env_client_uses_the_provider_its_profile_names() {
    let server = serve([Step::reply(Reply::text("hello from anthropic"))]);
    let client: Rc<dyn LlmClient> = Rc::new(env_client(&server));
    let session = |id: &str| {
        let runtime = Rc::new(VirtualRuntime::new(|_| {}));
        let profile = Rc::new(CoreProfile::new("mock-model", ToolRegistry::new()).with_id(id));
        Session::builder(profile, Rc::new(MemoryEnvironment::new(runtime.clone())), client.clone(), runtime).build()
    };
    let anthropic = session("anthropic");
    let mut receiver = anthropic.events();
    assert_eq!(block_on(anthropic.submit("hi")).expect("answers"), StopReason::Completed);
    assert_eq!(server.requests()[0].api, Some(Api::Anthropic));
    assert_no_key_in(&drain(&mut receiver));

    let core = session("core");
    let error = block_on(core.submit("hi")).expect_err("no provider named core");
    assert!(matches!(&error, SessionError::Llm(e) if e.kind == ErrorKind::Configuration), "{error}");
    assert_eq!(server.requests().len(), 1, "nothing was sent");
}
