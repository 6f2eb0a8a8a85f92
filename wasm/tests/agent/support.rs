//! What the binding tests share: a scripted `fetch` (tests/support/fake_llm.js) in place of a
//! model server, and shorthands to make agents and read what they did.

use js_sys::{Function, Reflect};
use openagent_wasm::convert::to_json;
use openagent_wasm::Agent;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/tests/support/fake_llm.js")]
extern "C" {
    #[wasm_bindgen(js_name = scriptedFetch)]
    pub fn scripted_fetch(replies: JsValue) -> Function;
    pub fn recorder() -> Function;
    #[wasm_bindgen(js_name = collectEvents)]
    pub fn collect_events(iterator: JsValue) -> js_sys::Promise;
    #[wasm_bindgen(js_name = collectKinds)]
    pub fn collect_kinds(iterator: JsValue) -> js_sys::Promise;
    #[wasm_bindgen(js_name = pendingTimers)]
    pub fn pending_timers() -> i32;
}

pub fn js(value: Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).expect("test JSON")
}

pub fn get(object: &JsValue, name: &str) -> JsValue {
    Reflect::get(object, &name.into()).expect("a property")
}

pub fn data(value: &JsValue) -> Value {
    to_json(value, "test data").expect("JSON data")
}

/// Options for an OpenAI-compatible agent on a scripted fetch, with `extra` merged in.
pub fn options(fetch: &Function, extra: Value) -> JsValue {
    let mut options = json!({"provider": "openai-compatible", "model": "fake-model", "baseUrl": "http://fake.test/v1"});
    options.as_object_mut().unwrap().extend(extra.as_object().cloned().unwrap_or_default());
    let options = js(options);
    Reflect::set(&options, &"fetch".into(), fetch).unwrap();
    options
}

pub fn agent_with(replies: Value, extra: Value) -> (Agent, Function) {
    let fetch = scripted_fetch(js(replies));
    let agent = Agent::new(options(&fetch, extra)).expect("valid options");
    (agent, fetch)
}

pub async fn submit(agent: &Agent, text: &str) -> Result<JsValue, JsValue> {
    JsFuture::from(agent.submit(text.into())).await
}

pub fn requests(fetch: &Function) -> Vec<Value> {
    data(&get(fetch, "requests")).as_array().cloned().unwrap_or_default()
}

/// Lets the agent's spawned task reach its first model call.
pub async fn pause() {
    openagent_core::runtime::Runtime::sleep(&openagent_wasm::runtime::BrowserRuntime, 20).await;
}

pub fn error_message(error: &JsValue) -> String {
    get(error, "message").as_string().unwrap_or_default()
}
