use std::path::PathBuf;
use std::rc::Rc;

use futures::executor::block_on;
use openagent_core::env::{EnvError, ExecOptions, ExecutionEnvironment};
use openagent_core::runtime::VirtualRuntime;

use super::{WasiEnvironment, WORKSPACE};

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("openagent-guest-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn env(dir: &TempDir) -> WasiEnvironment {
    WasiEnvironment::new(&dir.0, Rc::new(VirtualRuntime::new(|_| {})))
}

fn sh(env: &WasiEnvironment, command: &str) -> (String, i32) {
    let result = block_on(env.exec_command(command, &ExecOptions::default())).unwrap();
    (result.stdout + &result.stderr, result.exit_code)
}

#[test]
fn reads_and_writes_the_real_directory() {
    let dir = TempDir::new("rw");
    std::fs::write(dir.0.join("a.txt"), "one\ntwo\n").unwrap();
    let env = env(&dir);
    assert_eq!(env.working_directory(), WORKSPACE);
    assert_eq!(block_on(env.read_file("a.txt", Some(2), None)).unwrap(), "two\n");
    block_on(env.write_file("src/new.rs", "fn main() {}\n")).unwrap();
    assert_eq!(std::fs::read_to_string(dir.0.join("src/new.rs")).unwrap(), "fn main() {}\n");
    assert_eq!(block_on(env.read_file("/workspace/src/new.rs", None, None)).unwrap(), "fn main() {}\n");
    let grep = block_on(env.grep("main", ".", &Default::default())).unwrap();
    assert_eq!(grep, "src/new.rs:1:fn main() {}");
    block_on(env.remove_file("a.txt")).unwrap();
    assert!(!dir.0.join("a.txt").exists());
}

#[test]
fn the_built_in_shell_changes_the_real_files() {
    let dir = TempDir::new("shell");
    std::fs::write(dir.0.join("old.txt"), "x\n").unwrap();
    let env = env(&dir);
    assert_eq!(sh(&env, "mkdir -p d/e && echo hi > d/e/f.txt && mv old.txt new.txt && cat d/e/f.txt"), ("hi\n".into(), 0));
    assert_eq!(std::fs::read_to_string(dir.0.join("d/e/f.txt")).unwrap(), "hi\n");
    assert!(dir.0.join("new.txt").exists() && !dir.0.join("old.txt").exists());
    assert_eq!(sh(&env, "rm -r d && ls"), ("new.txt\n".into(), 0));
    assert!(!dir.0.join("d").exists());
    // Scratch files outside the workspace live for one command only: nothing leaves the directory.
    assert_eq!(sh(&env, "echo t > /tmp/t && cat /tmp/t").1, 0);
    assert_eq!(sh(&env, "cat /tmp/t").1, 1);
}

#[test]
fn refuses_paths_outside_the_workspace() {
    let dir = TempDir::new("outside");
    let env = env(&dir);
    for path in ["/etc/passwd", "/tmp/x", "../outside.txt", "/workspace/../etc/passwd"] {
        let err = block_on(env.read_file(path, None, None)).unwrap_err();
        assert!(matches!(err, EnvError::PermissionDenied(_) | EnvError::InvalidPath { .. }), "{path}: {err}");
        assert!(block_on(env.write_file(path, "x")).is_err(), "{path}");
    }
    assert!(matches!(block_on(env.read_file("../../..", None, None)), Err(EnvError::InvalidPath { .. })));
    let refused = ExecOptions { working_dir: Some("/etc".into()), ..ExecOptions::default() };
    assert!(block_on(env.exec_command("ls", &refused)).is_err());
}

#[test]
fn a_scoped_view_stays_inside() {
    let dir = TempDir::new("scoped");
    std::fs::create_dir_all(dir.0.join("sub")).unwrap();
    let env = env(&dir);
    let sub = env.scoped("sub").unwrap();
    assert_eq!(sub.working_directory(), "/workspace/sub");
    block_on(sub.write_file("x.txt", "x")).unwrap();
    assert!(dir.0.join("sub/x.txt").exists());
    assert!(env.scoped("/etc").is_err());
}
