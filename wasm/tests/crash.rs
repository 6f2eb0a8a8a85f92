//! A panic must not leave the page hanging: pending promises reject, later calls throw. In its
//! own test binary, since the crash poisons the module for good.
#![cfg(target_arch = "wasm32")]

use js_sys::Reflect;
use openagent_wasm::Agent;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test as test;

#[wasm_bindgen(module = "/tests/support/fake_llm.js")]
extern "C" {
    #[wasm_bindgen(js_name = scriptedFetch)]
    fn scripted_fetch(replies: JsValue) -> js_sys::Function;
}

#[test]
async fn a_crash_rejects_pending_promises_and_later_calls_throw() {
    let options =
        js_sys::JSON::parse(r#"{"provider": "openai-compatible", "model": "m", "baseUrl": "http://fake.test/v1"}"#).unwrap();
    Reflect::set(&options, &"fetch".into(), &scripted_fetch(js_sys::JSON::parse(r#"[{"hang": true}]"#).unwrap())).unwrap();
    let agent = Agent::new(options.clone()).unwrap();
    let pending = agent.submit("wait".into());
    // What the panic hook runs (a real panic would abort this test binary too).
    openagent_wasm::panic::crashed("index out of bounds");
    let error = JsFuture::from(pending).await.unwrap_err();
    assert_eq!(Reflect::get(&error, &"kind".into()).unwrap().as_string().as_deref(), Some("crashed"));
    let message = Reflect::get(&error, &"message".into()).unwrap().as_string().unwrap();
    assert!(message.contains("index out of bounds") && message.contains("Reload"), "{message}");
    assert!(agent.steer("x".into()).is_err());
    assert!(Agent::new(options).is_err());
}
