//! Saving a [`MemoryEnvironment`] as JSON and loading it back (a browser tab's project survives a
//! reload; a test starts from a fixture).
//!
//! The format is documented on [`MemoryEnvironment::snapshot`].

use serde::Serialize;
use serde_json::{Map, Value};

use super::fs::{resolve, Kind, Stamp, Tree};
use super::{MemoryEnvironment, DEFAULT_WORKING_DIRECTORY, SCRATCH_DIRECTORY};
use openagent_core::env::EnvError;
use openagent_core::llm::{base64, json_text};
use openagent_core::runtime::{EpochMillis, Runtime};
use std::rc::Rc;

const FORMAT: &str = "openagent-memory-environment";
const VERSION: u64 = 1;

// Written with a derived `Serialize`, read by hand ([`Snapshot::read`]): a derived `Deserialize`
// costs the browser bundle several times as much. Public only for the typings.
/// The files as JSON data, in the format [`MemoryEnvironment::snapshot`] describes. When it is
/// read back, only `version` is required.
#[derive(Serialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct Snapshot {
    // Optional in TypeScript where the reader takes a snapshot without them (on a field that is
    // not an `Option`, `optional = nullable` only adds the `?`).
    #[cfg_attr(feature = "typings", ts(optional = nullable, type = "\"openagent-memory-environment\""))]
    format: String,
    #[cfg_attr(feature = "typings", ts(type = "1"))]
    version: u64,
    #[cfg_attr(feature = "typings", ts(optional = nullable))]
    working_directory: String,
    #[cfg_attr(feature = "typings", ts(optional = nullable))]
    files: Vec<FileEntry>,
    #[cfg_attr(feature = "typings", ts(optional = nullable))]
    directories: Vec<String>,
}

/// A file: exactly one of `text` (UTF-8 content) and `base64` (any other content).
#[derive(Serialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS), ts(rename = "SnapshotFile"))]
struct FileEntry {
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typings", ts(optional))]
    text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typings", ts(optional))]
    base64: Option<String>,
    /// Milliseconds since 1970; the time of the restore when left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typings", ts(optional))]
    modified_ms: Option<EpochMillis>,
}

impl Snapshot {
    /// Reads a snapshot whose version is already checked. Unknown fields are refused; `format`
    /// and `working_directory` may be left out, and so may lists that would be empty.
    fn read(value: &Value) -> Result<Self, EnvError> {
        let map = fields(value, &["format", "version", "working_directory", "files", "directories"])?;
        let mut files = Vec::new();
        for entry in list(map, "files")? {
            let entry = fields(entry, &["path", "text", "base64", "modified_ms"])?;
            files.push(FileEntry {
                path: text(entry, "path")?.ok_or_else(|| invalid("missing field `path`"))?,
                text: text(entry, "text")?,
                base64: text(entry, "base64")?,
                modified_ms: time(entry, "modified_ms")?,
            });
        }
        let directories = list(map, "directories")?.iter().map(|dir| string(dir, "directories")).collect::<Result<_, _>>()?;
        Ok(Self {
            format: text(map, "format")?.unwrap_or_else(|| FORMAT.to_owned()),
            version: VERSION,
            working_directory: text(map, "working_directory")?.unwrap_or_else(|| DEFAULT_WORKING_DIRECTORY.to_owned()),
            files,
            directories,
        })
    }
}

/// `value` as an object with no fields but `known`.
fn fields<'a>(value: &'a Value, known: &[&str]) -> Result<&'a Map<String, Value>, EnvError> {
    let map =
        value.as_object().ok_or_else(|| invalid(format!("invalid type: {} is not an object", json_text::to_string(value))))?;
    match map.keys().find(|key| !known.contains(&key.as_str())) {
        Some(key) => Err(invalid(format!("unknown field `{key}`, expected one of {}", known.join(", ")))),
        None => Ok(map),
    }
}

fn list<'a>(map: &'a Map<String, Value>, key: &str) -> Result<&'a [Value], EnvError> {
    match map.get(key) {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(invalid(format!("invalid type: {key} must be an array, not {}", json_text::to_string(other)))),
    }
}

fn text(map: &Map<String, Value>, key: &str) -> Result<Option<String>, EnvError> {
    map.get(key).filter(|value| !value.is_null()).map(|value| string(value, key)).transpose()
}

/// Milliseconds since the epoch; absent or `null` is `None`.
fn time(map: &Map<String, Value>, key: &str) -> Result<Option<u64>, EnvError> {
    let Some(value) = map.get(key).filter(|value| !value.is_null()) else { return Ok(None) };
    let not_a_time = || invalid(format!("invalid type: {key} {} is not a time", json_text::to_string(value)));
    value.as_u64().map(Some).ok_or_else(not_a_time)
}

fn string(value: &Value, what: &str) -> Result<String, EnvError> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| invalid(format!("invalid type: {what} must be a string, not {}", json_text::to_string(value))))
}

