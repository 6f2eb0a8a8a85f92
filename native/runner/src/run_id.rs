//! Run ids (`r_20261122T054859Z_3fa9c1`, or `OPENAGENT_RUN_ID`'s) and the runtime whose clock
//! names them.

use std::path::Path;

use openagent_core::runtime::format_rfc3339;
use openagent_host::runtime::NativeRuntime;
use openagent_store::Store;

use crate::error::RunError;
use crate::resume::Resumed;

/// The native runtime, its clock pinned when `OPENAGENT_PIN_CLOCK` (milliseconds since the
/// epoch) asks for reproducible output.
pub fn pinned_runtime() -> NativeRuntime {
    match std::env::var("OPENAGENT_PIN_CLOCK").ok().and_then(|v| v.parse().ok()) {
        Some(at) => NativeRuntime::new().with_pinned_clock(at),
        None => NativeRuntime::new(),
    }
}

/// `OPENAGENT_RUN_ID`, when set and not empty (an unfilled CI variable counts as unset: an
/// empty run id means "never started"). It names a directory, so only letters, digits, `-`, `_`
/// and `.` (not leading) are allowed.
pub fn fixed_run_id() -> Result<Option<String>, RunError> {
    let Some(id) = std::env::var("OPENAGENT_RUN_ID").ok().filter(|id| !id.is_empty()) else { return Ok(None) };
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if id.chars().all(allowed) && !id.starts_with('.') {
        Ok(Some(id))
    } else {
        Err(RunError::BadRunId(id))
    }
}

/// Refuses a fixed run `id` that an earlier run has in `data_dir`, in the store or as artifacts:
/// the run would record its answer over that one's. A run that resumes the session of that id
/// is its next input, and may keep it. A store that cannot be read refuses nothing here: the run
/// goes on without it, as ever, and says so.
pub fn untaken(id: &str, data_dir: &Path, resumed: Option<&Resumed>) -> Result<(), RunError> {
    if resumed.is_some_and(|resumed| resumed.id() == id) {
        return Ok(());
    }
    let database = data_dir.join(openagent_store::DATABASE);
    let stored = database.is_file() && Store::open(data_dir).is_ok_and(|store| store.session(id).is_ok());
    if !stored && !data_dir.join("runs").join(id).exists() {
        return Ok(());
    }
    Err(RunError::RunIdTaken { id: id.to_owned(), data_dir: data_dir.to_owned() })
}

/// `r_20261122T054859Z_3fa9c1`: sortable by start time, its suffix random.
pub fn new_run_id(now_ms: u64) -> String {
    let stamp: String = format_rfc3339(now_ms)[..19].chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    // Six hex digits of the core's random id: two runs started in the same second still differ.
    format!("r_{stamp}Z_{}", &openagent_core::id::random_uuid()[..6])
}
