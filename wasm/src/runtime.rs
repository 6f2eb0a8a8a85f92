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

    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);
}

/// The host's clock and executor for a session in a tab.
pub struct BrowserRuntime;

impl Runtime for BrowserRuntime {
    fn now_ms(&self) -> EpochMillis {
        js_sys::Date::now() as EpochMillis
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let mut handle = JsValue::UNDEFINED;
        let timer = Promise::new(&mut |resolve, _reject| {
            handle = set_timeout(&resolve, ms as f64);
        });
        let pending = ClearOnDrop(handle);
        Box::pin(async move {
            let _pending = pending;
            // A timer's promise never rejects.
            let _ = JsFuture::from(timer).await;
        })
    }

    fn spawn_local(&self, task: LocalBoxFuture<'static, ()>) {
        wasm_bindgen_futures::spawn_local(task);
    }
}

/// Clears a timer whose sleep was dropped before it fired: most are timeouts that lost their race
/// (one for each read of a response), and a pending one would hold the closure until it fired, and
/// keep Node from exiting, for up to the read timeout after the work is done. Clearing a timer
/// that has fired does nothing.
struct ClearOnDrop(JsValue);

impl Drop for ClearOnDrop {
    fn drop(&mut self) {
        clear_timeout(&self.0);
    }
}
