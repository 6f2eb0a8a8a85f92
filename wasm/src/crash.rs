//! Crashes. The browser build aborts on a panic at once (scripts/wasm-release-build), and any trap
//! leaves the module unusable. In the package (scripts/build-wasm), every call into the module goes
//! through `crash.js`'s guard, which turns the first trap into a clean crash: logged, every pending
//! promise rejected (each one is tracked there while it is pending), every later call refused with
//! an error of kind `crashed`. So the page around the module keeps working, and nothing waits forever.

use std::future::Future;

use futures::future::LocalBoxFuture;
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/crash.js")]
extern "C" {
    fn track(reject: &Function);
    fn untrack(reject: &Function);
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    pub fn console_error(message: &str);
}

/// A promise for `work` that a crash rejects (rather than leaving it pending forever).
pub fn promise(work: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    // Boxed here so that the machinery below exists once in the bundle, not once per JS method.
    settle(Box::pin(work))
}

fn settle(work: LocalBoxFuture<'static, Result<JsValue, JsValue>>) -> Promise {
    let mut work = Some(work);
    Promise::new(&mut |resolve, reject| {
        let Some(work) = work.take() else { return };
        track(&reject);
        wasm_bindgen_futures::spawn_local(async move {
            let result = work.await;
            untrack(&reject);
            let _ = match result {
                Ok(value) => resolve.call1(&JsValue::NULL, &value),
                Err(error) => reject.call1(&JsValue::NULL, &error),
            };
        });
    })
}
