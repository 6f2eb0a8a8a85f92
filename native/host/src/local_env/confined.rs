//! The sandbox policy, enforced for commands: a confining policy (`read-only`, `workspace-write`)
//! prepared once per policy and environment with openagent-confine, and handed to each command's
//! namespaces. Confinement needs a command's own namespaces: where they cannot be made, a
//! confined command fails with what is missing, and never runs unconfined. `full-access` (and a
//! command with no policy, the host's own) runs as before.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use openagent_core::env::EnvError;
use openagent_core::sandbox::SandboxPolicy;

#[cfg(target_os = "linux")]
pub(crate) use openagent_confine::{Confined, Confinement};

/// Where no kernel can confine: a confined command is refused before these are ever made.
#[cfg(not(target_os = "linux"))]
#[derive(Debug)]
pub(crate) struct Confinement;
#[cfg(not(target_os = "linux"))]
#[derive(Debug)]
pub(crate) struct Confined;

/// The last policy an environment prepared, and what it made of it: sessions keep one policy, so
/// one entry serves every command (the Landlock ruleset is a descriptor each command reuses).
#[derive(Debug, Clone, Default)]
pub(crate) struct Prepared {
    last: Arc<Mutex<Option<(SandboxPolicy, Arc<Confinement>)>>>,
}

impl Prepared {
    /// A command's confinement under `policy` in an environment on `cwd`, from the policy
    /// prepared last when it is the same; `namespaces` says whether commands can have their own.
    /// The error says what is missing and what to give instead.
    pub(crate) fn get(
        &self,
        policy: &SandboxPolicy,
        cwd: &Path,
        home: Option<&PathBuf>,
        namespaces: bool,
    ) -> Result<Confined, EnvError> {
        self.shared(policy, cwd, home, namespaces).map(|confinement| command(&confinement)).map_err(EnvError::Io)
    }

    /// What every command under `policy` shares (the Landlock ruleset, the seccomp filters, the
    /// allow-list's proxy): the one prepared last when the policy is the same, else made now
    /// and kept.
    fn shared(
        &self,
        policy: &SandboxPolicy,
        cwd: &Path,
        home: Option<&PathBuf>,
        namespaces: bool,
    ) -> Result<Arc<Confinement>, String> {
        let mut last = self.last.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((cached, confinement)) = last.as_ref() {
            if cached == policy {
                return Ok(confinement.clone());
            }
        }
        let confinement = Arc::new(prepare(policy, cwd, home, namespaces)?);
        *last = Some((policy.clone(), confinement.clone()));
        Ok(confinement)
    }
}

#[cfg(target_os = "linux")]
fn prepare(policy: &SandboxPolicy, cwd: &Path, home: Option<&PathBuf>, namespaces: bool) -> Result<Confinement, String> {
    openagent_confine::check_support(namespaces).map_err(|err| err.to_string())?;
    let places = match home {
        Some(home) => openagent_confine::Places::with_home(Some(home.clone())),
        None => openagent_confine::Places::of_this_process(),
    };
    Confinement::prepare(policy, cwd, &places).map_err(|err| err.to_string())
}

#[cfg(not(target_os = "linux"))]
fn prepare(_: &SandboxPolicy, _: &Path, _: Option<&PathBuf>, namespaces: bool) -> Result<Confinement, String> {
    openagent_confine::check_support(namespaces).map_err(|err| err.to_string())?;
    Err("confinement is only implemented on Linux; run with `--sandbox full-access`".into())
}

#[cfg(target_os = "linux")]
fn command(confinement: &Arc<Confinement>) -> Confined {
    confinement.command()
}

#[cfg(not(target_os = "linux"))]
fn command(_: &Arc<Confinement>) -> Confined {
    Confined
}

/// The variables a confined command gets beside its own (the allow-list's proxy).
#[cfg(target_os = "linux")]
pub(crate) fn vars(confined: &Confined) -> impl Iterator<Item = (OsString, OsString)> {
    confined.vars().into_iter().map(|(name, value)| (name.into(), value.into()))
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn vars(_: &Confined) -> impl Iterator<Item = (OsString, OsString)> {
    std::iter::empty()
}

/// What the confinement refused a failed command, from its output.
#[cfg(target_os = "linux")]
pub(crate) fn denial(confined: &Confined, stdout: &str, stderr: &str) -> Option<String> {
    confined.denial(stdout, stderr)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn denial(_: &Confined, _: &str, _: &str) -> Option<String> {
    None
}

/// Whether `policy` can be enforced for commands of an environment on `cwd` (see
/// [`super::check_sandbox`]), `namespaces` saying whether commands can have their own.
/// With `prepared`, what it prepares is kept for the environment's commands, so that checking
/// before a run and its first command build the confinement once.
pub(crate) fn check(
    policy: &SandboxPolicy,
    cwd: &Path,
    namespaces: bool,
    prepared: Option<(&Prepared, Option<&PathBuf>)>,
) -> Result<(), String> {
    if !policy.confines() {
        return Ok(());
    }
    policy.check()?;
    for root in &policy.writable_roots {
        openagent_confine::check_root(Path::new(root)).map_err(|err| err.to_string())?;
    }
    match prepared {
        Some((prepared, home)) => prepared.shared(policy, cwd, home, namespaces).map(drop),
        None => prepare(policy, cwd, None, namespaces).map(drop),
    }
}
