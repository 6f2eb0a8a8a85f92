//! Provider resolution: which provider is picked, the errors that say what to set, the headers a
//! client built from the settings sends, and model discovery on an OpenAI-compatible server.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;

use super::*;
use crate::http::{HttpError, HttpResponse};
use crate::{Message, Request};

fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    move |name| map.get(name).cloned()
}

fn resolve(provider: Option<&str>, base_url: Option<&str>, pairs: &[(&str, &str)]) -> Result<ProviderSettings, SetupError> {
    ProviderSettings::resolve(provider, None, base_url, vars(pairs))
}

#[test]
fn picks_the_first_provider_with_a_key() {
    let both = resolve(None, None, &[("ANTHROPIC_API_KEY", "a-key"), ("OPENAI_API_KEY", "o-key")]).unwrap();
    assert_eq!((both.kind, &both.key), (ProviderKind::OpenAi, &KeySource::Fixed(ApiKey::new("o-key"))));
    assert_eq!(both.base_url, "https://api.openai.com/v1");
    let google = resolve(None, None, &[("GOOGLE_API_KEY", " g-key\n")]).unwrap();
    assert_eq!((google.kind, &google.key), (ProviderKind::Gemini, &KeySource::Fixed(ApiKey::new("g-key"))));
    let local = resolve(None, None, &[("OPENAI_COMPATIBLE_BASE_URL", "http://127.0.0.1:8080/v1/")]).unwrap();
    assert_eq!(
        (local.kind, local.base_url.as_str(), local.model),
        (ProviderKind::OpenAiCompatible, "http://127.0.0.1:8080/v1", None)
    );
    assert_eq!(local.key.key(), None);
}

#[test]
fn a_named_provider_takes_its_key_base_url_and_default_model() {
    let s = ProviderSettings::resolve(
        Some("anthropic"),
        Some("claude-opus-4-6"),
        Some("http://127.0.0.1:9/"),
        vars(&[("ANTHROPIC_API_KEY", "a-key"), ("ANTHROPIC_BASE_URL", "https://elsewhere")]),
    )
    .unwrap();
    assert_eq!((s.model.as_deref(), s.base_url.as_str()), (Some("claude-opus-4-6"), "http://127.0.0.1:9"));
    let from_var = resolve(Some("gemini"), None, &[("GEMINI_API_KEY", "k"), ("GEMINI_BASE_URL", "http://gw")]).unwrap();
    assert_eq!((from_var.base_url.as_str(), from_var.model.as_deref()), ("http://gw", Some("gemini-3-flash-preview")));
}

#[test]
fn errors_say_what_is_missing() {
    let none = resolve(None, None, &[("ANTHROPIC_API_KEY", "  ")]).unwrap_err();
    assert_eq!(none, SetupError::NoProvider);
    assert_eq!(resolve(Some("gemini"), None, &[]).unwrap_err(), SetupError::MissingKey(ProviderKind::Gemini));
    assert_eq!(resolve(Some("gemini"), None, &[]).unwrap_err().to_string(), "the gemini provider needs an API key");
    assert_eq!(resolve(Some("openai-compatible"), None, &[]).unwrap_err(), SetupError::MissingBaseUrl);
    assert!(resolve(Some("mistral"), None, &[])
        .unwrap_err()
        .to_string()
        .contains("openai, anthropic, gemini and openai-compatible"));
    assert_eq!(
        resolve(Some("openai"), Some("api.openai.com/v1"), &[("OPENAI_API_KEY", "k")]).unwrap_err(),
        SetupError::BadBaseUrl("api.openai.com/v1".into())
    );
}

#[test]
fn a_key_the_host_gives_is_not_asked_of_the_variables() {
    let settings = ProviderSettings::resolve_for_host_key(Some("anthropic"), None, None, vars(&[])).unwrap();
    assert_eq!((settings.kind, &settings.key), (ProviderKind::Anthropic, &KeySource::Host));
    assert_eq!((settings.key.key(), settings.auth_header()), (None, None));
    let named = ProviderSettings::resolve_for_host_key(Some("anthropic"), None, None, vars(&[("ANTHROPIC_API_KEY", "k")]));
    assert_eq!(named.unwrap().key, KeySource::Host, "the host's key wins over a variable");
}

/// Answers every request with one status and body, and keeps the requests.
struct Listing(u16, &'static str, RefCell<Vec<HttpRequest>>);

#[async_trait(?Send)]
impl HttpClient for Listing {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        self.2.borrow_mut().push(request);
        let body: Vec<Result<Vec<u8>, HttpError>> = vec![Ok(self.1.as_bytes().to_vec())];
        Ok(HttpResponse { status: self.0, headers: Vec::new(), body: Box::pin(futures::stream::iter(body)) })
    }
}

