//! The `Runtime` seam in a browser (and in Node): `Date.now()`, `setTimeout` and
//! wasm-bindgen-futures' `spawn_local` on the page's event loop.

use futures::future::LocalBoxFuture;
use js_sys::{Function, Promise};
use openagent_core::runtime::{EpochMillis, Runtime};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    // A global in windows, workers and Node alike.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(callback: &Function, ms: f64) -> JsValue;
}

/// The host's clock and executor for a session in a tab.
pub struct BrowserRuntime;

impl Runtime for BrowserRuntime {
    fn now_ms(&self) -> EpochMillis {
        js_sys::Date::now() as EpochMillis
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let timer = Promise::new(&mut |resolve, _reject| {
            set_timeout(&resolve, ms as f64);
        });
        Box::pin(async move {
            // A timer's promise never rejects.
            let _ = JsFuture::from(timer).await;
        })
    }

    fn spawn_local(&self, task: LocalBoxFuture<'static, ()>) {
        wasm_bindgen_futures::spawn_local(task);
    }
}
