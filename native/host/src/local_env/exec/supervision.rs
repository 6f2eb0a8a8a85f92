//! How a command's processes are held to it: a PID namespace per command where the kernel
//! allows it, the /proc scan where it does not or where the user asks for it.

/// How a command's processes are held to the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Supervision {
    /// A PID namespace per command (Linux): what the command starts ends with it, by construction.
    Namespace,
    /// The command's session, group and descendants, and orphans by the marker they inherit,
    /// found by scanning /proc: where namespaces cannot be made.
    Scan,
}

/// The variable that chooses the scan over namespaces: `OPENAGENT_SUPERVISION=scan`, for a
/// command that must see the host's pids or gain privileges (`sudo`), which a user namespace
/// does not allow. It holds for full access only: a confined command always has its namespaces.
const SUPERVISION_VAR: &str = "OPENAGENT_SUPERVISION";

impl Supervision {
    /// What this machine allows, unless [`SUPERVISION_VAR`] asks for the scan: on Linux, probed
    /// once per process by making a command's namespaces in a forked child.
    pub fn detect() -> Self {
        static DETECTED: std::sync::OnceLock<Supervision> = std::sync::OnceLock::new();
        *DETECTED.get_or_init(|| {
            match std::env::var(SUPERVISION_VAR).as_deref() {
                Ok("scan") => return Self::Scan,
                Ok("" | "auto") | Err(_) => {}
                Ok(other) => eprintln!("openagent: {SUPERVISION_VAR}={other:?} is not `scan` or `auto`; using auto"),
            }
            if namespaces_available() {
                return Self::Namespace;
            }
            Self::Scan
        })
    }
}

/// Whether this machine lets a command have PID and mount namespaces of its own: on Linux,
/// probed once per process by making a command's namespaces in a forked child, whatever
/// [`SUPERVISION_VAR`] says (confined commands need them).
pub(crate) fn namespaces_available() -> bool {
    static PROBED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    #[cfg(target_os = "linux")]
    return *PROBED.get_or_init(super::namespace::probe);
    #[cfg(not(target_os = "linux"))]
    return *PROBED.get_or_init(|| false);
}