#[test]
fn discovers_the_first_model_a_compatible_server_lists() {
    let mut settings = resolve(Some("openai-compatible"), Some("http://127.0.0.1:8080/v1"), &[]).unwrap();
    settings.key = KeySource::Fixed(ApiKey::new("local-key"));
    let http = Listing(200, r#"{"object":"list","data":[{"id":"qwen2.5-coder"},{"id":"other"}]}"#, RefCell::default());
    assert_eq!(block_on(discover_model(&settings, &http)).unwrap(), "qwen2.5-coder");
    let sent = &http.2.borrow()[0];
    assert_eq!((sent.method, sent.url.as_str()), (Method::Get, "http://127.0.0.1:8080/v1/models"));
    assert_eq!(sent.header("authorization"), Some("Bearer local-key"));

    let refused = Listing(404, "not found", RefCell::default());
    let error = block_on(discover_model(&settings, &refused)).unwrap_err().to_string();
    assert!(error.contains("answered 404") && error.starts_with("no model given"), "{error}");
    let empty = Listing(200, r#"{"data":[]}"#, RefCell::default());
    assert!(block_on(discover_model(&settings, &empty)).unwrap_err().to_string().contains("listed none"));
}

#[test]
fn a_compatible_server_reports_the_window_it_serves() {
    let settings = resolve(Some("openai-compatible"), Some("http://127.0.0.1:8080/v1"), &[]).unwrap();
    // llama.cpp's answer (trimmed): the window it serves and the one the model was trained for.
    let llama = r#"{"object":"list","data":[{"id":"qwen.gguf","owned_by":"llamacpp",
        "meta":{"vocab_type":2,"n_ctx":4096,"n_ctx_train":32768}}]}"#;
    let vllm = r#"{"data":[{"id":"Qwen/Qwen3-8B","max_model_len":40960},{"id":"bare"},{"id":"zero","max_model_len":0}]}"#;
    let models = |body| block_on(server_models(&settings, &Listing(200, body, RefCell::default()))).unwrap();
    assert_eq!(models(llama), [ServerModel { id: "qwen.gguf".into(), context_window: Some(4096) }]);
    let windows: Vec<_> = models(vllm).into_iter().map(|m| m.context_window).collect();
    assert_eq!(windows, [Some(40960), None, None]);
}

#[test]
fn the_auth_header_is_the_one_each_api_expects() {
    let header = |provider: &str, pairs: &[(&str, &str)]| resolve(Some(provider), None, pairs).unwrap().auth_header();
    assert_eq!(header("anthropic", &[("ANTHROPIC_API_KEY", "sk-a")]), Some(("x-api-key", "sk-a".into())));
    assert_eq!(header("gemini", &[("GEMINI_API_KEY", "g")]), Some(("x-goog-api-key", "g".into())));
    assert_eq!(header("openai", &[("OPENAI_API_KEY", "sk-o")]), Some(("authorization", "Bearer sk-o".into())));
    assert_eq!(resolve(Some("openai-compatible"), Some("http://127.0.0.1:1/v1"), &[]).unwrap().auth_header(), None);
}

#[test]
fn a_client_from_the_settings_sends_the_header_variables() {
    let pairs = [("OPENAI_API_KEY", "o-key"), ("OPENAI_ORG_ID", " org-1 "), ("OPENAI_PROJECT_ID", "proj-1")];
    let settings = resolve(Some("openai"), Some("http://127.0.0.1:9/v1"), &pairs).unwrap();
    let headers = [("OpenAI-Organization".to_owned(), "org-1".to_owned()), ("OpenAI-Project".to_owned(), "proj-1".to_owned())];
    assert_eq!(settings.headers, headers);
    let http = Rc::new(Listing(500, "{}", RefCell::default()));
    let request = Request { model: "m".into(), messages: vec![Message::user("hi")], ..Request::default() };
    let _ = block_on(settings.client(http.clone(), false).complete(&request));
    let _ = block_on(settings.client_with_key(ApiKey::new("page-key"), http.clone(), true).complete(&request));
    for sent in http.2.borrow().iter() {
        assert_eq!((sent.header("openai-organization"), sent.header("openai-project")), (Some("org-1"), Some("proj-1")));
    }
    assert_eq!(http.2.borrow()[1].header("authorization"), Some("Bearer page-key"));
    assert!(resolve(Some("anthropic"), None, &[("ANTHROPIC_API_KEY", "k"), ("OPENAI_ORG_ID", "org-1")])
        .unwrap()
        .headers
        .is_empty());
}
