//! `Request` -> `POST /v1/messages` (spec 7.2): the body, then the headers.

use serde_json::{Map, Value};

use super::options::{deep_merge, place_breakpoints, Options};
use super::{messages, tools, DEFAULT_BASE_URL, PROVIDER};
use crate::codec::ProviderConfig;
use crate::error::{ErrorKind, LlmError};
use crate::http::HttpRequest;
use crate::json::{join, object};
use crate::json_text;
use crate::types::{Request, ResponseFormat, ToolChoice};

const API_VERSION: &str = "2023-06-01";
/// The API requires `max_tokens`; spec 7.3 sets this default.
const DEFAULT_MAX_TOKENS: u64 = 4096;
/// The API has no JSON mode, so a closing instruction asks for it (spec 7.8: prompt engineering).
const JSON_INSTRUCTION: &str = "Respond with a single valid JSON value and nothing else: no prose, no code fences.";

pub(super) fn build(config: &ProviderConfig, request: &Request, stream: bool) -> Result<HttpRequest, LlmError> {
    let options = Options::from_request(request)?;
    let body = body(request, &options, stream)?;
    let mut http = HttpRequest::post_json(url(&config.base_url), json_text::to_vec(&Value::Object(body)));
    headers(&mut http.headers, config, &options);
    Ok(http)
}

fn url(base_url: &str) -> String {
    let base = match base_url.trim_end_matches('/') {
        "" => DEFAULT_BASE_URL,
        base => base,
    };
    // `ANTHROPIC_BASE_URL` is conventionally the host root; accept one that already ends in /v1.
    if base.ends_with("/v1") {
        format!("{base}/messages")
    } else {
        format!("{base}/v1/messages")
    }
}

fn body(request: &Request, options: &Options, stream: bool) -> Result<Map<String, Value>, LlmError> {
    let conversation = messages::translate(&request.messages)?;
    let mut system = conversation.system;
    let mut body = Map::new();
    body.insert("model".into(), request.model.as_str().into());
    body.insert("messages".into(), Value::Array(conversation.messages));

    let thinking = thinking(request, options)?;
    body.insert("max_tokens".into(), max_tokens(request.max_tokens, thinking.as_ref()).into());
    if let Some(thinking) = thinking {
        body.insert("thinking".into(), thinking);
    }
    if !request.tools.is_empty() {
        body.insert("tools".into(), tools::tools(&request.tools));
        match &request.tool_choice {
            Some(choice) => {
                body.insert("tool_choice".into(), tools::tool_choice(choice));
            }
            // A `tool_choice` option (e.g. `{"disable_parallel_tool_use": true}`) needs a type to merge into.
            None if options.body.contains_key("tool_choice") => {
                body.insert("tool_choice".into(), tools::tool_choice(&ToolChoice::Auto));
            }
            None => {}
        }
    }
    match &request.response_format {
        Some(ResponseFormat::JsonSchema { json_schema, .. }) => {
            let format = object(vec![("type", "json_schema".into()), ("schema", json_schema.clone())]);
            body.insert("output_config".into(), object(vec![("format", format)]));
        }
        Some(ResponseFormat::Json) => system.push(object(vec![("type", "text".into()), ("text", JSON_INSTRUCTION.into())])),
        Some(ResponseFormat::Text) | None => {}
    }
    if !system.is_empty() {
        body.insert("system".into(), Value::Array(system));
    }
    if let Some(t) = request.temperature {
        body.insert("temperature".into(), t.into());
    }
    if let Some(p) = request.top_p {
        body.insert("top_p".into(), p.into());
    }
    if !request.stop_sequences.is_empty() {
        body.insert("stop_sequences".into(), request.stop_sequences.clone().into());
    }
    // The API's metadata takes only `user_id` and refuses other keys; the rest is the caller's.
    if let Some(user_id) = request.metadata.get("user_id") {
        body.insert("metadata".into(), object(vec![("user_id", user_id.as_str().into())]));
    }
    if stream {
        body.insert("stream".into(), true.into());
    }
    deep_merge(&mut body, options.body.clone());
    if options.auto_cache {
        place_breakpoints(&mut body, &options.cache_control);
    }
    Ok(body)
}

