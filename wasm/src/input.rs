//! What `submit()` takes: a string, or `{ text, images }` where each image is a `Blob` or
//! `File` (a pasted or dropped one), `{ data }` (a `Uint8Array`, base64, or a `data:` URL),
//! `{ url }` or `{ path }` (a file of the agent's in-memory filesystem). The session reads and
//! checks them (type from the bytes, the provider's size limit) before any request.

use js_sys::{Array, Function, Promise, Uint8Array};
use openagent_core::llm::base64;
use openagent_core::session::{ImageInput, UserInput};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::convert::{error, property};

const SHAPE: &str = "submit() takes a string, or { text, images } where an image is a Blob, a File, \
    { data: Uint8Array | base64 string }, { url } or { path }";

/// `input` as the session's input; a `Blob`'s bytes are awaited here.
pub async fn user_input(input: JsValue) -> Result<UserInput, JsValue> {
    if let Some(text) = input.as_string() {
        return Ok(UserInput::new(text));
    }
    let text = property(&input, "text").and_then(|text| text.as_string()).ok_or_else(|| error(SHAPE))?;
    let mut user = UserInput::new(text);
    if let Some(images) = property(&input, "images") {
        if !Array::is_array(&images) {
            return Err(error(SHAPE));
        }
        for image in Array::from(&images).iter() {
            user.images.push(image_input(&image).await?);
        }
    }
    Ok(user)
}

async fn image_input(image: &JsValue) -> Result<ImageInput, JsValue> {
    let text = |name| property(image, name).and_then(|value| value.as_string());
    if let Some(url) = text("url") {
        return Ok(ImageInput::Url(url));
    }
    if let Some(path) = text("path") {
        return Ok(ImageInput::Path(path));
    }
    let data = match property(image, "data") {
        Some(data) if data.is_instance_of::<Uint8Array>() => Uint8Array::new(&data).to_vec(),
        Some(data) => {
            let encoded = data.as_string().ok_or_else(|| error(SHAPE))?;
            // A data URL (`canvas.toDataURL()`) is base64 after its comma.
            let encoded = encoded.split_once(',').map_or(encoded.as_str(), |(_, data)| data);
            base64::decode(encoded).map_err(|e| error(&e.to_string()))?
        }
        // A Blob or a File: its bytes come through a promise.
        None => {
            let read = property(image, "arrayBuffer").filter(JsValue::is_function).ok_or_else(|| error(SHAPE))?;
            let buffer = read.unchecked_ref::<Function>().call0(image)?;
            Uint8Array::new(&JsFuture::from(Promise::from(buffer)).await?).to_vec()
        }
    };
    Ok(ImageInput::Bytes { data, name: text("name") })
}
