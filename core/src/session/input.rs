//! What a host submits: text, and images by bytes, URL or path ([`UserInput`]). Every image is
//! checked before any request is made: a file is read through the session's environment (the
//! in-memory files in a browser, the real ones natively), its type is told from its first bytes,
//! and its size is held to the provider's documented limit, so a bad attachment fails at once
//! with a message that names it instead of as a provider's 400 after the request.

use crate::env::{EnvError, ExecutionEnvironment};
use crate::llm::MediaData;
use crate::profiles::ProviderProfile;

/// One input for [`Session::submit`](super::Session::submit). A string converts into one
/// without images, so `submit("fix the test")` reads as before.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserInput {
    pub text: String,
    pub images: Vec<ImageInput>,
}

/// An image to send with an input.
#[derive(Debug, Clone, PartialEq)]
pub enum ImageInput {
    /// Bytes the host holds (a pasted screenshot); `name`, if any, is what events show.
    Bytes { data: Vec<u8>, name: Option<String> },
    /// An image the provider fetches itself; neither read nor checked here.
    Url(String),
    /// A file in the session's environment, absolute or relative to its working directory.
    Path(String),
}

impl UserInput {
    pub fn new(text: impl Into<String>) -> Self {
        Self { text: text.into(), images: Vec::new() }
    }

    pub fn with_image(mut self, image: ImageInput) -> Self {
        self.images.push(image);
        self
    }
}

impl From<String> for UserInput {
    fn from(text: String) -> Self {
        Self::new(text)
    }
}

impl From<&str> for UserInput {
    fn from(text: &str) -> Self {
        Self::new(text)
    }
}

impl From<&String> for UserInput {
    fn from(text: &String) -> Self {
        Self::new(text.as_str())
    }
}

