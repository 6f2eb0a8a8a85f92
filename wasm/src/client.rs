//! The agent's model client. Its codec is built on the first model call, from a module of its own
//! in the package (`split`, fetched from the client's making), so a page fetches only the codec of
//! the provider it uses. The key is
//! the settings' own, or asked of the page for each call (`getApiKey`), so it can live in a vault
//! or be renewed while an agent runs; the codec is rebuilt only when the key changes.

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

pub struct AgentClient {
    settings: ProviderSettings,
    /// The page's `getApiKey`, when the key is not in the settings ([`KeySource::Host`](openagent_core::setup::KeySource)).
    get_key: Option<Function>,
    http: Rc<dyn HttpClient>,
    /// The last key, and the codec built with it.
    current: RefCell<Option<(ApiKey, Rc<dyn LlmClient>)>>,
}

impl AgentClient {
    pub fn new(settings: ProviderSettings, get_key: Option<Function>, http: Rc<dyn HttpClient>) -> Self {
        crate::split::prefetch(&settings);
        Self { settings, get_key, http, current: RefCell::new(None) }
    }

    async fn client(&self) -> Result<Rc<dyn LlmClient>, LlmError> {
        let key = match &self.get_key {
            Some(get_key) => ask_key(get_key).await?,
            None => self.settings.key.key().cloned().unwrap_or_default(),
        };
        if let Some((last, client)) = &*self.current.borrow() {
            if *last == key {
                return Ok(client.clone());
            }
        }
        let fresh = crate::split::client(&self.settings, key.clone(), self.http.clone()).await?;
        *self.current.borrow_mut() = Some((key, fresh.clone()));
        Ok(fresh)
    }
}

async fn ask_key(get_key: &Function) -> Result<ApiKey, LlmError> {
    let no_key = |why: String| LlmError::new(ErrorKind::Authentication, format!("getApiKey() gave no key: {why}"));
    let returned = get_key.call0(&JsValue::NULL).map_err(|e| no_key(describe(&e)))?;
    let value = JsFuture::from(Promise::resolve(&returned)).await.map_err(|e| no_key(describe(&e)))?;
    let key = value.as_string().map(|k| k.trim().to_owned()).filter(|k| !k.is_empty());
    Ok(ApiKey::new(key.ok_or_else(|| no_key("it returned no string, or an empty one".into()))?))
}

#[async_trait(?Send)]
impl LlmClient for AgentClient {
    fn provider(&self) -> &str {
        self.settings.kind.name()
    }

    async fn complete(&self, request: &Request) -> Result<Response, LlmError> {
        self.client().await?.complete(request).await
    }

    async fn stream(&self, request: &Request) -> Result<EventStream, LlmError> {
        self.client().await?.stream(request).await
    }
}
