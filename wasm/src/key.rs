//! A key asked of the page for each model call (`getApiKey`), so the key can live in a vault or
//! be renewed while an agent runs. The codec is rebuilt only when the key changes.

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use js_sys::{Function, Promise};
use openagent_core::llm::http::HttpClient;
use openagent_core::llm::{ApiKey, ErrorKind, EventStream, LlmClient, LlmError, Request, Response};
use openagent_core::setup::ProviderSettings;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::fetch::describe;

/// The client of settings whose key the page gives ([`KeySource::Host`](openagent_core::setup::KeySource)).
pub struct KeyedClient {
    get_key: Function,
    http: Rc<dyn HttpClient>,
    settings: ProviderSettings,
    provider: String,
    /// The last key, and the codec built with it.
    current: RefCell<Option<(String, Rc<dyn LlmClient>)>>,
}

impl KeyedClient {
    pub fn new(settings: ProviderSettings, get_key: Function, http: Rc<dyn HttpClient>) -> Self {
        let provider = settings.client(http.clone(), true).provider().to_owned();
        Self { get_key, http, settings, provider, current: RefCell::new(None) }
    }

    async fn client(&self) -> Result<Rc<dyn LlmClient>, LlmError> {
        let no_key = |why: String| LlmError::new(ErrorKind::Authentication, format!("getApiKey() gave no key: {why}"));
        let returned = self.get_key.call0(&JsValue::NULL).map_err(|e| no_key(describe(&e)))?;
        let value = JsFuture::from(Promise::resolve(&returned)).await.map_err(|e| no_key(describe(&e)))?;
        let key = value.as_string().map(|k| k.trim().to_owned()).filter(|k| !k.is_empty());
        let key = key.ok_or_else(|| no_key("it returned no string, or an empty one".into()))?;
        let mut current = self.current.borrow_mut();
        match &*current {
            Some((last, client)) if *last == key => Ok(client.clone()),
            _ => {
                let fresh = self.settings.client_with_key(ApiKey::new(key.clone()), self.http.clone(), true);
                *current = Some((key, fresh.clone()));
                Ok(fresh)
            }
        }
    }
}

#[async_trait(?Send)]
impl LlmClient for KeyedClient {
    fn provider(&self) -> &str {
        &self.provider
    }

    async fn complete(&self, request: &Request) -> Result<Response, LlmError> {
        self.client().await?.complete(request).await
    }

    async fn stream(&self, request: &Request) -> Result<EventStream, LlmError> {
        self.client().await?.stream(request).await
    }
}
