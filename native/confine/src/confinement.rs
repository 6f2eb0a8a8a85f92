//! One policy, prepared for a working directory: the Landlock ruleset, the seccomp filters and
//! the mount plan, ready for any number of commands.

use std::path::Path;

use openagent_core::sandbox::{Network, SandboxMode, SandboxPolicy};

use crate::mounts::Mounts;
use crate::support::{check_root, real_dir};
use crate::syscalls::Syscalls;
use crate::writes::Writes;
use crate::{ConfineError, Places};

/// A [`SandboxPolicy`] made ready to confine commands run in one working directory.
///
/// Made in the agent with [`prepare`](Self::prepare); then, for each command, in the command's
/// own namespaces: [`mount`](Self::mount) in the namespace's init, [`restrict`](Self::restrict) in
/// the shell just before exec.
#[derive(Debug)]
pub struct Confinement {
    writes: Writes,
    syscalls: Syscalls,
    mounts: Mounts,
    network_off: bool,
    /// The writable roots as a denial names them.
    roots: String,
}

impl Confinement {
    /// `policy` (`read-only` or `workspace-write`) for commands whose working directory is `cwd`.
    /// Refuses what cannot be enforced: a kernel without Landlock, a network allow-list, a
    /// writable root that does not exist or is a symlink.
    pub fn prepare(policy: &SandboxPolicy, cwd: &Path, places: &Places) -> Result<Self, ConfineError> {
        if let Network::Hosts(hosts) = &policy.network {
            return Err(ConfineError::NotEnforced(format!(
                "the network allow-list ({}) is not enforced yet; give the network `on` or `off`",
                hosts.join(", ")
            )));
        }
        let cwd = real_dir(cwd)?;
        let roots = match policy.mode {
            SandboxMode::ReadOnly => Vec::new(),
            SandboxMode::WorkspaceWrite => {
                let mut roots = vec![cwd.clone(), std::fs::canonicalize(&places.temp_dir).unwrap_or(places.temp_dir.clone())];
                for root in &policy.writable_roots {
                    roots.push(check_root(Path::new(root))?);
                }
                roots
            }
            SandboxMode::FullAccess => {
                return Err(ConfineError::NotEnforced("full-access is not confined; run its commands as they are".into()))
            }
        };
        let network_off = policy.network == Network::Off;
        let writes = Writes::prepare(&roots, network_off)?;
        let syscalls = Syscalls::prepare(network_off)?;
        let mounts = Mounts::plan(&roots, &cwd, places.home.as_deref(), places.data_dir.as_deref());
        let shown: Vec<String> = roots.iter().map(|root| root.display().to_string()).collect();
        let roots = if shown.is_empty() { "none: the sandbox is read-only".into() } else { shown.join(", ") };
        Ok(Self { writes, syscalls, mounts, network_off, roots })
    }

    /// In the command's mount namespace, its mounts made private, before any Landlock domain:
    /// the read-only and hiding mounts.
    ///
    /// # Safety
    /// Async-signal-safe: for between fork and exec, in the command's own mount namespace.
    pub unsafe fn mount(&self) -> std::io::Result<()> {
        self.mounts.apply()
    }

    /// In the shell, last before exec: no_new_privs, Landlock, no capabilities, seccomp.
    ///
    /// # Safety
    /// Async-signal-safe: for between fork and exec.
    pub unsafe fn restrict(&self) -> std::io::Result<()> {
        crate::privileges::no_new_privs()?;
        self.writes.restrict_self()?;
        crate::privileges::drop_capabilities()?;
        // Last: the filters refuse nothing the steps before need, but nothing after them may
        // be refused either, and exec is not.
        self.syscalls.install()
    }

    /// What the confinement refused a command that failed, from its output (see [`crate::denial`]).
    pub fn denial(&self, stdout: &str, stderr: &str) -> Option<String> {
        crate::denial(stdout, stderr, self.network_off, &self.roots)
    }
}