/// Extended thinking from `reasoning_effort`, unless the caller gave `thinking` outright. The
/// budgets leave visible answers room within 4096 extra tokens and stay under every thinking
/// model's output limit (32k for Opus 4).
fn thinking(request: &Request, options: &Options) -> Result<Option<Value>, LlmError> {
    if let Some(thinking) = &options.thinking {
        return Ok(Some(thinking.clone()));
    }
    let budget = match request.reasoning_effort.as_deref() {
        None => return Ok(None),
        Some("none") => return Ok(Some(object(vec![("type", "disabled".into())]))),
        // OpenAI's and Gemini's lowest level is portable: here, the smallest budget the API takes.
        Some("minimal") => 1024,
        Some("low") => 2048,
        Some("medium") => 8192,
        Some("high") => 24576,
        Some(other) => {
            return Err(LlmError::new(
                ErrorKind::Configuration,
                format!(
                    "reasoning_effort {} is not one Anthropic supports: use minimal, low, medium, high or none",
                    json_text::quote(other)
                ),
            )
            .with_provider(PROVIDER))
        }
    };
    Ok(Some(object(vec![("type", "enabled".into()), ("budget_tokens", budget.into())])))
}

/// The API wants `max_tokens` above the thinking budget (thinking counts as output).
fn max_tokens(requested: Option<u64>, thinking: Option<&Value>) -> u64 {
    let budget = thinking.filter(|t| t.get("type").and_then(Value::as_str) == Some("enabled"));
    let budget = budget.and_then(|t| t.get("budget_tokens")).and_then(Value::as_u64);
    match (requested, budget) {
        (Some(max), Some(budget)) if max <= budget => budget.saturating_add(max),
        (Some(max), _) => max,
        (None, Some(budget)) => budget.saturating_add(DEFAULT_MAX_TOKENS),
        (None, None) => DEFAULT_MAX_TOKENS,
    }
}

