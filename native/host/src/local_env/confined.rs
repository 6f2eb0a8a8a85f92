//! The sandbox policy, enforced for commands: a confining policy (`read-only`, `workspace-write`)
//! prepared once per policy and environment with openagent-confine, and handed to each command's
//! namespaces. Confinement needs a command's own namespaces: where they cannot be made, a
//! confined command fails with what is missing, and never runs unconfined. `full-access` (and a
//! command with no policy, the host's own) runs as before.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use openagent_core::env::EnvError;
use openagent_core::sandbox::SandboxPolicy;

#[cfg(target_os = "linux")]
pub(crate) use openagent_confine::Confinement;

/// Where no kernel can confine: a confined command is refused before this is ever made.
#[cfg(not(target_os = "linux"))]
#[derive(Debug)]
pub(crate) struct Confinement;

/// The last policy an environment prepared, and what it made of it: sessions keep one policy, so
/// one entry serves every command (the Landlock ruleset is a descriptor each command reuses).
#[derive(Debug, Clone, Default)]
pub(crate) struct Prepared {
    last: Arc<Mutex<Option<(SandboxPolicy, Arc<Confinement>)>>>,
}

impl Prepared {
    /// `policy` prepared for commands of an environment on `cwd`, from the cache when it was the
    /// last one asked for. The error says what is missing and what to give instead.
    pub(crate) fn get(&self, policy: &SandboxPolicy, cwd: &Path, home: Option<&PathBuf>) -> Result<Arc<Confinement>, EnvError> {
        let mut last = self.last.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((cached, confinement)) = last.as_ref() {
            if cached == policy {
                return Ok(confinement.clone());
            }
        }
        let confinement = Arc::new(prepare(policy, cwd, home).map_err(EnvError::Io)?);
        *last = Some((policy.clone(), confinement.clone()));
        Ok(confinement)
    }
}

#[cfg(target_os = "linux")]
fn prepare(policy: &SandboxPolicy, cwd: &Path, home: Option<&PathBuf>) -> Result<Confinement, String> {
    openagent_confine::check_support(super::exec::namespaces_available()).map_err(|err| err.to_string())?;
    let places = match home {
        Some(home) => openagent_confine::Places::with_home(Some(home.clone())),
        None => openagent_confine::Places::of_this_process(),
    };
    Confinement::prepare(policy, cwd, &places).map_err(|err| err.to_string())
}

#[cfg(not(target_os = "linux"))]
fn prepare(_: &SandboxPolicy, _: &Path, _: Option<&PathBuf>) -> Result<Confinement, String> {
    openagent_confine::check_support(false).map_err(|err| err.to_string())?;
    Err("confinement is only implemented on Linux; run with `--sandbox full-access`".into())
}

/// What the confinement refused a failed command, from its output.
#[cfg(target_os = "linux")]
pub(crate) fn denial(confinement: &Confinement, stdout: &str, stderr: &str) -> Option<String> {
    confinement.denial(stdout, stderr)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn denial(_: &Confinement, _: &str, _: &str) -> Option<String> {
    None
}

/// Whether this machine can enforce `policy` for the commands of an environment on `cwd`, checked
/// before a run's first model call so that a policy the kernel cannot enforce refuses the run
/// instead of running commands unconfined. The error names what is missing and what to give.
/// `full-access` always passes.
pub fn check_sandbox(policy: &SandboxPolicy, cwd: &Path) -> Result<(), String> {
    if !policy.confines() {
        return Ok(());
    }
    policy.check()?;
    for root in &policy.writable_roots {
        openagent_confine::check_root(Path::new(root)).map_err(|err| err.to_string())?;
    }
    prepare(policy, cwd, None).map(drop)
}
