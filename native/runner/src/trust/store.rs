//! The trust store: `<data dir>/trust.json`, each trusted file's path with the SHA-256 of the
//! content it was trusted with. It lives in the user's data directory, never in the project, so
//! nothing the model can write makes a file trusted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::TrustError;
pub use crate::config_file::sha256;
use crate::config_file::MAX_CONFIG_BYTES;
use openagent_host::regular_file;

/// The store's file in the data directory.
pub const TRUST_FILE: &str = "trust.json";

/// What the store's file holds.
const SCHEMA: &str = "openagent.trust/1";

/// One trusted file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub sha256: String,
    /// When it was trusted (RFC 3339 UTC), for `openagent trust list`.
    pub trusted_at: String,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct StoreFile {
    schema: String,
    files: BTreeMap<PathBuf, Entry>,
}

/// The trusted files of one data directory.
#[derive(Debug)]
pub struct TrustStore {
    file: PathBuf,
    pub files: BTreeMap<PathBuf, Entry>,
}

impl TrustStore {
    /// The store of `data_dir`; empty when it has none yet. The error names the file.
    pub fn open(data_dir: &Path) -> Result<Self, TrustError> {
        let file = data_dir.join(TRUST_FILE);
        let files = match std::fs::read_to_string(&file) {
            Ok(text) => {
                let store: StoreFile = serde_json::from_str(&text).map_err(|e| broken(&file, &e.to_string()))?;
                if store.schema != SCHEMA {
                    return Err(broken(&file, &format!("its schema is `{}`, this openagent reads `{SCHEMA}`", store.schema)));
                }
                store.files
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(broken(&file, &e.to_string())),
        };
        Ok(Self { file, files })
    }

    /// Writes the store whole, through a file beside it renamed over it, so a reader never sees
    /// half of it.
    pub fn save(&self) -> Result<(), TrustError> {
        let cannot = |error: std::io::Error| TrustError::StoreUnwritable { file: self.file.clone(), error };
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir).map_err(cannot)?;
        }
        let store = StoreFile { schema: SCHEMA.into(), files: self.files.clone() };
        let text = serde_json::to_string_pretty(&store).map_err(|e| cannot(std::io::Error::other(e)))?;
        let partial = self.file.with_extension(format!("json.{}", std::process::id()));
        std::fs::write(&partial, text + "\n").map_err(cannot)?;
        std::fs::rename(&partial, &self.file).map_err(cannot)
    }

    /// Whether `file` (a [`key`]) is trusted with the content whose hash is `sha256`.
    pub fn status(&self, file: &Path, sha256: Option<&str>) -> Status {
        match (self.files.get(file), sha256) {
            (None, _) => Status::New,
            (Some(entry), Some(hash)) if entry.sha256 == hash => Status::Trusted,
            (Some(_), _) => Status::Changed,
        }
    }
}

fn broken(file: &Path, problem: &str) -> TrustError {
    TrustError::StoreUnreadable { file: file.to_owned(), problem: problem.to_owned() }
}

/// What the store says of a file as it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Trusted,
    /// Trusted once, with other content (or it cannot be read now).
    Changed,
    /// Never trusted.
    New,
}

/// The store's key for `name` (relative, `.openagent/hooks.json`) in the canonical directory
/// `cwd`: the directory is canonical and the name is kept as written, so a symlink in the project
/// (`.openagent -> ../other/.openagent`) cannot borrow the trust of another directory's file.
pub fn key(cwd: &Path, name: &Path) -> PathBuf {
    cwd.join(name)
}

/// The content at `path` (following symlinks, as the loaders do); `None` when it is not a
/// regular file the config readers would read (the same reader, the same cap), so a FIFO put
/// there is refused rather than waited on.
pub fn read_content(path: &Path) -> Option<Vec<u8>> {
    regular_file::read_capped(path, MAX_CONFIG_BYTES).ok()
}

/// The hash of what is at `path` now, `None` when [`read_content`] cannot read it.
pub fn content_hash(path: &Path) -> Option<String> {
    read_content(path).map(|content| sha256(&content))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_keeps_each_files_hash_and_a_changed_file_is_not_trusted() {
        let dir = std::env::temp_dir().join(format!("openagent-trust-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("hooks.json");
        std::fs::write(&file, "{}").unwrap();
        let hash = content_hash(&file).unwrap();
        assert_eq!(hash, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
        let mut store = TrustStore::open(&dir.join("data")).unwrap();
        assert_eq!(store.status(&file, Some(&hash)), Status::New);
        store.files.insert(file.clone(), Entry { sha256: hash.clone(), trusted_at: "2026-01-01T00:00:00.000Z".into() });
        store.save().unwrap();
        let store = TrustStore::open(&dir.join("data")).unwrap();
        assert_eq!(store.status(&file, Some(&hash)), Status::Trusted);
        std::fs::write(&file, "{ }").unwrap();
        assert_eq!(store.status(&file, content_hash(&file).as_deref()), Status::Changed);
        std::fs::write(dir.join("data").join(TRUST_FILE), "[]").unwrap();
        let error = TrustStore::open(&dir.join("data")).unwrap_err().to_string();
        assert!(error.contains("trust.json cannot be read") && error.contains("fix or remove it"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn what_is_not_a_regular_file_has_no_hash() {
        assert_eq!(content_hash(Path::new("/dev/zero")), None);
        assert_eq!(content_hash(Path::new("/nonexistent/hooks.json")), None);
    }
}
