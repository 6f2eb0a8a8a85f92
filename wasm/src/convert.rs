//! Values across the boundary: Rust data to plain JS objects, JS values to JSON, and errors as
//! JS `Error`s whose message says what to fix.

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// A plain JS object (not a `Map`) for any serialisable value.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| error(&e.to_string()))
}

/// A JS value as JSON; `what` names it in the error (`"the snapshot"`, `"tool parameters"`).
pub fn to_json(value: &JsValue, what: &str) -> Result<Value, JsValue> {
    serde_wasm_bindgen::from_value(value.clone()).map_err(|e| error(&format!("{what} is not JSON data: {e}")))
}

/// A JS `Error` with `message`.
pub fn error(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

/// A JS `Error` whose `kind` property classifies it, so a page can react without parsing text.
pub fn error_of_kind(message: &str, kind: &str) -> JsValue {
    let error = js_sys::Error::new(message);
    // Setting a property on a fresh Error cannot fail.
    let _ = js_sys::Reflect::set(&error, &"kind".into(), &kind.into());
    error.into()
}

/// A property of a JS object, `None` when absent (undefined or null).
pub fn property(object: &JsValue, name: &str) -> Option<JsValue> {
    js_sys::Reflect::get(object, &name.into()).ok().filter(|v| !v.is_undefined() && !v.is_null())
}

/// A property that must be a function when present.
pub fn function_property(object: &JsValue, name: &str, owner: &str) -> Result<Option<js_sys::Function>, JsValue> {
    match property(object, name) {
        None => Ok(None),
        Some(value) => value.dyn_into().map(Some).map_err(|_| error(&format!("{owner}: `{name}` must be a function"))),
    }
}
