//! A `Request` as `POST {base}/v1beta/models/{model}:generateContent` (or
//! `:streamGenerateContent?alt=sse`; spec 7.2, 7.3): the URL, the key's header and the body.

use serde_json::{Map, Value};

use super::error::invalid;
use super::{messages, options, tools, DEFAULT_BASE_URL, PROVIDER};
use crate::codec::ProviderConfig;
use crate::error::LlmError;
use crate::http::HttpRequest;
use crate::json::object;
use crate::json_text;
use crate::types::{Request, ResponseFormat};

pub(super) fn build(config: &ProviderConfig, request: &Request, stream: bool) -> Result<HttpRequest, LlmError> {
    let url = url(&config.base_url, &request.model, stream)?;
    let mut http = HttpRequest::post_json(url, json_text::to_vec(&body(request)?));
    // The key goes in its header only: never in the URL (`?key=` would end up in logs).
    if !config.api_key.is_empty() {
        http.headers.push(("x-goog-api-key".into(), config.api_key.expose().to_owned()));
    }
    http.headers.extend(config.default_headers.iter().cloned());
    Ok(http)
}

fn url(base_url: &str, model: &str, stream: bool) -> Result<String, LlmError> {
    let model = model.trim();
    let model = model.strip_prefix("models/").unwrap_or(model);
    if model.is_empty() {
        return Err(invalid("the request names no model: set a Gemini model id such as gemini-2.5-flash"));
    }
    let base = match base_url.trim().trim_end_matches('/') {
        "" => DEFAULT_BASE_URL,
        base => base,
    };
    // A base URL that already names an API version (…/v1beta) is used as it is.
    let version = if ["/v1", "/v1beta", "/v1alpha"].iter().any(|v| base.ends_with(v)) { "" } else { "/v1beta" };
    let method = if stream { "streamGenerateContent?alt=sse" } else { "generateContent" };
    Ok(format!("{base}{version}/models/{}:{method}", encode_path_segment(model)))
}

