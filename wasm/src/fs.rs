//! `MemoryFs`: the agent's in-memory filesystem, from JS. It shares its files with the agent,
//! so a page can seed a project, watch what the agent writes and save it all.

use std::rc::Rc;

use openagent_core::env::EnvError;
use openagent_core::llm::json_text;
use openagent_memenv::{Confinement, MemoryEnvironment};
use wasm_bindgen::prelude::*;

use crate::convert::{error, to_js, to_json};

/// The files an agent works on. Paths are absolute or relative to the working directory.
#[wasm_bindgen]
pub struct MemoryFs {
    env: MemoryEnvironment,
    /// A shell command's sandbox, for the `fs` a JS command is given: its writes are checked.
    confinement: Option<Rc<Confinement>>,
}

impl MemoryFs {
    pub fn from_env(env: MemoryEnvironment) -> Self {
        Self { env, confinement: None }
    }

    /// The files as a JS command running in `confinement` may change them.
    pub fn confined(env: MemoryEnvironment, confinement: Option<Rc<Confinement>>) -> Self {
        Self { env, confinement }
    }

    /// Whether `path` may be written; refused, the error says it as a shell would (`a.txt: Read-only file system`).
    fn check(&self, path: &str) -> Result<(), JsValue> {
        let Some(confinement) = &self.confinement else { return Ok(()) };
        confinement.check_write(&self.env, path).map_err(|err| match err {
            EnvError::PermissionDenied(why) => error(&[path, ": ", &why].concat()),
            other => fail(other),
        })
    }
}

fn fail(err: impl std::fmt::Display) -> JsValue {
    error(&err.to_string())
}

impl Default for MemoryFs {
    fn default() -> Self {
        Self::new()
    }
}

#[wasm_bindgen]
impl MemoryFs {
    /// An empty filesystem (`/workspace`, `/tmp`) of its own, to prepare files for an agent
    /// (`new Agent({ files: fs.snapshot() })`).
    #[wasm_bindgen(constructor)]
    pub fn new() -> MemoryFs {
        Self::from_env(crate::split::memory_environment(std::rc::Rc::new(crate::runtime::BrowserRuntime)))
    }

    /// Writes a file whole (text as UTF-8), creating its directories.
    pub fn write(
        &self,
        path: &str,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] content: JsValue,
    ) -> Result<(), JsValue> {
        let bytes = match content.as_string() {
            Some(text) => text.into_bytes(),
            None if content.is_instance_of::<js_sys::Uint8Array>() => js_sys::Uint8Array::new(&content).to_vec(),
            None => {
                return Err(error(&format!("write({}): the content must be a string or a Uint8Array", json_text::quote(path))))
            }
        };
        self.check(path)?;
        self.env.write_bytes(path, &bytes).map_err(fail)
    }

    /// A file's bytes.
    pub fn read(&self, path: &str) -> Result<Vec<u8>, JsValue> {
        self.env.read_bytes_sync(path).map_err(fail)
    }

    /// A file as text; fails for content that is not UTF-8.
    #[wasm_bindgen(js_name = readText)]
    pub fn read_text(&self, path: &str) -> Result<String, JsValue> {
        String::from_utf8(self.read(path)?).map_err(|_| error(&format!("{path} is not UTF-8 text; read() gives its bytes")))
    }

    /// The absolute path of every file, sorted.
    pub fn list(&self) -> Vec<String> {
        self.env.list_all_files()
    }

    /// The absolute path of every directory but the root, sorted: the empty ones too, which no
    /// file's path names.
    #[wasm_bindgen(js_name = listDirectories)]
    pub fn list_directories(&self) -> Vec<String> {
        self.env.list_all_dirs()
    }

    /// Removes a file, or a directory (a non-empty one only when `recursive`).
    pub fn remove(&self, path: &str, recursive: Option<bool>) -> Result<(), JsValue> {
        self.check(path)?;
        self.env.remove(path, recursive.unwrap_or(false)).map_err(fail)
    }

    /// Creates a directory and its parents.
    pub fn mkdir(&self, path: &str) -> Result<(), JsValue> {
        self.check(path)?;
        self.env.mkdir_p(path).map_err(fail)
    }

    /// Everything, as JSON data that `restore` (or the `files` option) takes back.
    #[wasm_bindgen(unchecked_return_type = "Snapshot")]
    pub fn snapshot(&self) -> Result<JsValue, JsValue> {
        to_js(&self.env.snapshot())
    }

    /// Replaces every file with a snapshot's; an invalid snapshot changes nothing.
    pub fn restore(&self, #[wasm_bindgen(unchecked_param_type = "Snapshot")] snapshot: JsValue) -> Result<(), JsValue> {
        // Every file is replaced: the root's to write.
        self.check("/")?;
        self.env.restore(&to_json(&snapshot, "the snapshot")?).map_err(fail)
    }

    #[wasm_bindgen(getter, js_name = workingDirectory)]
    pub fn working_directory(&self) -> String {
        use openagent_core::ExecutionEnvironment;
        self.env.working_directory()
    }
}
