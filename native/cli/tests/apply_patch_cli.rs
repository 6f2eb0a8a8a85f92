//! The `openagent apply-patch` binary, run in temporary directories.

use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
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
        run_in(&self.0, args, stdin)
    }
}

/// Runs `openagent` in `dir` with `args`, giving it `stdin`.
fn run_in(dir: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_openagent"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
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
fn applies_adds_updates_and_deletes_from_the_file_it_names() {
    let dir = TempDir::new();
    dir.write("keep.txt", "one\ntwo\nthree\n");
    dir.write("old.txt", "bye\n");
    dir.write("fix.patch", ADD_UPDATE_DELETE);
    let output = dir.run(&["apply-patch", "fix.patch"], "");
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

/// A patch file that is not there is named, and so is the way to give the text itself; a
/// directory is not a patch either.
#[test]
fn a_patch_file_that_cannot_be_read_is_an_error_naming_it() {
    let dir = TempDir::new();
    dir.write("keep.txt", "one\ntwo\nthree\n");
    for (argument, said) in [
        ("missing.patch", "cannot read the patch file missing.patch: No such file or directory"),
        (".", "cannot read the patch file .: it is a directory"),
        (ADD_UPDATE_DELETE, "give the patch on stdin"),
    ] {
        let output = dir.run(&["apply-patch", argument], "");
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{argument}: {stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(said) && stderr.lines().count() == 1, "{argument}: {stderr}");
        assert!(output.stdout.is_empty(), "{argument}");
    }
    assert_eq!(dir.read("keep.txt").as_deref(), Some("one\ntwo\nthree\n"));
}

#[test]
fn a_failing_hunk_exits_non_zero_and_changes_nothing() {
    let dir = TempDir::new();
    dir.write("keep.txt", "one\nchanged\nthree\n");
    dir.write("old.txt", "bye\n");
    let output = dir.run(&["apply-patch"], ADD_UPDATE_DELETE);
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
    let garbage = dir.run(&["apply-patch"], "not a patch");
    assert_eq!(garbage.status.code(), Some(1));
    assert!(!garbage.stderr.is_empty());
}

/// A working directory `work/` holding `keep.txt`, beside an `outside/` holding `victim.txt`,
/// with `work/link` pointing at `outside/`.
fn hostile_setup() -> TempDir {
    let dir = TempDir::new();
    std::fs::create_dir_all(dir.0.join("work")).unwrap();
    std::fs::create_dir_all(dir.0.join("outside")).unwrap();
    dir.write("work/keep.txt", "one\ntwo\n");
    dir.write("outside/victim.txt", "precious\n");
    symlink(dir.0.join("outside"), dir.0.join("work/link")).unwrap();
    dir
}

#[test]
fn paths_outside_the_working_directory_are_refused_and_nothing_is_written() {
    let dir = hostile_setup();
    let work = dir.0.join("work");
    let absolute = dir.0.join("outside/abs.txt").display().to_string();
    // Each patch first changes keep.txt and adds a file inside, so a refusal must undo them.
    let inside = "*** Update File: keep.txt\n@@\n-two\n+TWO\n*** Add File: added.txt\n+new\n";
    let hostile = [
        ("*** Delete File: ../outside/victim.txt".to_owned(), "outside/victim.txt"),
        ("*** Add File: ../outside/new.txt\n+x".to_owned(), "outside/new.txt"),
        (format!("*** Add File: {absolute}\n+x"), "outside/abs.txt"),
        ("*** Update File: added.txt\n*** Move to: ../moved.txt\n@@\n-new\n+moved".to_owned(), "moved.txt"),
        ("*** Add File: link/planted.txt\n+x".to_owned(), "work/link/planted.txt"),
        ("*** Update File: link/victim.txt\n@@\n-precious\n+overwritten".to_owned(), "work/link/victim.txt"),
        ("*** Delete File: link/victim.txt".to_owned(), "work/link/victim.txt"),
    ];
    for (section, shown) in hostile {
        let patch = format!("*** Begin Patch\n{inside}{section}\n*** End Patch");
        let output = run_in(&work, &["apply-patch"], &patch);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{section}: {stderr}");
        assert!(stderr.contains(shown), "{section}: {stderr}");
        assert!(stderr.contains(&format!("outside the working directory {}", work.display())), "{section}: {stderr}");
        assert!(stderr.contains("no file was changed"), "{section}: {stderr}");
        assert_eq!(dir.read("work/keep.txt").as_deref(), Some("one\ntwo\n"), "{section}");
        assert_eq!(dir.read("work/added.txt"), None, "{section}");
        assert_eq!(dir.read("outside/victim.txt").as_deref(), Some("precious\n"), "{section}");
        let outside: Vec<_> = std::fs::read_dir(dir.0.join("outside")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(outside, ["victim.txt"], "{section}");
        assert!(!dir.0.join("moved.txt").exists(), "{section}");
    }
}

#[test]
fn a_failure_on_a_later_file_undoes_the_earlier_ones() {
    // The last section writes a file where an earlier one made a directory: only the write
    // itself can find that out, after keep.txt was changed and old.txt deleted.
    let dir = TempDir::new();
    dir.write("keep.txt", "one\ntwo\nthree\n");
    dir.write("old.txt", "bye\n");
    let patch = "*** Begin Patch\n*** Update File: keep.txt\n@@\n-two\n+TWO\n*** Delete File: old.txt\n\
                 *** Add File: d/inner.txt\n+x\n*** Add File: d\n+y\n*** End Patch";
    let output = dir.run(&["apply-patch"], patch);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("could not write d:") && stderr.contains("were undone, so no file was changed"), "{stderr}");
    assert_eq!(dir.read("keep.txt").as_deref(), Some("one\ntwo\nthree\n"));
    assert_eq!(dir.read("old.txt").as_deref(), Some("bye\n"));
    assert_eq!(dir.read("d/inner.txt"), None);
}

#[test]
fn a_file_too_big_to_read_whole_can_still_be_deleted() {
    let dir = TempDir::new();
    dir.write("huge.log", "x\n");
    // Sparse, past the 16 MiB a read returns, so the patch cannot read it whole.
    std::fs::File::options().write(true).open(dir.0.join("huge.log")).unwrap().set_len(20 << 20).unwrap();
    let output = dir.run(&["apply-patch"], "*** Begin Patch\n*** Delete File: huge.log\n*** End Patch");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(!dir.0.join("huge.log").exists());
}

#[test]
fn add_file_over_an_existing_file_says_it_replaced_it() {
    let dir = TempDir::new();
    dir.write("exists.txt", "old\n");
    let output = dir.run(&["apply-patch"], "*** Begin Patch\n*** Add File: exists.txt\n+new\n*** End Patch");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("A exists.txt (replaced the existing file)"), "{}", text(&output.stdout));
    assert_eq!(dir.read("exists.txt").as_deref(), Some("new\n"));
}
