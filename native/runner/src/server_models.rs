//! What an OpenAI-compatible server lists at `GET /models` (its models and the windows it serves
//! them with), kept per base URL in `<data dir>/server-models.json`, so that a run does not wait
//! for a round trip to the server before its first model call. A run that finds its server here
//! uses what was kept and asks the server again beside its work, keeping the fresh answer for the
//! next run: a server restarted with another model or window is seen one run late, never missed.
//! A server not kept yet (or a model it did not list) is asked before the run goes on, as without
//! the file.
//!
//! The file is a cache: one that cannot be read or parsed is ignored (and replaced at the next
//! answer); writing it goes through a temporary file and a rename, so a run killed while it writes
//! leaves the old one whole.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use openagent_core::setup::ServerModel;
use serde::{Deserialize, Serialize};

/// The file's name in the data directory.
pub const FILE: &str = "server-models.json";

/// The kept listings, read from and written to one file.
#[derive(Debug, Clone)]
pub struct ServerModels {
    path: PathBuf,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Kept {
    /// By base URL, without the credentials it may carry.
    servers: BTreeMap<String, Vec<Listed>>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Listed {
    id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    context_window: Option<u64>,
}

impl ServerModels {
    /// The listings kept in `data_dir`.
    pub fn in_dir(data_dir: &Path) -> Self {
        Self { path: data_dir.join(FILE) }
    }

    /// What the server at `base_url` listed when it was last asked; `None` when it never was here
    /// (or the file is unreadable).
    pub fn get(&self, base_url: &str) -> Option<Vec<ServerModel>> {
        let listed = self.read().servers.remove(&key(base_url))?;
        Some(listed.into_iter().map(|m| ServerModel { id: m.id, context_window: m.context_window }).collect())
    }

    /// Keeps what the server at `base_url` listed, over what it listed before. A file that cannot
    /// be written leaves the next run to ask again.
    pub fn put(&self, base_url: &str, models: &[ServerModel]) {
        let mut kept = self.read();
        let listed = models.iter().map(|m| Listed { id: m.id.clone(), context_window: m.context_window }).collect();
        kept.servers.insert(key(base_url), listed);
        let Ok(json) = serde_json::to_vec_pretty(&kept) else { return };
        let temporary = self.path.with_extension(format!("json.{}.tmp", std::process::id()));
        if std::fs::write(&temporary, json).is_err() || std::fs::rename(&temporary, &self.path).is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
    }

    fn read(&self) -> Kept {
        std::fs::read(&self.path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()).unwrap_or_default()
    }
}

/// `base_url` without a `user:password@` before its host: the file keeps no secret, and a key
/// changed in the URL is still the same server.
fn key(base_url: &str) -> String {
    let Some((scheme, rest)) = base_url.split_once("://") else { return base_url.to_owned() };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://{}", &rest[at + 1..]),
        None => base_url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use openagent_tests::processes::TempDir;

    fn model(id: &str, window: Option<u64>) -> ServerModel {
        ServerModel { id: id.into(), context_window: window }
    }

    #[test]
    fn a_listing_is_kept_per_server_without_its_password() {
        let dir = TempDir::new();
        let kept = ServerModels::in_dir(dir.0.as_path());
        assert_eq!(kept.get("http://127.0.0.1:8080/v1"), None, "nothing kept yet");
        kept.put("http://user:secret@127.0.0.1:8080/v1", &[model("a", Some(4096)), model("b", None)]);
        kept.put("http://127.0.0.1:9090/v1", &[model("c", Some(8192))]);
        assert_eq!(kept.get("http://127.0.0.1:8080/v1"), Some(vec![model("a", Some(4096)), model("b", None)]));
        assert_eq!(kept.get("http://other:pass@127.0.0.1:8080/v1").map(|m| m.len()), Some(2), "the same server");
        assert_eq!(key("https://u:p@host:1/v1?x=a@b"), "https://host:1/v1?x=a@b", "an @ after the host is the path's");
        assert_eq!(kept.get("http://127.0.0.1:9090/v1"), Some(vec![model("c", Some(8192))]));
        let file = std::fs::read_to_string(dir.0.as_path().join(FILE)).unwrap();
        assert!(!file.contains("secret"), "{file}");
        kept.put("http://127.0.0.1:9090/v1", &[model("d", None)]);
        assert_eq!(kept.get("http://127.0.0.1:9090/v1"), Some(vec![model("d", None)]), "a new answer replaces the old");
    }

    #[test]
    fn a_file_that_cannot_be_read_is_ignored_and_replaced() {
        let dir = TempDir::new();
        let kept = ServerModels::in_dir(dir.0.as_path());
        for junk in ["", "{", "[1, 2]", "{\"servers\": {\"http://x/v1\": [{\"id\": 3}]}}", "\u{0}\u{1}"] {
            std::fs::write(dir.0.as_path().join(FILE), junk).unwrap();
            assert_eq!(kept.get("http://x/v1"), None, "{junk:?}");
        }
        kept.put("http://x/v1", &[model("a", None)]);
        assert_eq!(kept.get("http://x/v1"), Some(vec![model("a", None)]));
        let left: Vec<_> = std::fs::read_dir(dir.0.as_path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from(FILE)], "no temporary file is left");
    }

    #[test]
    fn a_directory_that_cannot_be_written_leaves_nothing_kept() {
        let dir = TempDir::new();
        let kept = ServerModels::in_dir(&dir.0.as_path().join("missing"));
        kept.put("http://x/v1", &[model("a", None)]);
        assert_eq!(kept.get("http://x/v1"), None);
    }
}
