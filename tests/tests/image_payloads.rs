//! A user's image, from `Session::submit` to the wire, against the real captured payloads
//! (`shared/fixtures/provider_payloads/<api>/multimodalRequest/request.json`, or
//! `$OPENAGENT_FIXTURES`): the session is given the image the capture sent (its bytes as a file
//! in the environment, or its URL), and each codec must write the user message as the provider
//! received it: the text part, then the image part in that API's shape.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use futures::executor::block_on;
use openagent_core::llm::anthropic_messages::AnthropicMessages;
use openagent_core::llm::gemini::Gemini;
use openagent_core::llm::openai_chat::OpenAiChat;
use openagent_core::llm::openai_responses::OpenAiResponses;
use openagent_core::llm::{base64, Codec, ProviderConfig, Request, ScriptStep, ScriptedClient};
use openagent_core::profiles::CoreProfile;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::{ImageInput, UserInput};
use openagent_core::tools::ToolRegistry;
use openagent_core::Session;
use openagent_memenv::MemoryEnvironment;
use serde_json::Value;

fn fixtures() -> Result<PathBuf, PathBuf> {
    let root = std::env::var_os("OPENAGENT_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/provider_payloads"));
    [root.join("provider_payloads"), root.clone()].into_iter().find(|d| d.join("gemini").is_dir()).ok_or(root)
}

/// The captured request of `api`, or `None` (said) when the fixtures are not on this machine.
fn captured(api: &str) -> Option<Value> {
    let path = match fixtures() {
        Ok(dir) => dir.join(api).join("multimodalRequest/request.json"),
        Err(root) => {
            println!("skipped: provider payloads not found at {}", root.display());
            return None;
        }
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(serde_json::from_str(&text).unwrap())
}

/// What the session asks of the model for `input`, the image file `photo` in its environment.
fn session_request(provider: &str, input: UserInput, photo: Option<&[u8]>) -> Request {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    if let Some(bytes) = photo {
        env.write_bytes("photo.jpg", bytes).unwrap();
    }
    let profile = Rc::new(CoreProfile::new("model", ToolRegistry::new()).with_id(provider));
    let client = Rc::new(ScriptedClient::new([ScriptStep::text("A photo.")]));
    let session = Session::builder(profile, env, client.clone(), runtime).build();
    block_on(session.submit(input)).unwrap();
    client.requests().remove(0)
}

/// The user message's content as `codec` writes it; `messages` and `content` name where it is.
fn wire_content(codec: &dyn Codec, request: &Request, messages: &str, content: &str) -> Value {
    let body: Value = serde_json::from_slice(&codec.build_request(request, false).unwrap().body.to_vec()).unwrap();
    let user = body[messages].as_array().unwrap().iter().find(|m| m["role"] == "user").unwrap();
    let mut content = user[content].clone();
    // Anthropic's cache mark on the last block is ours, not the image's.
    for part in content.as_array_mut().unwrap() {
        part.as_object_mut().unwrap().remove("cache_control");
    }
    content
}

fn config(base_url: &str) -> ProviderConfig {
    ProviderConfig { base_url: base_url.into(), ..ProviderConfig::default() }
}

/// Where the capture's image is: base64 bytes (given to the session as a file in its
/// environment) or a URL (given as the URL), at this JSON pointer in the image part.
enum Image {
    Inline(&'static str),
    Url(&'static str),
}

/// `api`'s captured user message (`messages[0].content` and the like, named by `at`) equals what
/// `codec` writes for the same text and image submitted to a session of `provider`.
fn matches_capture(api: &str, provider: &str, codec: &dyn Codec, at: [&str; 2], image: Image) {
    let Some(captured) = captured(api) else { return };
    let want = &captured[at[0]][0][at[1]];
    let found = |pointer| want[1].pointer(pointer).and_then(Value::as_str).unwrap();
    let input = UserInput::new(want[0]["text"].as_str().unwrap());
    let (input, photo) = match image {
        Image::Inline(data) => {
            (input.with_image(ImageInput::Path("photo.jpg".into())), Some(base64::decode(found(data)).unwrap()))
        }
        Image::Url(url) => (input.with_image(ImageInput::Url(found(url).into())), None),
    };
    let request = session_request(provider, input, photo.as_deref());
    assert_eq!(&wire_content(codec, &request, at[0], at[1]), want);
}

#[test]
fn anthropic_user_image_matches_the_captured_payload() {
    let codec = AnthropicMessages::new(config("https://api.anthropic.com"));
    matches_capture("anthropic", "anthropic", &codec, ["messages", "content"], Image::Inline("/source/data"));
}

#[test]
fn gemini_user_image_matches_the_captured_payload() {
    let codec = Gemini::new(config("https://generativelanguage.googleapis.com"));
    matches_capture("gemini", "gemini", &codec, ["contents", "parts"], Image::Inline("/inlineData/data"));
}

#[test]
fn openai_responses_user_image_matches_the_captured_payload() {
    let codec = OpenAiResponses::new(config("https://api.openai.com/v1"));
    matches_capture("openai-responses", "openai", &codec, ["input", "content"], Image::Url("/image_url"));
}

#[test]
fn openai_chat_user_image_matches_the_captured_payload() {
    let codec = OpenAiChat::new(config("http://127.0.0.1:8080/v1"));
    matches_capture("openai-chat", "openai-compatible", &codec, ["messages", "content"], Image::Url("/image_url/url"));
}
