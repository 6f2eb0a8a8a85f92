//! The support check a run makes before its first model call, and the seam that pretends the
//! kernel lacks a part: a confining policy is refused, naming what is missing and
//! `--sandbox full-access`, and a confined command fails instead of running unconfined.
//! One test, in a binary of its own: it sets the seam's variable (and `OPENAGENT_SUPERVISION`)
//! for the whole process.

use openagent_core::env::{ExecOptions, ExecutionEnvironment};
use openagent_core::sandbox::{SandboxMode, SandboxPolicy};
use openagent_host::local_env::check_sandbox;
use openagent_host::{LocalEnvironment, NativeRuntime};

#[test]
fn a_policy_this_machine_cannot_enforce_is_refused_with_what_is_missing() {
    let dir = std::env::temp_dir().join(format!("openagent-confine-support-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
    if let Err(why) = check_sandbox(&write, &dir) {
        eprintln!("skipped: this kernel cannot confine commands: {why}");
        return;
    }
    assert_eq!(check_sandbox(&SandboxPolicy::full_access(), &dir), Ok(()));

    // `OPENAGENT_SUPERVISION=scan` is for full access: a confined command still has its namespaces.
    std::env::set_var("OPENAGENT_SUPERVISION", "scan");
    assert_eq!(openagent_host::Supervision::detect(), openagent_host::Supervision::Scan);
    let env = LocalEnvironment::new(&dir).unwrap();
    let confined = ExecOptions { timeout_ms: 5_000, sandbox: Some(write.clone()), ..ExecOptions::default() };
    let result = NativeRuntime::new().block_on(env.exec_command("echo $$", &confined)).unwrap();
    assert_eq!(result.stdout, "2\n", "the shell is pid 2 of its own namespace: {result:?}");
    std::env::remove_var("OPENAGENT_SUPERVISION");

    // A writable root must be a real directory.
    let missing = SandboxPolicy { writable_roots: vec![dir.join("missing").display().to_string()], ..write.clone() };
    assert!(check_sandbox(&missing, &dir).unwrap_err().contains("does not exist"));
    let link = dir.join("link");
    std::os::unix::fs::symlink(&dir, &link).unwrap();
    let linked = SandboxPolicy { writable_roots: vec![link.display().to_string()], ..write.clone() };
    assert!(check_sandbox(&linked, &dir).unwrap_err().contains("is a symlink"));

    for (part, named) in [("landlock", "no Landlock"), ("user-namespaces", "no user namespaces")] {
        std::env::set_var(openagent_confine::PRETEND_MISSING, part);
        let err = check_sandbox(&write, &dir).unwrap_err();
        assert!(err.contains(named) && err.contains("--sandbox full-access"), "{err}");
        assert!(check_sandbox(&SandboxPolicy::new(SandboxMode::ReadOnly), &dir).is_err());
        assert_eq!(check_sandbox(&SandboxPolicy::full_access(), &dir), Ok(()));
        // Fail closed: the confined command does not run at all; full access runs as before.
        let env = LocalEnvironment::new(&dir).unwrap();
        let marker = dir.join(format!("ran-{part}"));
        let command = format!("touch {}", marker.display());
        let confined = ExecOptions { timeout_ms: 5_000, sandbox: Some(write.clone()), ..ExecOptions::default() };
        let err = NativeRuntime::new().block_on(env.exec_command(&command, &confined)).unwrap_err().to_string();
        assert!(err.contains(named) && err.contains("--sandbox full-access"), "{err}");
        assert!(!marker.exists(), "the command ran unconfined");
        let full = ExecOptions { sandbox: Some(SandboxPolicy::full_access()), ..confined };
        assert_eq!(NativeRuntime::new().block_on(env.exec_command(&command, &full)).unwrap().exit_code, 0);
        assert!(marker.exists());
    }
    std::env::remove_var(openagent_confine::PRETEND_MISSING);
    let _ = std::fs::remove_dir_all(&dir);
}
