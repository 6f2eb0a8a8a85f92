//! seccomp: the system calls a confined command may not make, compiled by seccompiler in the
//! agent and installed in the shell as its last step before exec (they hold for everything it
//! starts). A refused call fails with EPERM, so tools report "Operation not permitted"; everything
//! else is allowed (Landlock and the namespaces do the rest). A call from another architecture's
//! system call table (i386 on x86_64) does not pass seccompiler's architecture check.
//!
//! Always refused, because each would leave the command's namespaces, reach another process or
//! the kernel's shared state: `ptrace`, `process_vm_readv`/`writev`, `unshare`, `setns`, `clone`
//! with a namespace flag, `mount` and its kin (`umount2`, `pivot_root`, the new mount API),
//! `bpf`, `perf_event_open`, the key ring (`keyctl`, `add_key`, `request_key`). `clone3` fails
//! with ENOSYS instead: its flags are in memory seccomp cannot read, and on ENOSYS the C library
//! falls back to `clone`, whose flags it can. With the network off: `socket` in any domain but
//! `AF_UNIX` (so Unix sockets and `socketpair` keep working), and `io_uring_setup`, since
//! io_uring can open sockets without the `socket` call. With an allow-list, `AF_INET` and
//! `AF_INET6` sockets are allowed too, of the stream type only (TCP to the proxy; no UDP).

use std::collections::BTreeMap;

use seccompiler::{BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule};

use crate::{ConfineError, Net};

/// The namespace flags `clone` may not have.
const NAMESPACE_FLAGS: [libc::c_int; 7] = [
    libc::CLONE_NEWNS,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWCGROUP,
];

/// Refused outright, whatever their arguments.
const REFUSED: [libc::c_long; 20] = [
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
];

/// The filters of one confinement, compiled.
#[derive(Debug)]
pub struct Syscalls {
    programs: Vec<BpfProgram>,
}

impl Syscalls {
    /// The filters for a command with the network `net`.
    pub(crate) fn prepare(net: Net) -> Result<Self, ConfineError> {
        let fail = |err: seccompiler::BackendError| ConfineError::Prepare(format!("seccomp: {err}"));
        let arch = std::env::consts::ARCH
            .try_into()
            .map_err(|_| ConfineError::Prepare(format!("seccomp filters are not built for {}", std::env::consts::ARCH)))?;
        let mut refused: BTreeMap<i64, Vec<SeccompRule>> = REFUSED.iter().map(|&call| (call, Vec::new())).collect();
        let with_flag = |flag: libc::c_int| {
            let flag = flag as u64;
            SeccompRule::new(vec![SeccompCondition::new(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(flag), flag)?])
        };
        refused.insert(libc::SYS_clone, NAMESPACE_FLAGS.into_iter().map(with_flag).collect::<Result<_, _>>().map_err(fail)?);
        if net != Net::On {
            refused.insert(libc::SYS_socket, socket_rules(net).map_err(fail)?);
            refused.insert(libc::SYS_io_uring_setup, Vec::new());
        }
        let eperm = SeccompFilter::new(refused, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch);
        let clone3 = [(libc::SYS_clone3, Vec::new())].into_iter().collect();
        let enosys = SeccompFilter::new(clone3, SeccompAction::Allow, SeccompAction::Errno(libc::ENOSYS as u32), arch);
        let programs = [eperm.map_err(fail)?, enosys.map_err(fail)?]
            .into_iter()
            .map(BpfProgram::try_from)
            .collect::<Result<_, _>>()
            .map_err(fail)?;
        Ok(Self { programs })
    }

    /// Installs the filters on the calling thread. no_new_privs must be set.
    ///
    /// # Safety
    /// Async-signal-safe (`seccomp` system calls on the compiled programs; seccompiler allocates
    /// nothing to install them): for between fork and exec.
    pub unsafe fn install(&self) -> std::io::Result<()> {
        for program in &self.programs {
            seccompiler::apply_filter(program).map_err(|err| match err {
                seccompiler::Error::Prctl(err) | seccompiler::Error::Seccomp(err) => err,
                _ => std::io::Error::from_raw_os_error(libc::EINVAL),
            })?;
        }
        Ok(())
    }
}

/// When `socket` is refused: any domain but `AF_UNIX`, or with a proxy any but `AF_UNIX`,
/// `AF_INET` and `AF_INET6`, and these two of any type but `SOCK_STREAM` (the type's low four
/// bits; the flags above them are free).
fn socket_rules(net: Net) -> Result<Vec<SeccompRule>, seccompiler::BackendError> {
    let domain = |op, family: libc::c_int| SeccompCondition::new(0, SeccompCmpArgLen::Dword, op, family as u64);
    if net == Net::Off {
        return Ok(vec![SeccompRule::new(vec![domain(SeccompCmpOp::Ne, libc::AF_UNIX)?])?]);
    }
    let other_domain = [libc::AF_UNIX, libc::AF_INET, libc::AF_INET6].map(|family| domain(SeccompCmpOp::Ne, family));
    let mut rules = vec![SeccompRule::new(other_domain.into_iter().collect::<Result<_, _>>()?)?];
    for family in [libc::AF_INET, libc::AF_INET6] {
        for kind in (0..16).filter(|&kind| kind != libc::SOCK_STREAM as u64) {
            let not_stream = SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::MaskedEq(0xf), kind)?;
            rules.push(SeccompRule::new(vec![domain(SeccompCmpOp::Eq, family)?, not_stream])?);
        }
    }
    Ok(rules)
}