/// The key goes in `x-api-key` only, and only when there is one: a host that injects the key
/// itself (the sandbox) sends none. `default_headers` replace same-named ones, except
/// `anthropic-beta`, whose features are joined with those of the request.
fn headers(headers: &mut Vec<(String, String)>, config: &ProviderConfig, options: &Options) {
    if !config.api_key.is_empty() {
        headers.push(("x-api-key".into(), config.api_key.expose().to_owned()));
    }
    headers.push(("anthropic-version".into(), API_VERSION.into()));
    let mut betas: Vec<String> = Vec::new();
    for (name, value) in &config.default_headers {
        if name.eq_ignore_ascii_case("anthropic-beta") {
            betas.extend(value.split(',').map(|b| b.trim().to_owned()).filter(|b| !b.is_empty()));
        } else {
            headers.retain(|(existing, _)| !existing.eq_ignore_ascii_case(name));
            headers.push((name.clone(), value.clone()));
        }
    }
    for beta in &options.beta_headers {
        if !betas.contains(beta) {
            betas.push(beta.clone());
        }
    }
    if !betas.is_empty() {
        headers.push(("anthropic-beta".into(), join(&mut betas.iter().map(String::as_str), ",")));
    }
    if config.browser {
        // Without it the API refuses browser (CORS) requests that carry a key.
        headers.push(("anthropic-dangerous-direct-browser-access".into(), "true".into()));
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::codec::ApiKey;
    use crate::types::{Message, ToolDefinition};
    use serde_json::json;

    fn config() -> ProviderConfig {
        ProviderConfig {
            api_key: ApiKey::new("sk-ant-test-key"),
            base_url: "https://api.anthropic.com/".into(),
            ..Default::default()
        }
    }

    fn request() -> Request {
        Request { model: "claude-sonnet-4-5".into(), messages: vec![Message::user("Hi")], ..Request::default() }
    }

    fn build_body(request: &Request) -> Value {
        let http = build(&config(), request, false).unwrap();
        serde_json::from_slice(&http.body.to_vec()).unwrap()
    }

    fn weather_tool() -> ToolDefinition {
        ToolDefinition { name: "get_weather".into(), description: "Get weather".into(), parameters: json!({"type": "object"}) }
    }

    #[test]
    fn posts_to_v1_messages_with_version_key_and_no_key_elsewhere() {
        let http = build(&config(), &request(), true).unwrap();
        assert_eq!(http.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(http.header("x-api-key"), Some("sk-ant-test-key"));
        assert_eq!(http.header("anthropic-version"), Some("2023-06-01"));
        assert_eq!(http.header("content-type"), Some("application/json"));
        assert_eq!(http.header("anthropic-beta"), None);
        assert_eq!(http.header("anthropic-dangerous-direct-browser-access"), None);
        assert!(!String::from_utf8_lossy(&http.body.to_vec()).contains("sk-ant-test-key"));
        assert!(!format!("{http:?}").contains("sk-ant-test-key"));
        let body: Value = serde_json::from_slice(&http.body.to_vec()).unwrap();
        assert_eq!(body["stream"], json!(true));
        assert_eq!(body["max_tokens"], json!(4096));
    }

    #[test]
    fn base_urls_with_or_without_v1_and_the_default() {
        assert_eq!(url("http://127.0.0.1:9/v1/"), "http://127.0.0.1:9/v1/messages");
        assert_eq!(url("http://proxy/anthropic"), "http://proxy/anthropic/v1/messages");
        assert_eq!(url(""), "https://api.anthropic.com/v1/messages");
    }

    #[test]
    fn browser_beta_and_default_headers() {
        let mut config = config();
        config.browser = true;
        config.api_key = ApiKey::default();
        config.default_headers =
            vec![("anthropic-beta".into(), "a-1, b-2".into()), ("anthropic-version".into(), "2099-01-01".into())];
        let mut request = request();
        request.provider_options = Some(json!({"anthropic": {"beta_headers": ["b-2", "c-3"]}}));
        let http = build(&config, &request, false).unwrap();
        assert_eq!(http.header("anthropic-beta"), Some("a-1,b-2,c-3"));
        assert_eq!(http.header("anthropic-dangerous-direct-browser-access"), Some("true"));
        assert_eq!(http.header("anthropic-version"), Some("2099-01-01"));
        assert_eq!(http.headers.iter().filter(|(k, _)| k == "anthropic-version").count(), 1);
        assert_eq!(http.header("x-api-key"), None);
    }

    #[test]
    fn generation_parameters_map_one_to_one() {
        let mut request = request();
        request.temperature = Some(0.5);
        request.top_p = Some(0.9);
        request.max_tokens = Some(100);
        request.stop_sequences = vec!["END".into()];
        request.metadata.insert("user_id".into(), "u-1".into());
        request.metadata.insert("trace".into(), "not for the API".into());
        let body = build_body(&request);
        assert_eq!(body["temperature"], json!(0.5));
        assert_eq!(body["top_p"], json!(0.9));
        assert_eq!(body["max_tokens"], json!(100));
        assert_eq!(body["stop_sequences"], json!(["END"]));
        assert_eq!(body["metadata"], json!({"user_id": "u-1"}));
        assert_eq!(body.get("stream"), None);
    }

    #[test]
    fn tools_and_every_tool_choice() {
        let mut request = request();
        request.tools = vec![weather_tool()];
        let body = build_body(&request);
        assert_eq!(body["tools"][0]["name"], "get_weather");
        assert_eq!(body["tools"][0]["description"], "Get weather");
        assert_eq!(body["tools"][0]["input_schema"], json!({"type": "object"}));
        assert_eq!(body.get("tool_choice"), None);
        let cases = [
            (ToolChoice::Auto, json!({"type": "auto"})),
            (ToolChoice::Required, json!({"type": "any"})),
            (ToolChoice::Named { tool_name: "get_weather".into() }, json!({"type": "tool", "name": "get_weather"})),
            (ToolChoice::None, json!({"type": "none"})),
        ];
        for (choice, wire) in cases {
            request.tool_choice = Some(choice);
            let body = build_body(&request);
            assert_eq!(body["tool_choice"], wire);
            assert_eq!(body["tools"].as_array().map(Vec::len), Some(1), "tools are kept for {wire}");
        }
        request.tool_choice = None;
        request.tools.clear();
        request.tool_choice = Some(ToolChoice::Required);
        assert_eq!(build_body(&request).get("tool_choice"), None, "no tool_choice without tools");
    }

    #[test]
    fn a_tool_choice_option_merges_into_the_choice() {
        let mut request = request();
        request.tools = vec![weather_tool()];
        request.provider_options = Some(json!({"anthropic": {"tool_choice": {"disable_parallel_tool_use": true}}}));
        assert_eq!(build_body(&request)["tool_choice"], json!({"type": "auto", "disable_parallel_tool_use": true}));
        request.tool_choice = Some(ToolChoice::Required);
        assert_eq!(build_body(&request)["tool_choice"], json!({"type": "any", "disable_parallel_tool_use": true}));
    }

    #[test]
    fn reasoning_effort_becomes_a_thinking_budget_with_room_to_answer() {
        let mut request = request();
        for (effort, budget) in [("minimal", 1024), ("low", 2048), ("medium", 8192), ("high", 24576)] {
            request.reasoning_effort = Some(effort.into());
            let body = build_body(&request);
            assert_eq!(body["thinking"], json!({"type": "enabled", "budget_tokens": budget}));
            assert_eq!(body["max_tokens"], json!(budget + 4096));
        }
        request.max_tokens = Some(1000);
        assert_eq!(build_body(&request)["max_tokens"], json!(24576 + 1000));
        request.max_tokens = Some(30000);
        assert_eq!(build_body(&request)["max_tokens"], json!(30000));
        request.reasoning_effort = Some("none".into());
        assert_eq!(build_body(&request)["thinking"], json!({"type": "disabled"}));
        request.reasoning_effort = Some("maximal".into());
        assert_eq!(build(&config(), &request, false).unwrap_err().kind, ErrorKind::Configuration);
    }

    #[test]
    fn an_explicit_thinking_option_wins_over_reasoning_effort() {
        let mut request = request();
        request.reasoning_effort = Some("high".into());
        request.provider_options =
            Some(json!({"anthropic": {"thinking": {"type": "adaptive"}, "output_config": {"effort": "low"}}}));
        let body = build_body(&request);
        assert_eq!(body["thinking"], json!({"type": "adaptive"}));
        assert_eq!(body["output_config"], json!({"effort": "low"}));
        assert_eq!(body["max_tokens"], json!(4096));
        request.provider_options = Some(json!({"anthropic": {"thinking": {"type": "enabled", "budget_tokens": 10000}}}));
        assert_eq!(build_body(&request)["max_tokens"], json!(14096));
    }

    #[test]
    fn structured_output_goes_to_output_config_and_merges_with_an_effort_option() {
        let mut request = request();
        let schema = json!({"type": "object", "properties": {"n": {"type": "number"}}, "additionalProperties": false});
        request.response_format = Some(ResponseFormat::JsonSchema { json_schema: schema.clone(), strict: true });
        request.provider_options = Some(json!({"anthropic": {"output_config": {"effort": "medium"}}}));
        let body = build_body(&request);
        assert_eq!(body["output_config"], json!({"effort": "medium", "format": {"type": "json_schema", "schema": schema}}));
        request.response_format = Some(ResponseFormat::Json);
        request.provider_options = None;
        let body = build_body(&request);
        assert_eq!(body["system"].as_array().and_then(|s| s.last()).and_then(|b| b.get("text")), Some(&json!(JSON_INSTRUCTION)));
        assert_eq!(body.get("output_config"), None);
    }

    #[test]
    fn other_options_pass_through_and_win() {
        let mut request = request();
        request.provider_options = Some(json!({"anthropic": {"top_k": 40, "service_tier": "auto", "max_tokens": 77}}));
        let body = build_body(&request);
        assert_eq!(
            (body["top_k"].clone(), body["service_tier"].clone(), body["max_tokens"].clone()),
            (json!(40), json!("auto"), json!(77))
        );
    }

    #[test]
    fn prompt_caching_is_automatic_unless_turned_off() {
        let mut request = request();
        request.messages.insert(0, Message::system("Be brief."));
        request.tools = vec![weather_tool()];
        let body = build_body(&request);
        let marker = json!({"type": "ephemeral"});
        assert_eq!(body["system"][0]["cache_control"], marker);
        assert_eq!(body["tools"][0]["cache_control"], marker);
        assert_eq!(body["messages"][0]["content"][0]["cache_control"], marker);
        request.provider_options = Some(json!({"anthropic": {"auto_cache": false}}));
        assert!(!build_body(&request).to_string().contains("cache_control"));
        request.provider_options = Some(json!({"anthropic": {"cache_control": {"type": "ephemeral", "ttl": "1h"}}}));
        assert_eq!(build_body(&request)["system"][0]["cache_control"], json!({"type": "ephemeral", "ttl": "1h"}));
    }
}
