//! No privileges: no_new_privs (exec cannot gain any, through setuid or file capabilities, and
//! Landlock and seccomp may be applied without any), and no capabilities. Root's capabilities
//! would let a command undo the rest (remount, trace the agent, read any file whatever its mode);
//! a user namespace's root has them inside it. So the bounding set is dropped whole (exec can
//! never give one back), the ambient set cleared, and the effective, permitted and inheritable
//! sets emptied: after exec, `CapEff`, `CapPrm`, `CapInh`, `CapBnd` and `CapAmb` are all 0.

/// Sets no_new_privs. Done first: Landlock and seccomp need it.
///
/// # Safety
/// Async-signal-safe (one prctl): for between fork and exec.
pub unsafe fn no_new_privs() -> std::io::Result<()> {
    check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
}

/// Drops every capability, for good. Needs CAP_SETPCAP to drop the bounding set, which root and a
/// user namespace's first process have; a capability still in the bounding set afterwards is an
/// error, so the command does not run with it.
///
/// # Safety
/// Async-signal-safe (prctl and capset): for between fork and exec.
pub unsafe fn drop_capabilities() -> std::io::Result<()> {
    // Capabilities are numbered from 0; the kernel says EINVAL past the last it knows.
    for cap in 0..64 {
        if libc::prctl(libc::PR_CAPBSET_READ, cap, 0, 0, 0) < 0 {
            break;
        }
        libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
        if libc::prctl(libc::PR_CAPBSET_READ, cap, 0, 0, 0) != 0 {
            return Err(std::io::Error::from_raw_os_error(libc::EPERM));
        }
    }
    check(libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))?;
    // linux/capability.h: version 3 takes two data structs (capabilities 0..31 and 32..63).
    let header = CapHeader { version: 0x2008_0522, pid: 0 };
    let empty = [CapData::default(); 2];
    check(libc::syscall(libc::SYS_capset, &header, empty.as_ptr()) as libc::c_int)
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

fn check(result: libc::c_int) -> std::io::Result<()> {
    match result {
        -1 => Err(std::io::Error::last_os_error()),
        _ => Ok(()),
    }
}
