//! Saved sessions across the boundary. `agent.snapshot()` is the core's `SessionSnapshot`
//! (`openagent.session/1`) with the agent's in-memory files in its `environment` slot, so one
//! JSON value brings back both the conversation and the files; `new Agent({ snapshot })` and
//! `Agent.checkSnapshot` read one back, as that object or as its JSON text.

use std::rc::Rc;

use openagent_core::session::SessionSnapshot;
use openagent_memenv::MemoryEnvironment;
use wasm_bindgen::prelude::*;

use crate::convert::to_json;
use crate::runtime::BrowserRuntime;

/// `agent.snapshot()`'s value: the session with `env`'s files.
pub fn write(session: &openagent_core::Session, env: &MemoryEnvironment) -> SessionSnapshot {
    SessionSnapshot { environment: Some(env.snapshot()), ..session.snapshot() }
}

/// Reads a snapshot given as JSON text or as the object `agent.snapshot()` returned. The message
/// of an error names what is wrong (not JSON, truncated, a newer schema, a damaged field).
pub fn read(value: &JsValue) -> Result<SessionSnapshot, String> {
    let snapshot = match value.as_string() {
        Some(text) => SessionSnapshot::from_json(&text),
        None => SessionSnapshot::from_value(to_json(value, "the session snapshot").map_err(|e| crate::fetch::describe(&e))?),
    };
    snapshot.map_err(|e| format!("{e} (a snapshot is what agent.snapshot() returned, or its JSON text)"))
}

/// Puts the snapshot's files, when it has any, into `env`; an invalid file list changes nothing.
pub fn restore_files(env: &MemoryEnvironment, snapshot: &SessionSnapshot) -> Result<(), String> {
    match &snapshot.environment {
        Some(files) => env.restore(files).map_err(|e| format!("its files (`environment`) cannot be restored: {e}")),
        None => Ok(()),
    }
}

/// Reads `value` as [`read`] does and checks its files on a scratch filesystem.
pub fn check(value: &JsValue) -> Result<(), JsValue> {
    let snapshot = read(value).map_err(|e| crate::convert::error(&e))?;
    let scratch = crate::split::memory_environment(Rc::new(BrowserRuntime));
    restore_files(&scratch, &snapshot).map_err(|e| crate::convert::error(&format!("the session snapshot: {e}")))
}
