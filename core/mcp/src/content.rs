//! A `tools/call` result as a tool result: text, images and resources become the output the model
//! reads, `isError` an error result.

use openagent_core::llm::{base64, json_text, MediaData};
use openagent_core::tools::{ToolError, ToolOutput};
use serde_json::Value;

/// Maps a `tools/call` result. Text parts are joined by blank lines; the first image becomes the
/// output's image (a tool result holds one) and any other is named in the text; an embedded text
/// resource is its text under its URI, a binary one and a resource link are named; structured
/// content stands in when there is no content.
pub fn tool_output(result: &Value) -> Result<ToolOutput, ToolError> {
    let mut parts: Vec<String> = Vec::new();
    let mut image: Option<MediaData> = None;
    for item in result.get("content").and_then(Value::as_array).into_iter().flatten() {
        let field = |name: &str| item.get(name).and_then(Value::as_str).unwrap_or_default();
        match field("type") {
            "text" => parts.push(field("text").to_owned()),
            "image" if image.is_none() => match base64::decode(field("data")) {
                Ok(bytes) => {
                    image = Some(MediaData {
                        data: Some(bytes),
                        media_type: Some(field("mimeType").to_owned()),
                        ..MediaData::default()
                    })
                }
                Err(_) => parts.push(format!("[an image ({}) whose data is not base64]", field("mimeType"))),
            },
            kind @ ("image" | "audio") => parts.push(format!("[{kind}: {}]", field("mimeType"))),
            "resource" => {
                let resource = item.get("resource").unwrap_or(&Value::Null);
                let get = |name: &str| resource.get(name).and_then(Value::as_str);
                let uri = get("uri").unwrap_or("?");
                match (get("text"), get("blob")) {
                    (Some(text), _) => parts.push(format!("[resource {uri}]\n{text}")),
                    (None, Some(blob)) => parts.push(format!(
                        "[resource {uri}: {} of binary data, about {} bytes]",
                        get("mimeType").unwrap_or("unknown type"),
                        blob.len() / 4 * 3
                    )),
                    (None, None) => parts.push(format!("[resource {uri}]")),
                }
            }
            "resource_link" => parts.push(format!("[resource link {}: {}]", field("uri"), field("name"))),
            other => parts.push(format!("[content of type {}]", json_text::quote(other))),
        }
    }
    if parts.is_empty() && image.is_none() {
        if let Some(structured) = result.get("structuredContent") {
            parts.push(json_text::to_string(structured));
        }
    }
    let text = parts.join("\n\n");
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return Err(ToolError::new(if text.is_empty() { "the MCP tool reported an error".to_owned() } else { text }));
    }
    Ok(ToolOutput { text, image, sandbox_denied: None })
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;

    #[test]
    fn text_image_and_resources_become_the_output() {
        let result = json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
            {"type": "image", "data": "AAAA", "mimeType": "image/gif"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
            {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAAAAAAA", "mimeType": "application/octet-stream"}},
            {"type": "resource_link", "uri": "file:///c", "name": "c"},
        ]});
        let output = tool_output(&result).expect("ok");
        assert_eq!(
            output.text,
            "hello\n\n[image: image/gif]\n\n[resource file:///a.txt]\ninside\n\n\
             [resource file:///b.bin: application/octet-stream of binary data, about 6 bytes]\n\n[resource link file:///c: c]"
        );
        let image = output.image.expect("image");
        assert_eq!(image.data.as_deref(), Some(&[0x89, b'P', b'N', b'G'][..]));
        assert_eq!(image.media_type.as_deref(), Some("image/png"));
    }

    #[test]
    fn is_error_is_an_error_result() {
        let error =
            tool_output(&json!({"content": [{"type": "text", "text": "no such file"}], "isError": true})).expect_err("error");
        assert_eq!(error.0, "no such file");
        assert!(tool_output(&json!({"content": [], "isError": true})).is_err());
    }

    #[test]
    fn structured_content_stands_in_for_missing_content() {
        let output = tool_output(&json!({"content": [], "structuredContent": {"sum": 3}})).expect("ok");
        assert_eq!(output.text, r#"{"sum":3}"#);
    }
}