/// Why an input's images were refused. Nothing was sent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InputError {
    #[error("model {model} does not accept images; submit the text alone, or choose a model that sees images")]
    NoImageSupport { model: String },
    #[error("cannot attach image {name}: {reason}")]
    Unreadable { name: String, reason: EnvError },
    #[error("{name} has {size} bytes; {provider} accepts at most {limit} per image. Shrink or crop it first")]
    TooLarge { name: String, size: u64, provider: String, limit: &'static str },
    #[error("the images have {size} bytes in all; {provider} accepts at most {limit} of images per request. Send fewer or smaller ones")]
    RequestTooLarge { size: u64, provider: String, limit: &'static str },
    #[error("{name} is not a {accepted} image (told from its content, not its name)")]
    UnsupportedType { name: String, accepted: &'static str },
}

/// What a provider documents it accepts, in bytes of image (before base64).
struct Limits {
    per_image: u64,
    per_image_text: &'static str,
    per_request: u64,
    per_request_text: &'static str,
    accepted: &'static str,
    heif: bool,
}

const MB: u64 = 1024 * 1024;
const COMMON: &str = "PNG, JPEG, GIF or WebP";

/// Anthropic: 5 MB per image. Gemini: 20 MB of inline data per request, and it also reads
/// HEIC/HEIF. OpenAI: 20 MB per image and 50 MB per request; other servers speak its wire
/// format and get its limits.
fn limits(provider: &str) -> Limits {
    match provider {
        "anthropic" => Limits {
            per_image: 5 * MB,
            per_image_text: "5 MB",
            per_request: u64::MAX,
            per_request_text: "",
            accepted: COMMON,
            heif: false,
        },
        "gemini" => Limits {
            per_image: 20 * MB,
            per_image_text: "20 MB",
            per_request: 20 * MB,
            per_request_text: "20 MB",
            accepted: "PNG, JPEG, GIF, WebP, HEIC or HEIF",
            heif: true,
        },
        _ => Limits {
            per_image: 20 * MB,
            per_image_text: "20 MB",
            per_request: 50 * MB,
            per_request_text: "50 MB",
            accepted: COMMON,
            heif: false,
        },
    }
}

/// The media type of an image, told from its first bytes; `None` for anything else (a text file
/// named `.png`, an SVG).
pub fn sniff_image(bytes: &[u8]) -> Option<&'static str> {
    let at = |i: usize, sig: &[u8]| bytes.get(i..i + sig.len()) == Some(sig);
    if at(0, b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if at(0, b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else if at(0, b"GIF87a") || at(0, b"GIF89a") {
        Some("image/gif")
    } else if at(0, b"RIFF") && at(8, b"WEBP") {
        Some("image/webp")
    } else if at(4, b"ftyp") {
        // ISO base media: the major brand says HEIC (HEVC-coded) or plain HEIF.
        match bytes.get(8..12)? {
            b"heic" | b"heix" | b"hevc" | b"hevx" | b"heim" | b"heis" => Some("image/heic"),
            b"mif1" | b"msf1" => Some("image/heif"),
            _ => None,
        }
    } else {
        None
    }
}

/// An input's images once checked: what the user message carries and what its event shows.
#[derive(Default)]
pub(super) struct Attached {
    pub parts: Vec<MediaData>,
    pub names: Vec<String>,
}

/// An input's images, read and checked for the model `profile` names. Only the reading is
/// async; the checks are apart (`check`): early returns from a state machine cost the bundle a
/// clean-up of every live value at each one.
pub(super) async fn resolve_images(
    images: Vec<ImageInput>,
    env: &dyn ExecutionEnvironment,
    profile: &dyn ProviderProfile,
) -> Result<Attached, InputError> {
    if !profile.supports_images() {
        return Err(InputError::NoImageSupport { model: profile.model().to_owned() });
    }
    let mut loaded = Vec::with_capacity(images.len());
    for image in images {
        loaded.push(match image {
            ImageInput::Url(url) => Loaded::Url(url),
            ImageInput::Bytes { data, name } => Loaded::Bytes(data, name),
            // A directory or a special file (a FIFO) is an error of the environment, not a hang.
            ImageInput::Path(path) => match env.read_bytes(&path).await {
                Ok(data) => Loaded::Bytes(data, Some(path)),
                Err(reason) => Loaded::Unreadable(path, reason),
            },
        });
    }
    check(loaded, profile.id())
}

/// An image as read: by URL, its bytes with the host's name or path, or why it could not be read.
enum Loaded {
    Url(String),
    Bytes(Vec<u8>, Option<String>),
    Unreadable(String, EnvError),
}

/// The images as message parts, if `provider`'s limits let them through, and the names events
/// show: the host's name or path, else the image's place in the input. The provider is given a
/// path's last part.
fn check(images: Vec<Loaded>, provider: &str) -> Result<Attached, InputError> {
    let limits = limits(provider);
    let mut attached = Attached::default();
    let mut total = 0;
    for (i, image) in images.into_iter().enumerate() {
        let (data, name) = match image {
            Loaded::Url(url) => {
                // A data URL is the image itself: not a name to show.
                attached.names.push(if url.starts_with("data:") { "data URL".into() } else { url.clone() });
                attached.parts.push(MediaData { url: Some(url), ..MediaData::default() });
                continue;
            }
            Loaded::Bytes(data, name) => (data, name),
            Loaded::Unreadable(name, reason) => return Err(InputError::Unreadable { name, reason }),
        };
        let file_name = name.as_deref().map(|name| name.rsplit('/').next().unwrap_or(name).to_owned());
        let name = name.unwrap_or_else(|| format!("image {}", i + 1));
        let size = data.len() as u64;
        if size > limits.per_image {
            return Err(InputError::TooLarge { name, size, provider: provider.to_owned(), limit: limits.per_image_text });
        }
        let media_type = match sniff_image(&data) {
            Some("image/heic" | "image/heif") if !limits.heif => None,
            other => other,
        };
        let Some(media_type) = media_type else {
            return Err(InputError::UnsupportedType { name, accepted: limits.accepted });
        };
        total += size;
        attached.parts.push(MediaData {
            data: Some(data),
            media_type: Some(media_type.into()),
            file_name,
            ..MediaData::default()
        });
        attached.names.push(name);
    }
    if total > limits.per_request {
        let provider = provider.to_owned();
        return Err(InputError::RequestTooLarge { size: total, provider, limit: limits.per_request_text });
    }
    Ok(attached)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn images_are_told_from_their_first_bytes() {
        assert_eq!(sniff_image(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
        assert_eq!(sniff_image(b"\xff\xd8\xff\xe0"), Some("image/jpeg"));
        assert_eq!(sniff_image(b"GIF89a.."), Some("image/gif"));
        assert_eq!(sniff_image(b"RIFF\x10\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff_image(b"\0\0\0\x18ftypheic\0\0\0\0"), Some("image/heic"));
        assert_eq!(sniff_image(b"\0\0\0\x18ftypmif1\0\0\0\0"), Some("image/heif"));
        assert_eq!(sniff_image(b"\0\0\0\x18ftypisom"), None, "an MP4 is not an image");
        assert_eq!(sniff_image(b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>"), None);
        assert_eq!(sniff_image(b"hello"), None);
        assert_eq!(sniff_image(b"\x89PN"), None, "cut short");
    }

    #[test]
    fn each_provider_has_its_documented_limits() {
        assert_eq!(limits("anthropic").per_image, 5 * 1024 * 1024);
        assert_eq!(limits("openai").per_image, 20 * 1024 * 1024);
        assert_eq!(limits("openai").per_request, 50 * 1024 * 1024);
        assert_eq!(limits("gemini").per_request, 20 * 1024 * 1024);
        assert!(limits("gemini").heif && !limits("openai").heif && !limits("anthropic").heif);
    }
}
