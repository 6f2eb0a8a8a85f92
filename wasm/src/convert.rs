//! Values across the boundary: Rust data to plain JS objects, JS values to JSON, and errors as
//! JS `Error`s whose message says what to fix.

use openagent_core::llm::json_text;
use serde::Serialize;
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A plain JS object (not a `Map`) for any serialisable value. Through JSON text: `JSON.parse`
/// is fast, and one serialiser (serde_json's, which the codecs need anyway) costs the bundle
/// less than a second one that writes JS values. Through a `Value` first: the core serialises its
/// types to `Value`s anyway, and writing them straight to text would be a second copy of each
/// type's serialiser in the bundle; the text is the codecs' fast writer's.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let value = serde_json::to_value(value).map_err(|e| error(&e.to_string()))?;
    js_sys::JSON::parse(&json_text::to_string(&value))
}

/// A JS value as JSON; `what` names it in the error (`"the snapshot"`, `"tool parameters"`).
pub fn to_json(value: &JsValue, what: &str) -> Result<Value, JsValue> {
    json_of(value, 0).map_err(|e| error(&format!("{what} is not JSON data: {e}")))
}

/// The fields of the JS object `value` as JSON, but those named in `skip`: what `to_json` reads an
/// object into, without copying the object first (a copy would call its getters unguarded).
pub fn fields_json(value: &JsValue, skip: &[&str], what: &str) -> Result<Value, JsValue> {
    object_json(value, skip, 0).map(Value::Object).map_err(|e| error(&format!("{what} is not JSON data: {e}")))
}

/// Deeper than this is no options object a person writes: a reference to itself, most likely.
const MAX_DEPTH: usize = 128;

/// Reads a JS value as JSON by hand. (A serde deserializer would do it too, but it brings serde's
/// deserialisation errors, and with them the float formatter, into the bundle.)
/// `undefined` reads as `null`; whole numbers up to 2^53 read as integers.
fn json_of(value: &JsValue, depth: usize) -> Result<Value, String> {
    const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
    if value.is_null() || value.is_undefined() {
        return Ok(Value::Null);
    }
    if let Some(flag) = value.as_bool() {
        return Ok(Value::Bool(flag));
    }
    if let Some(number) = value.as_f64() {
        if number.fract() == 0.0 && number.abs() <= MAX_SAFE_INTEGER {
            return Ok(Value::from(number as i64));
        }
        return Ok(Value::from(number));
    }
    if let Some(text) = value.as_string() {
        return Ok(Value::String(text));
    }
    if depth == MAX_DEPTH {
        return Err(format!("it is nested more than {MAX_DEPTH} deep (does it hold itself?)"));
    }
    if js_sys::Array::is_array(value) {
        let items: &js_sys::Array = value.unchecked_ref();
        return items.iter().map(|item| json_of(&item, depth + 1)).collect::<Result<_, _>>().map(Value::Array);
    }
    if value.is_object() {
        return object_json(value, &[], depth + 1).map(Value::Object);
    }
    Err(format!("a {} has no JSON form", value.js_typeof().as_string().unwrap_or_default()))
}

/// An object's own enumerable fields, each read through `Reflect.get`: a getter that throws is an
/// error naming its field, not an exception through the module.
fn object_json(value: &JsValue, skip: &[&str], depth: usize) -> Result<Map<String, Value>, String> {
    let mut map = Map::new();
    for key in js_sys::Object::keys(value.unchecked_ref::<js_sys::Object>()).iter() {
        let key = key.as_string().unwrap_or_default();
        if skip.contains(&key.as_str()) {
            continue;
        }
        let item = js_sys::Reflect::get(value, &key.as_str().into())
            .map_err(|e| format!("`{key}`: reading it threw: {}", crate::fetch::describe(&e)))?;
        map.insert(key.clone(), json_of(&item, depth).map_err(|e| format!("`{key}`: {e}"))?);
    }
    Ok(map)
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
