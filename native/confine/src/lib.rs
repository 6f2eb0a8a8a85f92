//! openagent-confine: holds every process of a command the model starts to the session's
//! [`SandboxPolicy`](openagent_core::sandbox::SandboxPolicy), with the Linux kernel's own means.
//! The host runs each command in PID and mount namespaces of its own (openagent-host's
//! `namespace`); this crate adds what the command may do there:
//!
//! - **Writes** ([`writes`], Landlock): only under the writable roots (the working directory, the
//!   temporary directory and the policy's `writable_roots`) and to the device nodes commands need
//!   (`/dev/null`, `/dev/tty`, `/dev/pts`, ...); in `read-only`, only to those devices. Only the
//!   write-ish rights are handled, so reads stay allowed everywhere. Signals to processes outside
//!   the command are refused too (Landlock's signal scope), and with the network off TCP binds and
//!   connects (Landlock's network rights, beside seccomp's socket rule).
//! - **Mounts** ([`mounts`], in the command's own mount namespace, before Landlock, which forbids
//!   changing them): the [`PROTECTED`](openagent_core::sandbox::PROTECTED) paths inside each root
//!   (git's config and hooks, the agent's configuration, shell start-up files) bound read-only
//!   over themselves, and the [`READ_DENIED`](openagent_core::sandbox::READ_DENIED) keys and
//!   credentials under the home, with the agent's own data directory, hidden under an empty
//!   read-only tmpfs (or `/dev/null`, for a file).
//! - **System calls** ([`syscalls`], seccomp): what would leave the namespaces or reach another
//!   process (`ptrace`, `process_vm_*`, `unshare`, `setns`, `mount`, `clone` with namespace flags,
//!   `bpf`, `perf_event_open`, the key ring) fails with EPERM, `clone3` with ENOSYS (its flags are
//!   out of seccomp's reach; the C library falls back to `clone`), and with the network off every
//!   socket but a Unix one, and `io_uring_setup` (io_uring can make sockets).
//! - **Privileges** ([`privileges`]): no_new_privs, and no capabilities at all, for root too: the
//!   bounding set dropped, ambient and inheritable cleared, so nothing the command execs has any.
//!
//! Everything that allocates or may fail for a reason worth a sentence happens in the agent:
//! [`Confinement::prepare`] once per policy and working directory, [`Confinement::command`] (the
//! mounts of what exists now) per command; the child (between fork and exec, in a copy of a
//! multithreaded process) only makes system calls on what was prepared. The Landlock ruleset is a
//! descriptor that every command's shell restricts itself with, so it is built once.
//! [`support`] says what this machine lacks, with the test seam that pretends something is missing.
//!
//! - **The network allow-list** ([`proxy`]): with `Network::Hosts`, a local HTTP proxy that lets
//!   through only the listed hosts, the command's clients pointed at it, and the rules above
//!   narrowed to it (TCP connects to its port only, stream sockets only).
//!
//! What it does not do: confine `full-access` (the user's own rights). A protected path that does
//! not exist when the command starts can be created by it, and a protected directory's parent can
//! be renamed: the mounts protect what is there, for the command's life. On an x86_64 kernel built
//! with the x32 ABI, x32 system call numbers pass the seccomp filter (Landlock and the dropped
//! capabilities still hold).

#[cfg(target_os = "linux")]
mod confinement;
mod denial;
#[cfg(target_os = "linux")]
pub mod mounts;
#[cfg(target_os = "linux")]
pub mod privileges;
#[cfg(target_os = "linux")]
pub mod proxy;
pub mod support;
#[cfg(target_os = "linux")]
pub mod syscalls;
#[cfg(target_os = "linux")]
pub mod writes;

use std::path::PathBuf;

#[cfg(target_os = "linux")]
pub use confinement::{Confined, Confinement};
pub use denial::denial;
pub use support::{check_root, check_support, PRETEND_MISSING};

/// Why a command cannot be confined, each with what to do next.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    /// The kernel lacks what the sandbox needs; the list names each missing part.
    #[error("this machine cannot enforce the sandbox: it has {missing}; run with `--sandbox full-access` to run commands with your own rights instead")]
    Unsupported { missing: String },
    /// The policy asks for what is not enforced yet.
    #[error("{0}")]
    NotEnforced(String),
    /// A writable root (or the working directory) is not a real directory.
    #[error("the writable root {path} {reason}; give an existing directory that is not a symlink")]
    BadRoot { path: String, reason: String },
    /// Building the Landlock ruleset or the seccomp filter failed.
    #[error("could not prepare the sandbox: {0}; run with `--sandbox full-access` to run commands unconfined")]
    Prepare(String),
}

/// What the network rules of a confinement allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) enum Net {
    /// Unix sockets only.
    Off,
    /// TCP to the allow-list's proxy on this port of the loopback only.
    Proxy(u16),
    On,
}

/// The places a policy's paths are computed from: the agent's, unless a test or a host says
/// otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Places {
    /// The home whose keys ([`READ_DENIED`](openagent_core::sandbox::READ_DENIED)) commands may not read.
    pub home: Option<PathBuf>,
    /// The agent's data directory (sessions, secrets), hidden from commands.
    pub data_dir: Option<PathBuf>,
    /// The temporary directory, a writable root in `workspace-write`.
    pub temp_dir: PathBuf,
}

impl Places {
    /// This process's: `$HOME`; `$OPENAGENT_DATA_DIR`, else `$XDG_DATA_HOME/openagent`, else
    /// `~/.local/share/openagent`; `$TMPDIR` or `/tmp`.
    pub fn of_this_process() -> Self {
        Self::with_home(std::env::var_os("HOME").filter(|home| !home.is_empty()).map(PathBuf::from))
    }

    /// This process's places, but with `home` as the home (and the data directory under it
    /// unless a variable names it).
    pub fn with_home(home: Option<PathBuf>) -> Self {
        let var = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty()).map(PathBuf::from);
        let data_dir = var("OPENAGENT_DATA_DIR")
            .or_else(|| var("XDG_DATA_HOME").map(|data| data.join("openagent")))
            .or_else(|| home.as_ref().map(|home| home.join(".local/share/openagent")));
        Self { home, data_dir, temp_dir: std::env::temp_dir() }
    }
}
