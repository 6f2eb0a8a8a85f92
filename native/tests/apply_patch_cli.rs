//! The `openagent apply-patch` binary, run in temporary directories.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory under the system's temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("openagent-apply-patch-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::SeqCst));
        let dir = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn write(&self, path: &str, content: &str) {
        std::fs::write(self.0.join(path), content).unwrap();
    }

    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.0.join(path)).ok()
    }

    /// Runs `openagent` here with `args`, giving it `stdin`.
    fn run(&self, args: &[&str], stdin: &str) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_openagent"))
            .args(args)
            .current_dir(&self.0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const ADD_UPDATE_DELETE: &str = "*** Begin Patch
*** Add File: src/new.txt
+fresh
*** Update File: keep.txt
@@
 one
-two
+TWO
 three
*** Delete File: old.txt
*** End Patch";

#[test]
fn applies_adds_updates_and_deletes_from_an_argument() {
    let dir = TempDir::new();
    dir.write("keep.txt", "one\ntwo\nthree\n");
    dir.write("old.txt", "bye\n");
    let output = dir.run(&["apply-patch", ADD_UPDATE_DELETE], "");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let summary = text(&output.stdout);
    assert!(summary.starts_with("Success.") && summary.contains("A src/new.txt"), "{summary}");
    assert!(summary.contains("M keep.txt") && summary.contains("D old.txt"), "{summary}");
    assert_eq!(dir.read("src/new.txt").as_deref(), Some("fresh\n"));
    assert_eq!(dir.read("keep.txt").as_deref(), Some("one\nTWO\nthree\n"));
    assert_eq!(dir.read("old.txt"), None);
}

#[test]
fn reads_the_patch_from_stdin() {
    let patch = "*** Begin Patch\n*** Add File: piped.txt\n+from stdin\n*** End Patch\n";
    for args in [&["apply-patch"][..], &["apply-patch", "-"]] {
        let dir = TempDir::new();
        let output = dir.run(args, patch);
        assert!(output.status.success(), "{args:?}: {}", text(&output.stderr));
        assert_eq!(dir.read("piped.txt").as_deref(), Some("from stdin\n"));
    }
}

#[test]
fn a_failing_hunk_exits_non_zero_and_changes_nothing() {
    let dir = TempDir::new();
    dir.write("keep.txt", "one\nchanged\nthree\n");
    dir.write("old.txt", "bye\n");
    let output = dir.run(&["apply-patch", ADD_UPDATE_DELETE], "");
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("keep.txt") && stderr.contains("No file was changed"), "{stderr}");
    assert!(output.stdout.is_empty());
    assert_eq!(dir.read("keep.txt").as_deref(), Some("one\nchanged\nthree\n"));
    assert_eq!(dir.read("old.txt").as_deref(), Some("bye\n"));
    assert_eq!(dir.read("src/new.txt"), None);
}

#[test]
fn usage_errors_exit_2() {
    let dir = TempDir::new();
    assert_eq!(dir.run(&[], "").status.code(), Some(2));
    assert_eq!(dir.run(&["apply-patch", "a", "b"], "").status.code(), Some(2));
    let garbage = dir.run(&["apply-patch", "not a patch"], "");
    assert_eq!(garbage.status.code(), Some(1));
    assert!(!garbage.stderr.is_empty());
}
