//! A request body goes to `fetch` as a `Blob` of its pieces, and the pieces the codec keeps
//! between requests (messages' encodings) cross into JS once, full groups of 16 as one `Blob`:
//! later bodies send those again.

use std::sync::Arc;

use js_sys::{Array, Function, Reflect};
use openagent_core::llm::http::{Body, HttpClient, HttpRequest};
use openagent_wasm::fetch::FetchClient;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A `fetch` that keeps each body and answers 200, and the bodies it was given.
fn keeping_fetch() -> (Function, Array) {
    let bodies = Array::new();
    let fetch =
        Function::new_with_args("bodies, url, init", "bodies.push(init.body); return Promise.resolve(new Response('ok'));");
    (fetch.bind1(&JsValue::NULL, &bodies).unchecked_into(), bodies)
}

/// Counts the `Blob`s made from here on (the glue calls the global constructor).
fn count_blobs() -> Function {
    let counting = Function::new_no_args(
        "const Original = globalThis.__originalBlob ?? globalThis.Blob; globalThis.__originalBlob = Original; \
         const counter = { made: 0 }; \
         globalThis.Blob = class extends Original { constructor(...args) { super(...args); counter.made += 1; } }; \
         return () => counter.made;",
    );
    counting.call0(&JsValue::NULL).expect("patched").unchecked_into()
}

fn restore_blob() {
    let _ = Function::new_no_args("if (globalThis.__originalBlob) globalThis.Blob = globalThis.__originalBlob;")
        .call0(&JsValue::NULL);
}

async fn text_of(blob: JsValue) -> String {
    let text: Function = Reflect::get(&blob, &"text".into()).unwrap().unchecked_into();
    let promise = text.call0(&blob).unwrap();
    JsFuture::from(js_sys::Promise::from(promise)).await.unwrap().as_string().unwrap()
}

fn piece(text: &str) -> Arc<[u8]> {
    text.as_bytes().into()
}

#[test]
async fn kept_pieces_cross_once_and_every_body_reads_as_its_bytes() {
    let (fetch, bodies) = keeping_fetch();
    let client = FetchClient::new(Some(fetch), 60_000);
    let made = count_blobs();
    let send = |pieces: Vec<Arc<[u8]>>| {
        let request = HttpRequest::post_json("http://test.invalid/v1", Body::from_pieces(pieces));
        client.send(request)
    };
    let (first, second) = (piece(r#"{"role":"user"}"#), piece(r#",{"role":"assistant"}"#));
    send(vec![piece(r#"{"messages":["#), first.clone(), second.clone(), piece("]}")]).await.expect("sent");
    let after_first = made.call0(&JsValue::NULL).unwrap().as_f64().unwrap();
    // The same history and a new message: the body is the only new Blob.
    let third = piece(r#",{"role":"tool"}"#);
    send(vec![piece(r#"{"messages":["#), first.clone(), second.clone(), third.clone(), piece("]}")]).await.expect("sent");
    let made_by_second = made.call0(&JsValue::NULL).unwrap().as_f64().unwrap() - after_first;
    // A changed history (a compaction): what follows the change is sent anew.
    drop(second);
    let changed = piece(r#",{"role":"summary"}"#);
    send(vec![piece(r#"{"messages":["#), first.clone(), changed.clone(), piece("]}")]).await.expect("sent");
    restore_blob();

    assert_eq!(after_first, 1.0, "the body: no group is full");
    assert_eq!(made_by_second, 1.0, "the body");
    let mut texts = Vec::new();
    for body in bodies.iter() {
        texts.push(text_of(body).await);
    }
    assert_eq!(
        texts,
        [
            r#"{"messages":[{"role":"user"},{"role":"assistant"}]}"#,
            r#"{"messages":[{"role":"user"},{"role":"assistant"},{"role":"tool"}]}"#,
            r#"{"messages":[{"role":"user"},{"role":"summary"}]}"#,
        ]
    );
    drop((first, third, changed));
}

#[test]
async fn kept_pieces_go_in_groups_of_sixteen_and_a_change_inside_one_drops_it() {
    let (fetch, bodies) = keeping_fetch();
    let client = FetchClient::new(Some(fetch), 60_000);
    let mut messages: Vec<Arc<[u8]>> = (0..40).map(|i| piece(&format!("{}{i}", if i == 0 { "" } else { "," }))).collect();
    let body = |messages: &[Arc<[u8]>]| {
        let pieces = [vec![piece("[")], messages.to_vec(), vec![piece("]")]].concat();
        HttpRequest::post_json("http://test.invalid/v1", Body::from_pieces(pieces))
    };
    let expected = |messages: &[Arc<[u8]>]| {
        format!("[{}]", messages.iter().map(|m| String::from_utf8_lossy(m).into_owned()).collect::<String>())
    };
    let made = count_blobs();
    let count = || made.call0(&JsValue::NULL).unwrap().as_f64().unwrap();
    let mut sent = vec![expected(&messages)];
    client.send(body(&messages)).await.expect("sent");
    let first = count();
    messages.push(piece(",40"));
    sent.push(expected(&messages));
    client.send(body(&messages)).await.expect("sent");
    let second = count() - first;
    // Message 20 changed (as a compaction would): group 1 (16..32) and what follows are new.
    messages[20] = piece(",twenty");
    sent.push(expected(&messages));
    client.send(body(&messages)).await.expect("sent");
    let third = count() - first - second;
    restore_blob();

    assert_eq!(first, 3.0, "2 groups and the body");
    assert_eq!(second, 1.0, "the body");
    assert_eq!(third, 2.0, "group 1 again, and the body");
    let mut texts = Vec::new();
    for body in bodies.iter() {
        texts.push(text_of(body).await);
    }
    assert_eq!(texts, sent);
}
