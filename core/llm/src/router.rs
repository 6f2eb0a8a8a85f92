//! The client layer (unified-llm-spec 2.2, 2.3): provider routing and middleware over any
//! number of [`LlmClient`]s.

use std::fmt;
use std::rc::Rc;

use async_trait::async_trait;

use super::client::{EventStream, LlmClient};
use super::error::{ErrorKind, LlmError};
use super::json::join;
use super::json_text;
use super::types::{Request, Response};

/// Wraps every call: inspect or change the request, the response, or the stream's events.
/// Registration order is the order on the way in; the way out is the reverse (an onion).
#[async_trait(?Send)]
pub trait Middleware {
    async fn complete(&self, request: &Request, next: Next<'_>) -> Result<Response, LlmError> {
        next.complete(request).await
    }

    async fn stream(&self, request: &Request, next: Next<'_>) -> Result<EventStream, LlmError> {
        next.stream(request).await
    }
}

/// The rest of the chain: the remaining middleware, then the provider.
#[derive(Clone, Copy)]
pub struct Next<'a> {
    middleware: &'a [Rc<dyn Middleware>],
    target: &'a dyn LlmClient,
}

impl Next<'_> {
    pub async fn complete(self, request: &Request) -> Result<Response, LlmError> {
        match self.middleware.split_first() {
            Some((first, rest)) => first.complete(request, Next { middleware: rest, target: self.target }).await,
            None => self.target.complete(request).await,
        }
    }

    pub async fn stream(self, request: &Request) -> Result<EventStream, LlmError> {
        match self.middleware.split_first() {
            Some((first, rest)) => first.stream(request, Next { middleware: rest, target: self.target }).await,
            None => self.target.stream(request).await,
        }
    }
}

/// Routes each request to the provider it names, or to the default provider. Never guesses: a
/// request for an unknown provider, or none with no default, is a configuration error.
#[derive(Default)]
pub struct Client {
    providers: Vec<(String, Rc<dyn LlmClient>)>,
    default_provider: Option<String>,
    middleware: Vec<Rc<dyn Middleware>>,
}

impl Client {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a provider. The first one added becomes the default.
    pub fn register(&mut self, name: impl Into<String>, client: Rc<dyn LlmClient>) {
        let name = name.into();
        self.default_provider.get_or_insert_with(|| name.clone());
        match self.providers.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = client,
            None => self.providers.push((name, client)),
        }
    }

    pub fn set_default_provider(&mut self, name: impl Into<String>) {
        self.default_provider = Some(name.into());
    }

    pub fn default_provider(&self) -> Option<&str> {
        self.default_provider.as_deref()
    }

    pub fn provider_names(&self) -> Vec<&str> {
        self.providers.iter().map(|(n, _)| n.as_str()).collect()
    }

    pub fn add_middleware(&mut self, middleware: Rc<dyn Middleware>) {
        self.middleware.push(middleware);
    }

    fn route(&self, request: &Request) -> Result<&dyn LlmClient, LlmError> {
        let name = request.provider.as_deref().or(self.default_provider.as_deref()).ok_or_else(|| {
            LlmError::new(ErrorKind::Configuration, "no provider is configured: set an API key (e.g. OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY) or register a provider")
        })?;
        self.providers.iter().find(|(n, _)| n == name).map(|(_, c)| &**c).ok_or_else(|| {
            LlmError::new(
                ErrorKind::Configuration,
                format!(
                    "unknown provider {}; configured providers: {}",
                    json_text::quote(name),
                    join(&mut self.providers.iter().map(|(n, _)| n.as_str()), ", ")
                ),
            )
        })
    }

    fn chain<'a>(&'a self, target: &'a dyn LlmClient) -> Next<'a> {
        Next { middleware: &self.middleware, target }
    }
}

/// Names only: the providers themselves hold keys and are not shown.
impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("providers", &self.provider_names())
            .field("default_provider", &self.default_provider)
            .field("middleware", &self.middleware.len())
            .finish()
    }
}

#[async_trait(?Send)]
impl LlmClient for Client {
    fn provider(&self) -> &str {
        self.default_provider.as_deref().unwrap_or("none")
    }

    async fn complete(&self, request: &Request) -> Result<Response, LlmError> {
        self.chain(self.route(request)?).complete(request).await
    }

    async fn stream(&self, request: &Request) -> Result<EventStream, LlmError> {
        self.chain(self.route(request)?).stream(request).await
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::cell::RefCell;

    use futures::executor::block_on;
    use futures::StreamExt;

    use super::*;
    use crate::{ScriptStep, ScriptedClient, StreamEvent};

    fn request(provider: Option<&str>) -> Request {
        Request { provider: provider.map(Into::into), ..Request::default() }
    }

    #[test]
    fn routes_by_provider_then_default_and_never_guesses() {
        let a = Rc::new(ScriptedClient::new([ScriptStep::text("from a"), ScriptStep::text("a again")]));
        let b = Rc::new(ScriptedClient::new([ScriptStep::text("from b")]));
        let mut client = Client::new();
        assert_eq!(block_on(client.complete(&request(None))).unwrap_err().kind, ErrorKind::Configuration);
        client.register("a", a.clone());
        client.register("b", b.clone());
        assert_eq!(block_on(client.complete(&request(Some("b")))).unwrap().text(), "from b");
        assert_eq!(block_on(client.complete(&request(None))).unwrap().text(), "from a");
        let err = block_on(client.complete(&request(Some("c")))).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Configuration);
        assert!(err.message.contains("configured providers: a, b"));
    }

    /// Records the order it is entered and left in, and counts stream events passing through.
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
            let log = self.1.clone();
            let name = self.0;
            let events = next.stream(request).await?;
            Ok(Box::pin(events.inspect(move |e| {
                if matches!(e, StreamEvent::Finish { .. }) {
                    log.borrow_mut().push(format!("{name} saw finish"));
                }
            })))
        }
    }

    #[test]
    fn middleware_wraps_calls_like_an_onion_and_sees_stream_events() {
        let log = Rc::new(RefCell::new(Vec::new()));
        let mut client = Client::new();
        client.register("p", Rc::new(ScriptedClient::new([ScriptStep::text("hi"), ScriptStep::text("there")])));
        client.add_middleware(Rc::new(Trace("first", log.clone())));
        client.add_middleware(Rc::new(Trace("second", log.clone())));
        block_on(client.complete(&request(None))).unwrap();
        assert_eq!(*log.borrow(), ["first in", "second in", "second out", "first out"]);
        log.borrow_mut().clear();
        block_on(async { client.stream(&request(None)).await.unwrap().collect::<Vec<_>>().await });
        assert_eq!(*log.borrow(), ["second saw finish", "first saw finish"]);
    }
}
