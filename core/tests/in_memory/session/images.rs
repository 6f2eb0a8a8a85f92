//! Images in: a user input with images, read through the environment, checked before any
//! request, kept in the history and its snapshot.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::rc::Rc;

use futures::executor::block_on;

use openagent_core::env::EnvError;
use openagent_core::llm::{ContentPart, MediaData, Message, Role, ScriptStep, ScriptedClient};
use openagent_core::profiles::CoreProfile;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::*;
use openagent_core::tools::ToolRegistry;
use openagent_memenv::MemoryEnvironment;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

struct Images {
    session: Session,
    client: Rc<ScriptedClient>,
    env: Rc<MemoryEnvironment>,
}

fn session(provider: &str, profile: impl FnOnce(CoreProfile) -> CoreProfile) -> Images {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let profile = Rc::new(profile(CoreProfile::new("vision-model", ToolRegistry::new()).with_id(provider)));
    let client = Rc::new(ScriptedClient::new([ScriptStep::text("I see it."), ScriptStep::text("Still there.")]));
    let session = Session::builder(profile, env.clone(), client.clone(), runtime).id("s1").build();
    Images { session, client, env }
}

impl Images {
    fn submit(&self, input: UserInput) -> Result<StopReason, SessionError> {
        block_on(self.session.submit(input))
    }

    /// The error an input was refused with; the model was not called and the session goes on.
    fn refused(&self, input: UserInput) -> InputError {
        let Err(SessionError::Input(error)) = self.submit(input) else { panic!("the input was not refused") };
        assert!(self.client.requests().is_empty(), "no request is made");
        assert_eq!(self.session.status(), SessionStatus::Idle);
        error
    }
}

fn bytes(data: &[u8], name: &str) -> ImageInput {
    ImageInput::Bytes { data: data.to_vec(), name: Some(name.into()) }
}

fn user_input(events: &mut Events) -> SessionEvent {
    std::iter::from_fn(|| events.try_recv()).find(|e| e.kind() == "user_input").unwrap()
}

fn images_of(message: &Message) -> Vec<&MediaData> {
    message
        .content
        .iter()
        .filter_map(|part| match part {
            ContentPart::Image { image } => Some(image),
            _ => None,
        })
        .collect()
}

#[test]
fn an_image_file_is_read_through_the_environment_and_sent_with_the_text() {
    let s = session("openai", |p| p);
    s.env.write_bytes("shots/ui.png", PNG).unwrap();
    let mut events = s.session.events();
    let input = UserInput::new("fix the layout").with_image(ImageInput::Path("shots/ui.png".into()));
    assert_eq!(s.submit(input), Ok(StopReason::Completed));

    let request = &s.client.requests()[0];
    let user = request.messages.iter().find(|m| m.role == Role::User).unwrap();
    assert_eq!(user.text(), "fix the layout");
    let image = images_of(user)[0];
    assert_eq!(image.data.as_deref(), Some(PNG));
    assert_eq!(image.media_type.as_deref(), Some("image/png"));
    assert_eq!(image.file_name.as_deref(), Some("ui.png"));

    // The event names the image and carries no bytes.
    let input = user_input(&mut events);
    assert_eq!(input.data, EventData::UserInput { content: "fix the layout".into(), images: vec!["shots/ui.png".into()] });
    let json = serde_json::to_value(input).unwrap();
    assert_eq!(json["data"], serde_json::json!({"content": "fix the layout", "images": ["shots/ui.png"]}));
}

#[test]
fn images_stay_in_the_history_and_a_restored_session_still_sends_them() {
    let s = session("anthropic", |p| p);
    let input = UserInput::new("what is this?").with_image(ImageInput::Bytes { data: PNG.to_vec(), name: None });
    s.submit(input).unwrap();
    let Turn::User { images, .. } = &s.session.history()[0] else { panic!("a user turn first") };
    assert_eq!(images[0].data.as_deref(), Some(PNG));

    let snapshot = SessionSnapshot::from_json(&s.session.snapshot().to_json()).unwrap();
    let again = session("anthropic", |p| p);
    let restored = Session::builder(
        Rc::new(CoreProfile::new("vision-model", ToolRegistry::new()).with_id("anthropic")),
        again.env.clone(),
        again.client.clone(),
        Rc::new(VirtualRuntime::new(|_| {})),
    )
    .restore(snapshot)
    .build();
    assert_eq!(restored.history(), s.session.history());
    block_on(restored.submit("and now?")).unwrap();
    let request = &again.client.requests()[0];
    let first = request.messages.iter().find(|m| m.role == Role::User).unwrap();
    assert_eq!(images_of(first)[0].data.as_deref(), Some(PNG));
}

