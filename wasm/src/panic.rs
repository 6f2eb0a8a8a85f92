//! Panics. A release build aborts on panic (the size profile), which leaves the wasm instance
//! unusable. So the hook logs the panic to the console, rejects every pending promise with it
//! and marks the module as crashed: each later call throws a clear error instead of hanging,
//! and the page around it keeps working.

use std::cell::RefCell;
use std::future::Future;

use futures::future::LocalBoxFuture;
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

use crate::convert::error_of_kind;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    pub fn console_error(message: &str);
}

thread_local! {
    /// The reject function of every promise not yet settled, by id.
    static PENDING: RefCell<Vec<(u64, Function)>> = const { RefCell::new(Vec::new()) };
    static NEXT_ID: RefCell<u64> = const { RefCell::new(0) };
    static CRASH: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs the hook, once.
pub fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The previous hook still runs: a test harness records failures through it.
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // The message alone: the browser build drops panic locations (scripts/wasm-release-build).
            let payload = info.payload();
            let message =
                payload.downcast_ref::<&str>().copied().or_else(|| payload.downcast_ref::<String>().map(String::as_str));
            crashed(message.unwrap_or("a panic without a message"));
            previous(info);
        }));
    });
}

/// What the hook does: log, reject everything pending, refuse later calls.
pub fn crashed(message: &str) {
    let message =
        format!("OpenAgent crashed (a bug; please report it): {message}. Reload the page or the module to start again.");
    console_error(&message);
    CRASH.with(|crash| crash.try_borrow_mut().map(|mut c| *c = Some(message.clone())).ok());
    let pending = PENDING.with(|p| p.try_borrow_mut().map(|mut p| std::mem::take(&mut *p)).unwrap_or_default());
    for (_, reject) in pending {
        let _ = reject.call1(&JsValue::NULL, &error_of_kind(&message, "crashed"));
    }
}

/// `Err` once the module has crashed: every entry point checks this first.
pub fn check() -> Result<(), JsValue> {
    match CRASH.with(|crash| crash.borrow().clone()) {
        Some(message) => Err(error_of_kind(&message, "crashed")),
        None => Ok(()),
    }
}

/// A promise for `work` that a panic rejects (rather than leaving it pending forever).
pub fn promise(work: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    // Boxed here so that the machinery below exists once in the bundle, not once per JS method.
    settle(Box::pin(work))
}

fn settle(work: LocalBoxFuture<'static, Result<JsValue, JsValue>>) -> Promise {
    if let Err(error) = check() {
        return Promise::reject(&error);
    }
    let id = NEXT_ID.with(|n| {
        let mut n = n.borrow_mut();
        *n += 1;
        *n
    });
    let mut work = Some(work);
    Promise::new(&mut |resolve, reject| {
        PENDING.with(|p| p.borrow_mut().push((id, reject.clone())));
        let Some(work) = work.take() else { return };
        wasm_bindgen_futures::spawn_local(async move {
            let result = work.await;
            PENDING.with(|p| p.borrow_mut().retain(|(pending, _)| *pending != id));
            let _ = match result {
                Ok(value) => resolve.call1(&JsValue::NULL, &value),
                Err(error) => reject.call1(&JsValue::NULL, &error),
            };
        });
    })
}
