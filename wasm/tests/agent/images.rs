//! `submit({ text, images })`: a Blob, bytes, base64, a data URL or a file of `agent.fs` reach the
//! model as image parts; an image that cannot be sent rejects with kind `input`, no request made.

use crate::support::*;
use js_sys::{Array, Reflect, Uint8Array};
use openagent_core::llm::base64;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test as test;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

fn blob(bytes: &[u8]) -> JsValue {
    let constructor = Reflect::get(&js_sys::global(), &"Blob".into()).unwrap();
    let parts = Array::of1(&Uint8Array::from(bytes));
    Reflect::construct(constructor.unchecked_ref::<js_sys::Function>(), &Array::of1(&parts)).unwrap()
}

fn input(text: &str, images: &[JsValue]) -> JsValue {
    let input = js(json!({"text": text}));
    Reflect::set(&input, &"images".into(), &images.iter().collect::<Array>()).unwrap();
    input
}

#[test]
async fn images_of_every_form_reach_the_model_with_the_text() {
    let (agent, fetch) = agent_with(json!([{"text": "A tiny image."}]), json!({}));
    agent.fs().write("shots/ui.png", Uint8Array::from(PNG).into()).unwrap();
    let encoded = base64::encode(PNG);
    let images = [
        blob(PNG),
        js(json!({"data": encoded, "mediaType": "image/png", "name": "pasted.png"})),
        js(json!({"data": format!("data:image/png;base64,{encoded}")})),
        js(json!({"path": "shots/ui.png"})),
        js(json!({"url": "https://example.com/a.png"})),
    ];
    let outcome = data(&JsFuture::from(agent.submit(input("what is wrong here?", &images))).await.unwrap());
    assert_eq!(outcome["reason"], "completed");

    let body = &requests(&fetch)[0]["body"];
    let user = body["messages"].as_array().unwrap().iter().find(|m| m["role"] == "user").unwrap();
    assert_eq!(user["content"][0], json!({"type": "text", "text": "what is wrong here?"}));
    let inline = json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{encoded}")}});
    let urls: Vec<&Value> = user["content"].as_array().unwrap()[1..].iter().collect();
    assert_eq!(
        urls,
        [&inline, &inline, &inline, &inline, &json!({"type": "image_url", "image_url": {"url": "https://example.com/a.png"}})]
    );
}

#[test]
async fn an_image_that_cannot_be_sent_rejects_with_kind_input_before_any_request() {
    let (agent, fetch) = agent_with(json!([{"text": "never"}]), json!({}));
    let refused = |image: JsValue| {
        let promise = agent.submit(input("look", &[image]));
        async move { JsFuture::from(promise).await.unwrap_err() }
    };
    let error = refused(blob(b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>")).await;
    assert_eq!(get(&error, "kind"), "input");
    assert_eq!(error_message(&error), "image 1 is not a PNG, JPEG, GIF or WebP image (told from its content, not its name)");
    let error = refused(js(json!({"path": "missing.png"}))).await;
    assert!(error_message(&error).starts_with("cannot attach image missing.png: file not found"), "{}", error_message(&error));
    let error = refused(js(json!({"size": 3}))).await;
    assert!(error_message(&error).starts_with("submit() takes a string, or { text, images }"), "{}", error_message(&error));
    assert!(requests(&fetch).is_empty());
    // The agent is still usable.
    assert_eq!(data(&submit(&agent, "hi").await.unwrap())["reason"], "completed");
}