#[test]
fn an_unnamed_image_is_counted_and_a_url_is_passed_on() {
    let s = session("openai", |p| p);
    let mut events = s.session.events();
    let input = UserInput::new("compare")
        .with_image(ImageInput::Bytes { data: PNG.to_vec(), name: None })
        .with_image(ImageInput::Url("https://example.com/a.png".into()));
    s.submit(input).unwrap();
    let user = s.client.requests()[0].messages.iter().find(|m| m.role == Role::User).cloned().unwrap();
    assert_eq!(images_of(&user)[1].url.as_deref(), Some("https://example.com/a.png"));
    let input = user_input(&mut events);
    let EventData::UserInput { images, .. } = &input.data else { unreachable!() };
    assert_eq!(images, &["image 1", "https://example.com/a.png"]);
}

#[test]
fn an_unreadable_file_is_refused_before_any_request() {
    let s = session("openai", |p| p);
    let missing = s.refused(UserInput::new("look").with_image(ImageInput::Path("nope.png".into())));
    assert!(matches!(&missing, InputError::Unreadable { name, reason: EnvError::NotFound(_) } if name == "nope.png"));
    assert!(missing.to_string().starts_with("cannot attach image nope.png: file not found"), "{missing}");

    s.env.mkdir_p("shots.png").unwrap();
    let directory = s.refused(UserInput::new("look").with_image(ImageInput::Path("shots.png".into())));
    assert!(matches!(directory, InputError::Unreadable { reason: EnvError::IsADirectory(_), .. }), "{directory}");

    // The session was left as it was: the next input goes through.
    assert_eq!(s.submit("hello".into()), Ok(StopReason::Completed));
}

#[test]
fn an_image_past_the_providers_limit_is_refused() {
    // Anthropic: 5 MB per image, as a file or as bytes.
    let big = [PNG, &vec![0; 5 * 1024 * 1024]].concat();
    let s = session("anthropic", |p| p);
    s.env.write_bytes("big.png", &big).unwrap();
    let error = s.refused(UserInput::new("look").with_image(ImageInput::Path("big.png".into())));
    assert!(matches!(error, InputError::TooLarge { limit: "5 MB", .. }), "{error}");
    assert!(error.to_string().contains("anthropic accepts at most 5 MB per image"), "{error}");
    let error = s.refused(UserInput::new("look").with_image(bytes(&big, "big.png")));
    assert!(matches!(error, InputError::TooLarge { .. }), "{error}");

    // OpenAI takes it (20 MB per image), not one past 20 MB.
    let s = session("openai", |p| p);
    assert_eq!(s.submit(UserInput::new("look").with_image(bytes(&big, "big.png"))), Ok(StopReason::Completed));
    let huge = [PNG, &vec![0; 20 * 1024 * 1024]].concat();
    let s = session("openai", |p| p);
    let error = s.refused(UserInput::new("look").with_image(bytes(&huge, "huge.png")));
    assert!(matches!(error, InputError::TooLarge { limit: "20 MB", .. }), "{error}");

    // Gemini: 20 MB of inline data per request, however it is split.
    let half = [PNG, &vec![0; 11 * 1024 * 1024]].concat();
    let s = session("gemini", |p| p);
    let error = s.refused(UserInput::new("look").with_image(bytes(&half, "a.png")).with_image(bytes(&half, "b.png")));
    assert!(matches!(error, InputError::RequestTooLarge { limit: "20 MB", .. }), "{error}");
}

#[test]
fn only_image_types_the_provider_reads_are_sent() {
    let s = session("openai", |p| p);
    s.env.write_bytes("notes.png", b"just some text, named like an image").unwrap();
    let error = s.refused(UserInput::new("look").with_image(ImageInput::Path("notes.png".into())));
    assert_eq!(error.to_string(), "notes.png is not a PNG, JPEG, GIF or WebP image (told from its content, not its name)");
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>"#;
    let error = s.refused(UserInput::new("look").with_image(bytes(svg, "logo.svg")));
    assert!(matches!(error, InputError::UnsupportedType { .. }), "{error}");

    // HEIC is Gemini's alone.
    let heic = b"\0\0\0\x18ftypheic\0\0\0\0mif1heic";
    let error = s.refused(UserInput::new("look").with_image(bytes(heic, "photo.heic")));
    assert!(matches!(error, InputError::UnsupportedType { .. }), "{error}");
    let s = session("gemini", |p| p);
    assert_eq!(s.submit(UserInput::new("look").with_image(bytes(heic, "photo.heic"))), Ok(StopReason::Completed));
    let user = s.client.requests()[0].messages.iter().find(|m| m.role == Role::User).cloned().unwrap();
    assert_eq!(images_of(&user)[0].media_type.as_deref(), Some("image/heic"));
}

#[test]
fn a_model_without_image_support_refuses_images_not_text() {
    let s = session("openai-compatible", |p| p.with_images(false));
    let error = s.refused(UserInput::new("look").with_image(bytes(PNG, "ui.png")));
    assert_eq!(
        error.to_string(),
        "model vision-model does not accept images; submit the text alone, or choose a model that sees images"
    );
    assert_eq!(s.submit("look".into()), Ok(StopReason::Completed));
}
