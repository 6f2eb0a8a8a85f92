//! One policy, prepared for a working directory: the Landlock ruleset and the seccomp filters,
//! ready for any number of commands, and for each command the mounts of what exists as it starts
//! (a `.git/config` made by an earlier command is protected from the next one on).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use openagent_core::sandbox::{Network, SandboxMode, SandboxPolicy};

use crate::mounts::Mounts;
use crate::proxy::Proxy;
use crate::support::{check_root, real_dir};
use crate::syscalls::Syscalls;
use crate::writes::Writes;
use crate::{ConfineError, Net, Places};

/// A [`SandboxPolicy`] made ready to confine commands run in one working directory.
///
/// Made in the agent with [`prepare`](Self::prepare), and for each command, still in the agent,
/// made a [`Confined`] with [`command`](Self::command).
#[derive(Debug)]
pub struct Confinement {
    writes: Writes,
    syscalls: Syscalls,
    network: Network,
    /// The allow-list's proxy, with `Network::Hosts`; it stops with the confinement.
    proxy: Option<Proxy>,
    roots: Vec<PathBuf>,
    cwd: PathBuf,
    places: Places,
    /// The writable roots as a denial names them.
    shown: String,
}

/// One command's confinement: the shared ruleset and filters, and the mounts of this moment.
/// In the command's own namespaces: [`mount`](Self::mount) in the namespace's init,
/// [`restrict`](Self::restrict) in the shell just before exec.
#[derive(Debug)]
pub struct Confined {
    shared: Arc<Confinement>,
    mounts: Mounts,
}

impl Confinement {
    /// `policy` (`read-only` or `workspace-write`) for commands whose working directory is `cwd`.
    /// Refuses what cannot be enforced: a kernel without Landlock (or, for a network allow-list,
    /// without Landlock's network rules), a writable root that does not exist or is a symlink.
    /// A network allow-list starts its proxy here.
    pub fn prepare(policy: &SandboxPolicy, cwd: &Path, places: &Places) -> Result<Self, ConfineError> {
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
        let proxy = match &policy.network {
            Network::Hosts(hosts) => Some(start_proxy(hosts)?),
            _ => None,
        };
        let net = match (&policy.network, &proxy) {
            (Network::Off, _) => Net::Off,
            (_, Some(proxy)) => Net::Proxy(proxy.port()),
            _ => Net::On,
        };
        let writes = Writes::prepare(&roots, net)?;
        let syscalls = Syscalls::prepare(net)?;
        let shown: Vec<String> = roots.iter().map(|root| root.display().to_string()).collect();
        let shown = if shown.is_empty() { "none: the sandbox is read-only".into() } else { shown.join(", ") };
        Ok(Self { writes, syscalls, network: policy.network.clone(), proxy, roots, cwd, places: places.clone(), shown })
    }

    /// The confinement of a command about to start: the mounts of what is there now.
    pub fn command(self: &Arc<Self>) -> Confined {
        let places = &self.places;
        let mounts = Mounts::plan(&self.roots, &self.cwd, places.home.as_deref(), places.data_dir.as_deref());
        Confined { shared: self.clone(), mounts }
    }

    /// What the confinement refused a command that failed, from its output (see [`crate::denial`]).
    pub fn denial(&self, stdout: &str, stderr: &str) -> Option<String> {
        crate::denial(stdout, stderr, &self.network, &self.shown)
    }
}

/// The allow-list's proxy, where Landlock can hold commands to it (its network rules, ABI 4).
fn start_proxy(hosts: &[String]) -> Result<Proxy, ConfineError> {
    if crate::support::landlock_abi() < 4 {
        return Err(ConfineError::NotEnforced(
            "this kernel has no Landlock network rules (Linux 6.7 or later), which a network allow-list needs to hold \
             commands to its proxy; give the network `on` or `off`, or run with `--sandbox full-access`"
                .into(),
        ));
    }
    Proxy::start(hosts)
}

impl Confined {
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
        self.shared.writes.restrict_self()?;
        crate::privileges::drop_capabilities()?;
        // Last: the filters refuse nothing the steps before need, but nothing after them may
        // be refused either, and exec is not.
        self.shared.syscalls.install()
    }

    /// The variables the command gets beside its own: the allow-list's proxy, if there is one.
    pub fn vars(&self) -> Vec<(String, String)> {
        self.shared.proxy.as_ref().map(Proxy::vars).unwrap_or_default()
    }

    /// What the confinement refused this command, when it failed, from its output.
    pub fn denial(&self, stdout: &str, stderr: &str) -> Option<String> {
        self.shared.denial(stdout, stderr)
    }
}