fn invalid(reason: impl Into<String>) -> EnvError {
    EnvError::InvalidSnapshot(reason.into())
}

impl MemoryEnvironment {
    /// The whole environment as JSON, in this format (version 1):
    ///
    /// ```json
    /// {
    ///   "format": "openagent-memory-environment",
    ///   "version": 1,
    ///   "working_directory": "/workspace",
    ///   "files": [
    ///     { "path": "/workspace/README.md", "text": "# Hello\n", "modified_ms": 1735689600000 },
    ///     { "path": "/workspace/logo.png", "base64": "iVBORw0KGgo=", "modified_ms": 1735689600000 }
    ///   ],
    ///   "directories": ["/workspace/empty"]
    /// }
    /// ```
    ///
    /// - `files` hold absolute paths and exactly one of `text` (UTF-8 content) or `base64` (any
    ///   other content). They are listed oldest write first, and restoring replays them in that
    ///   order, so files with equal `modified_ms` keep their "newest first" order.
    ///   `modified_ms` may be left out (it is then the time of the restore).
    /// - `directories` lists the directories no file implies (empty ones); directory times are
    ///   not kept.
    /// - `working_directory` may be left out (`/workspace`); it is created if missing, and so is
    ///   `/tmp`.
    /// - `format` may be left out when reading; `version` may not, and only version 1 is read.
    pub fn snapshot(&self) -> Value {
        let tree = self.inner.tree.borrow();
        let mut files: Vec<(Stamp, FileEntry)> = Vec::new();
        let mut directories = Vec::new();
        for (rel, node, _) in tree.walk("/", usize::MAX).unwrap_or_default() {
            let path = format!("/{rel}");
            match &node.kind {
                Kind::Dir(entries) if entries.is_empty() => directories.push(path),
                Kind::Dir(_) => {}
                Kind::File(content) => {
                    let (text, base64) = match content.text() {
                        Some(text) => (Some(text.to_string()), None),
                        None => (None, Some(base64::encode(content.bytes()))),
                    };
                    files.push((node.stamp, FileEntry { path, text, base64, modified_ms: Some(node.stamp.ms) }));
                }
            }
        }
        openagent_core::llm::sort::sort_by(&mut files, |(a, _), (b, _)| a.cmp(b));
        let snapshot = Snapshot {
            format: FORMAT.to_owned(),
            version: VERSION,
            working_directory: self.working_dir(),
            files: files.into_iter().map(|(_, entry)| entry).collect(),
            directories,
        };
        serde_json::to_value(snapshot).unwrap_or(Value::Null)
    }

    /// Replaces the whole content (files, directories, working directory) with a snapshot. A
    /// snapshot that cannot be read is an [`EnvError::InvalidSnapshot`] and changes nothing.
    pub fn restore(&self, snapshot: &Value) -> Result<(), EnvError> {
        let (tree, working_dir) = build(snapshot, self.now())?;
        *self.inner.tree.borrow_mut() = tree;
        *self.working_dir.borrow_mut() = working_dir;
        Ok(())
    }

    /// A new environment holding a snapshot.
    pub fn from_snapshot(runtime: Rc<dyn Runtime>, snapshot: &Value) -> Result<Self, EnvError> {
        let env = Self::new(runtime);
        env.restore(snapshot)?;
        Ok(env)
    }
}