/// Percent-encodes everything but RFC 3986 unreserved characters, so a model id cannot alter the path.
fn encode_path_segment(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn body(request: &Request) -> Result<Value, LlmError> {
    let mut body = Map::new();
    let (system, contents) = messages::contents(&request.messages)?;
    if !system.is_empty() {
        body.insert("systemInstruction".into(), object(vec![("parts", Value::Array(system))]));
    }
    body.insert("contents".into(), Value::Array(contents));
    if !request.tools.is_empty() {
        let declarations = request.tools.iter().map(tools::declaration).collect();
        body.insert("tools".into(), Value::Array(vec![object(vec![("functionDeclarations", Value::Array(declarations))])]));
    }
    if let Some(choice) = &request.tool_choice {
        if let Some(config) = tools::tool_config(choice, request)? {
            body.insert("toolConfig".into(), object(vec![("functionCallingConfig", config)]));
        }
    }
    let generation = generation_config(request)?;
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    if let Some(options) = request.provider_options.as_ref().and_then(|o| o.get(PROVIDER)) {
        options::apply(&mut body, options)?;
    }
    Ok(Value::Object(body))
}

fn generation_config(request: &Request) -> Result<Map<String, Value>, LlmError> {
    let mut config = Map::new();
    let mut set = |key: &str, value: Value| config.insert(key.to_owned(), value);
    if let Some(temperature) = request.temperature {
        set("temperature", temperature.into());
    }
    if let Some(top_p) = request.top_p {
        set("topP", top_p.into());
    }
    if let Some(max_tokens) = request.max_tokens {
        set("maxOutputTokens", max_tokens.into());
    }
    if !request.stop_sequences.is_empty() {
        set("stopSequences", request.stop_sequences.iter().map(|s| Value::from(s.as_str())).collect());
    }
    match &request.response_format {
        None | Some(ResponseFormat::Text) => {}
        Some(ResponseFormat::Json) => {
            set("responseMimeType", "application/json".into());
        }
        // `responseJsonSchema` takes JSON Schema as it is; Gemini has no strict switch.
        Some(ResponseFormat::JsonSchema { json_schema, .. }) => {
            set("responseMimeType", "application/json".into());
            set("responseJsonSchema", json_schema.clone());
        }
    }
    if let Some(effort) = &request.reasoning_effort {
        set("thinkingConfig", thinking_config(&request.model, effort)?);
    }
    Ok(config)
}

/// `reasoning_effort` as a thinking level (Gemini 3 and later) or a token budget (Gemini 2.x,
/// which has no levels). Thoughts are asked for, so reasoning is visible, unless thinking is off.
fn thinking_config(model: &str, effort: &str) -> Result<Value, LlmError> {
    let model = model.trim().trim_start_matches("models/");
    let effort = effort.trim().to_ascii_lowercase();
    let unknown =
        || invalid(format!("reasoning_effort `{effort}` is not one Gemini takes: use none, minimal, low, medium or high"));
    if model.starts_with("gemini-2") || model.starts_with("gemini-1") {
        // 24576 is the largest budget both 2.5 Flash and 2.5 Pro accept; 128 the smallest Pro accepts.
        let budget: u64 = match effort.as_str() {
            "none" => 0,
            "minimal" => 128,
            "low" => 1024,
            "medium" => 8192,
            "high" => 24576,
            _ => return Err(unknown()),
        };
        return Ok(object(vec![("thinkingBudget", budget.into()), ("includeThoughts", (budget > 0).into())]));
    }
    // Gemini 3 cannot switch thinking off: `none` asks for as little as it allows.
    let level = match effort.as_str() {
        "none" | "minimal" => "MINIMAL",
        "low" => "LOW",
        "medium" => "MEDIUM",
        "high" => "HIGH",
        _ => return Err(unknown()),
    };
    Ok(object(vec![("thinkingLevel", level.into()), ("includeThoughts", (effort != "none").into())]))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::synthetic_call_id;
    use super::*;
    use crate::error::ErrorKind;
    use crate::types::{ContentPart, MediaData, Message, Role, ThinkingData, ToolCall, ToolChoice, ToolDefinition, ToolResult};
    use serde_json::json;

    fn request(messages: Vec<Message>) -> Request {
        Request { model: "gemini-2.5-flash".into(), messages, ..Request::default() }
    }

    fn assistant(parts: Vec<ContentPart>) -> Message {
        Message::new(Role::Assistant, parts)
    }

    fn weather_tool() -> ToolDefinition {
        ToolDefinition {
            name: "get_weather".into(),
            description: "Get weather".into(),
            parameters: json!({"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"],
                               "additionalProperties": false}),
        }
    }

    #[test]
    fn system_and_developer_text_become_the_system_instruction() {
        let body = body(&request(vec![
            Message::system("Be brief."),
            Message::user("Hi"),
            Message::text_message(Role::Developer, "Use metric."),
            Message::assistant("Hello"),
        ]))
        .unwrap();
        assert_eq!(body["systemInstruction"], json!({"parts": [{"text": "Be brief."}, {"text": "Use metric."}]}));
        assert_eq!(
            body["contents"],
            json!([{"role": "user", "parts": [{"text": "Hi"}]}, {"role": "model", "parts": [{"text": "Hello"}]}])
        );
        let image = ContentPart::Image { image: MediaData { data: Some(vec![1]), ..MediaData::default() } };
        assert_eq!(body_error(request(vec![Message::new(Role::System, vec![image])])), ErrorKind::InvalidRequest);
    }

    fn body_error(request: Request) -> ErrorKind {
        body(&request).unwrap_err().kind
    }

    #[test]
    fn media_goes_inline_or_by_uri() {
        let media = |url: Option<&str>, data: Option<Vec<u8>>, media_type: Option<&str>| MediaData {
            url: url.map(Into::into),
            data,
            media_type: media_type.map(Into::into),
            ..MediaData::default()
        };
        let message = Message::new(
            Role::User,
            vec![
                ContentPart::Image { image: media(None, Some(b"abc".to_vec()), None) },
                ContentPart::Image { image: media(Some("https://x.test/cat.JPG?s=1"), None, None) },
                ContentPart::Image { image: media(Some("data:image/gif;base64,R0lG"), None, None) },
                ContentPart::Document { document: media(Some("gs://bucket/a"), None, None) },
                ContentPart::Audio { audio: media(None, Some(vec![0]), Some("audio/mp3")) },
            ],
        );
        assert_eq!(
            body(&request(vec![message])).unwrap()["contents"][0]["parts"],
            json!([
                {"inlineData": {"mimeType": "image/png", "data": "YWJj"}},
                {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://x.test/cat.JPG?s=1"}},
                {"inlineData": {"mimeType": "image/gif", "data": "R0lG"}},
                {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://bucket/a"}},
                {"inlineData": {"mimeType": "audio/mp3", "data": "AA=="}}
            ])
        );
        let local = Message::new(Role::User, vec![ContentPart::Image { image: media(Some("./shot.png"), None, None) }]);
        assert_eq!(body_error(request(vec![local])), ErrorKind::InvalidRequest);
        let empty = Message::new(Role::User, vec![ContentPart::Image { image: MediaData::default() }]);
        assert_eq!(body_error(request(vec![empty])), ErrorKind::InvalidRequest);
    }

    #[test]
    fn calls_and_results_round_trip_with_names_ids_and_signatures() {
        let mut signed = ToolCall::new("s3qm24sq", "get_weather", json!({"location": "Tokyo"}));
        signed.signature = Some("sig".into());
        let ours = ToolCall::new(synthetic_call_id(), "get_time", json!({}));
        let broken = ToolCall::from_raw(synthetic_call_id(), "get_time", "{not json");
        let messages = vec![
            Message::user("Tokyo?"),
            assistant(vec![
                ContentPart::ToolCall { tool_call: signed },
                ContentPart::ToolCall { tool_call: ours.clone() },
                ContentPart::ToolCall { tool_call: broken },
            ]),
            Message::tool_result(ToolResult::new("s3qm24sq", "71 degrees", false)),
            Message::tool_result(ToolResult::new(ours.id.clone(), "clock broke", true)),
            Message::user("Thanks"),
        ];
        let body = body(&request(messages)).unwrap();
        assert_eq!(
            body["contents"][1]["parts"],
            json!([
                {"functionCall": {"name": "get_weather", "args": {"location": "Tokyo"}, "id": "s3qm24sq"}, "thoughtSignature": "sig"},
                {"functionCall": {"name": "get_time", "args": {}}},
                {"functionCall": {"name": "get_time", "args": {}}}
            ])
        );
        // Both results in one user content, each under the name of the call it answers.
        assert_eq!(
            body["contents"][2],
            json!({"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"result": "71 degrees"}}},
                {"functionResponse": {"name": "get_time", "response": {"error": "clock broke"}}}
            ]})
        );
        assert_eq!(body["contents"][3], json!({"role": "user", "parts": [{"text": "Thanks"}]}));
    }

    #[test]
    fn a_result_for_an_unknown_call_needs_a_name() {
        let orphan = Message::tool_result(ToolResult::new("nope", "x", false));
        assert_eq!(body_error(request(vec![orphan.clone()])), ErrorKind::InvalidRequest);
        let named = Message { name: Some("lookup".into()), ..orphan };
        assert_eq!(body(&request(vec![named])).unwrap()["contents"][0]["parts"][0]["functionResponse"]["name"], "lookup");
    }

    #[test]
    fn image_results_follow_their_function_response() {
        let call = ToolCall::new("c1", "screenshot", json!({}));
        let mut result = ToolResult::new("c1", "done", false);
        result.image_data = Some(vec![0xff]);
        let body = body(&request(vec![assistant(vec![ContentPart::ToolCall { tool_call: call }]), Message::tool_result(result)]))
            .unwrap();
        assert_eq!(body["contents"][1]["parts"][1], json!({"inlineData": {"mimeType": "image/png", "data": "/w=="}}));
    }

    #[test]
    fn thoughts_and_signature_carriers_go_back_where_they_came_from() {
        let thinking = |text: &str, signature: Option<&str>| ContentPart::Thinking {
            thinking: ThinkingData { text: text.into(), signature: signature.map(Into::into), ..ThinkingData::default() },
        };
        let message = assistant(vec![
            thinking("Planning", None),
            ContentPart::text("Answer"),
            thinking("", Some("sig-text")),
            thinking("", Some("orphan")),
            thinking("", None),
            ContentPart::RedactedThinking {
                thinking: ThinkingData { text: "opaque".into(), redacted: true, ..ThinkingData::default() },
            },
        ]);
        assert_eq!(
            body(&request(vec![message])).unwrap()["contents"][0]["parts"],
            json!([
                {"text": "Planning", "thought": true},
                {"text": "Answer", "thoughtSignature": "sig-text"},
                {"text": "", "thoughtSignature": "orphan"}
            ])
        );
        let only_redacted = assistant(vec![ContentPart::RedactedThinking {
            thinking: ThinkingData { text: "x".into(), ..ThinkingData::default() },
        }]);
        assert_eq!(body(&request(vec![only_redacted])).unwrap()["contents"], json!([]));
    }

    #[test]
    fn tools_and_tool_choice() {
        let no_params = ToolDefinition { name: "now".into(), description: String::new(), parameters: json!({"type": "object"}) };
        let mut req = request(vec![Message::user("?")]);
        req.tools = vec![weather_tool(), no_params];
        let body_for = |choice: Option<ToolChoice>| {
            let mut req = req.clone();
            req.tool_choice = choice;
            body(&req)
        };
        let plain = body_for(None).unwrap();
        assert_eq!(
            plain["tools"],
            json!([{"functionDeclarations": [
                {"name": "get_weather", "description": "Get weather",
                 "parameters": {"type": "OBJECT", "properties": {"location": {"type": "STRING"}}, "required": ["location"]}},
                {"name": "now"}
            ]}])
        );
        assert!(plain.get("toolConfig").is_none());
        let mode = |choice| body_for(Some(choice)).unwrap()["toolConfig"]["functionCallingConfig"].clone();
        assert_eq!(mode(ToolChoice::Auto), json!({"mode": "AUTO"}));
        assert_eq!(mode(ToolChoice::None), json!({"mode": "NONE"}));
        assert_eq!(mode(ToolChoice::Required), json!({"mode": "ANY"}));
        assert_eq!(
            mode(ToolChoice::Named { tool_name: "get_weather".into() }),
            json!({"mode": "ANY", "allowedFunctionNames": ["get_weather"]})
        );
        assert_eq!(body_for(Some(ToolChoice::Named { tool_name: "ghost".into() })).unwrap_err().kind, ErrorKind::InvalidRequest);
        let mut bare = request(vec![Message::user("?")]);
        bare.tool_choice = Some(ToolChoice::Auto);
        assert!(body(&bare).unwrap().get("toolConfig").is_none());
        bare.tool_choice = Some(ToolChoice::Required);
        assert_eq!(body_error(bare), ErrorKind::InvalidRequest);
    }

    #[test]
    fn generation_parameters_and_response_formats() {
        let mut req = request(vec![Message::user("?")]);
        req.temperature = Some(0.7);
        req.top_p = Some(0.9);
        req.max_tokens = Some(128);
        req.stop_sequences = vec!["10".into()];
        req.response_format =
            Some(ResponseFormat::JsonSchema { json_schema: json!({"type": "object", "prefixItems": []}), strict: true });
        assert_eq!(
            body(&req).unwrap()["generationConfig"],
            json!({"temperature": 0.7, "topP": 0.9, "maxOutputTokens": 128, "stopSequences": ["10"],
                   "responseMimeType": "application/json", "responseJsonSchema": {"type": "object", "prefixItems": []}})
        );
        req.response_format = Some(ResponseFormat::Json);
        assert_eq!(body(&req).unwrap()["generationConfig"]["responseMimeType"], "application/json");
        let plain = body(&request(vec![Message::user("?")])).unwrap();
        assert!(plain.get("generationConfig").is_none());
    }

    #[test]
    fn reasoning_effort_is_a_level_on_gemini_3_and_a_budget_on_gemini_2() {
        let config = |model: &str, effort: &str| {
            let mut req = request(vec![Message::user("?")]);
            req.model = model.into();
            req.reasoning_effort = Some(effort.into());
            body(&req).map(|b| b["generationConfig"]["thinkingConfig"].clone())
        };
        assert_eq!(config("gemini-3-flash-preview", "high").unwrap(), json!({"thinkingLevel": "HIGH", "includeThoughts": true}));
        assert_eq!(config("gemini-3-pro", "Medium").unwrap(), json!({"thinkingLevel": "MEDIUM", "includeThoughts": true}));
        assert_eq!(config("gemini-3-pro", "none").unwrap(), json!({"thinkingLevel": "MINIMAL", "includeThoughts": false}));
        assert_eq!(config("models/gemini-2.5-pro", "low").unwrap(), json!({"thinkingBudget": 1024, "includeThoughts": true}));
        assert_eq!(config("gemini-2.5-flash", "none").unwrap(), json!({"thinkingBudget": 0, "includeThoughts": false}));
        assert_eq!(config("gemini-2.5-flash", "extreme").unwrap_err().kind, ErrorKind::InvalidRequest);
    }

    #[test]
    fn provider_options_patch_the_body() {
        let mut req = request(vec![Message::user("?")]);
        req.tools = vec![weather_tool()];
        req.tool_choice = Some(ToolChoice::Auto);
        req.temperature = Some(0.5);
        req.reasoning_effort = Some("high".into());
        req.provider_options = Some(json!({
            "openai": {"ignored": true},
            "gemini": {
                "generationConfig": {"topK": 40, "seed": 7, "thinkingConfig": {"thinkingBudget": 10000, "includeThoughts": true}},
                "toolConfig": {"functionCallingConfig": {"mode": "VALIDATED"}},
                "tools": [{"googleSearch": {}}],
                "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]
            }
        }));
        let body = body(&req).unwrap();
        assert_eq!(
            body["generationConfig"],
            json!({"temperature": 0.5, "topK": 40, "seed": 7, "thinkingConfig": {"thinkingBudget": 10000, "includeThoughts": true}})
        );
        assert_eq!(body["toolConfig"], json!({"functionCallingConfig": {"mode": "VALIDATED"}}));
        assert_eq!(body["tools"].as_array().map(Vec::len), Some(2));
        assert_eq!(body["tools"][1], json!({"googleSearch": {}}));
        assert_eq!(body["safetySettings"][0]["threshold"], "BLOCK_NONE");
        assert!(body.get("ignored").is_none());
        req.provider_options = Some(json!({"gemini": [1]}));
        assert_eq!(body_error(req), ErrorKind::InvalidRequest);
    }
}
