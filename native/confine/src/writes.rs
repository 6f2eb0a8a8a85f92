//! Landlock: where a command may write. Only the write-ish file rights are handled, so reading,
//! listing and executing stay allowed everywhere; writing, creating, removing, renaming
//! (`Refer`), truncating and device ioctls are allowed only beneath the granted paths. The ruleset
//! also scopes signals (a command cannot signal the agent or another command) and, with the network
//! off, handles TCP bind and connect with no port allowed (with an allow-list, connects to its
//! proxy's port only).
//!
//! The ruleset is built once, in the agent, as a descriptor; each command's shell restricts itself
//! with it (`landlock_restrict_self`), a single system call, so one ruleset serves many commands.
//! The rights asked for are those of [`TESTED`], Landlock's compatibility is best effort (a kernel
//! with an older ABI enforces what it knows), and a kernel with no Landlock gives no descriptor:
//! confinement then fails rather than run the command unrestricted.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use landlock::{
    AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, ABI,
};

use crate::{ConfineError, Net};

/// The ABI whose rights are asked for: the newest one tested (this is what the kernel the tests
/// run on has); a newer kernel enforces exactly these, an older one what it knows of them.
pub const TESTED: ABI = ABI::V7;

/// The device nodes every command may write: the bit buckets, the terminal, shared memory.
pub const DEVICES: [&str; 8] =
    ["/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm"];

/// A Landlock ruleset, ready for any number of commands to restrict themselves with.
#[derive(Debug)]
pub struct Writes {
    ruleset: OwnedFd,
}

impl Writes {
    /// Writes beneath `roots` (directories) and to [`DEVICES`]; with the network off or behind a
    /// proxy, TCP binds and connects are refused (but to the proxy). Fails when the kernel has no
    /// Landlock.
    pub(crate) fn prepare(roots: &[PathBuf], net: Net) -> Result<Self, ConfineError> {
        let fail = |err: landlock::RulesetError| ConfineError::Prepare(format!("Landlock refused the ruleset: {err}"));
        if crate::support::landlock_abi() < 1 {
            return Err(ConfineError::Unsupported {
                missing: "no Landlock (it needs Linux 5.13 or later with `landlock` in the kernel's `lsm=` list)".into(),
            });
        }
        let write = AccessFs::from_write(TESTED);
        let mut ruleset = Ruleset::default().set_compatibility(CompatLevel::BestEffort);
        ruleset = ruleset.handle_access(write).map_err(fail)?.scope(Scope::Signal).map_err(fail)?;
        if net != Net::On {
            ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp).map_err(fail)?;
        }
        let mut created = ruleset.create().map_err(fail)?;
        if let Net::Proxy(port) = net {
            created = created.add_rule(NetPort::new(port, AccessNet::ConnectTcp)).map_err(fail)?;
        }
        for root in roots {
            created = created.add_rule(beneath(root, write)?).map_err(fail)?;
        }
        for device in DEVICES.iter().map(Path::new).filter(|device| device.exists()) {
            // A file rule may hold only the rights a file has.
            let rights = if device.is_dir() { write } else { write & AccessFs::from_file(TESTED) };
            created = created.add_rule(beneath(device, rights)?).map_err(fail)?;
        }
        let ruleset: Option<OwnedFd> = created.into();
        let ruleset = ruleset.ok_or_else(|| ConfineError::Unsupported {
            missing: "no Landlock (it needs Linux 5.13 or later with `landlock` in the kernel's `lsm=` list)".into(),
        })?;
        Ok(Self { ruleset })
    }

    /// Restricts the calling thread (and what it execs) to the ruleset. no_new_privs must be set.
    ///
    /// # Safety
    /// Async-signal-safe (one system call): for between fork and exec.
    pub unsafe fn restrict_self(&self) -> std::io::Result<()> {
        if libc::syscall(libc::SYS_landlock_restrict_self, self.ruleset.as_raw_fd(), 0 as libc::c_uint) == -1 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
}

fn beneath(path: &Path, rights: BitFlags<AccessFs>) -> Result<PathBeneath<PathFd>, ConfineError> {
    let fd = PathFd::new(path).map_err(|err| ConfineError::Prepare(format!("could not open {}: {err}", path.display())))?;
    Ok(PathBeneath::new(fd, rights))
}