/// Builds the tree a snapshot describes, checking everything before anything is replaced.
fn build(value: &Value, now: EpochMillis) -> Result<(Tree, String), EnvError> {
    match value.get("version").map(Value::as_u64) {
        None => return Err(invalid("it has no \"version\"; expected a snapshot written by MemoryEnvironment::snapshot")),
        Some(Some(VERSION)) => {}
        Some(_) => {
            return Err(invalid(format!(
                "version {} is not supported (this OpenAgent reads version {VERSION})",
                json_text::to_string(&value["version"])
            )))
        }
    }
    let snapshot = Snapshot::read(value)?;
    if snapshot.format != FORMAT {
        return Err(invalid(format!("format \"{}\" is not \"{FORMAT}\"", snapshot.format)));
    }
    let absolute = |path: &str| {
        if !path.starts_with('/') {
            return Err(invalid(format!("path \"{path}\" is not absolute")));
        }
        resolve("/", path).map_err(|err| invalid(err.to_string()))
    };
    let mut tree = Tree::new(now);
    for entry in &snapshot.files {
        let path = absolute(&entry.path)?;
        let bytes = match (&entry.text, &entry.base64) {
            (Some(text), None) => text.clone().into_bytes(),
            (None, Some(coded)) => base64::decode(coded).map_err(|err| invalid(format!("{path}: {err}")))?,
            _ => return Err(invalid(format!("{path}: a file needs exactly one of \"text\" or \"base64\""))),
        };
        if tree.exists(&path) {
            return Err(invalid(format!("{path} appears twice")));
        }
        tree.write(&path, bytes, entry.modified_ms.unwrap_or(now), true).map_err(|err| invalid(err.to_string()))?;
    }
    for dir in &snapshot.directories {
        tree.mkdir(&absolute(dir)?, now, true).map_err(|err| invalid(err.to_string()))?;
    }
    // Best effort: a snapshot that holds a file called /tmp keeps it.
    let _ = tree.mkdir(SCRATCH_DIRECTORY, now, true);
    let working_dir = absolute(&snapshot.working_directory)?;
    tree.mkdir(&working_dir, now, true).map_err(|err| invalid(format!("working directory: {err}")))?;
    Ok((tree, working_dir))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::super::test_env;
    use super::*;
    use futures::executor::block_on;
    use openagent_core::env::ExecutionEnvironment;

    #[test]
    fn round_trips_text_binary_times_and_empty_directories() {
        let env = test_env();
        env.write_bytes("b.txt", b"second\n").unwrap();
        env.write_bytes("a.txt", b"first\n").unwrap();
        env.write_bytes("img/logo.png", &[0x89, b'P', b'N', b'G', 0, 1, 0xff]).unwrap();
        env.mkdir_p("/data/empty").unwrap();
        let snapshot = env.snapshot();
        assert_eq!(snapshot["version"], 1);
        assert_eq!(snapshot["files"][0]["path"], "/workspace/b.txt");
        assert_eq!(snapshot["files"][2]["base64"], "iVBORwAB/w==");
        assert_eq!(snapshot["directories"], json!(["/data/empty", "/tmp"]));

        let copy = MemoryEnvironment::from_snapshot(env.runtime(), &snapshot).unwrap();
        assert_eq!(copy.snapshot(), snapshot);
        assert_eq!(copy.read_bytes_sync("img/logo.png").unwrap(), env.read_bytes_sync("img/logo.png").unwrap());
        assert_eq!(block_on(copy.glob("*.txt", ".")).unwrap(), ["a.txt", "b.txt"]);
        assert!(block_on(copy.stat("/data/empty")).unwrap().is_dir);
    }

    #[test]
    fn restores_working_directory_and_hand_written_snapshots() {
        let env = test_env();
        env.write_bytes("old.txt", b"gone").unwrap();
        env.restore(&json!({
            "version": 1,
            "working_directory": "/project",
            "files": [{ "path": "/project/src/a.rs", "text": "fn a() {}\n" }]
        }))
        .unwrap();
        assert_eq!(env.working_directory(), "/project");
        assert_eq!(env.list_all_files(), ["/project/src/a.rs"]);
        assert_eq!(block_on(env.read_file("src/a.rs", None, None)).unwrap(), "fn a() {}\n");
    }

    #[test]
    fn bad_snapshots_are_refused_and_change_nothing() {
        let env = test_env();
        env.write_bytes("keep.txt", b"kept").unwrap();
        let before = env.snapshot();
        let file = |entry: Value| json!({ "version": 1, "files": [entry] });
        for (bad, says) in [
            (json!({ "files": [] }), "no \"version\""),
            (json!({ "version": 2 }), "version 2 is not supported"),
            (json!({ "version": 1, "format": "tarball" }), "is not \"openagent-memory-environment\""),
            (json!({ "version": 1, "files": "nope" }), "invalid type"),
            (json!({ "version": 1, "extra": true }), "unknown field"),
            (file(json!({ "path": "rel.txt", "text": "" })), "not absolute"),
            (file(json!({ "path": "/../x", "text": "" })), "escapes the environment root"),
            (file(json!({ "path": "/x" })), "exactly one of"),
            (file(json!({ "path": "/x", "text": "a", "base64": "YQ==" })), "exactly one of"),
            (file(json!({ "path": "/x", "base64": "!!" })), "invalid base64"),
            (file(json!({ "path": "/x", "text": "", "modified_ms": "yesterday" })), "modified_ms \"yesterday\" is not a time"),
            (file(json!({ "path": "/x", "text": "", "modified_ms": -1 })), "modified_ms -1 is not a time"),
            (json!({ "version": 1, "files": [{ "path": "/a", "text": "" }, { "path": "/a/b", "text": "" }] }), "not a directory"),
            (json!({ "version": 1, "files": [{ "path": "/a", "text": "" }, { "path": "/a", "text": "" }] }), "appears twice"),
            (json!({ "version": 1, "files": [{ "path": "/a", "text": "" }], "working_directory": "/a" }), "working directory"),
        ] {
            let err = env.restore(&bad).unwrap_err();
            assert!(matches!(err, EnvError::InvalidSnapshot(_)), "{bad}: {err}");
            assert!(err.to_string().contains(says), "{bad}: {err}");
            assert_eq!(env.snapshot(), before);
        }
    }
}
