//! The tool end to end over a `MemoryEnvironment`. The codex scenarios run against the
//! `openagent-apply-patch` crate (its `tests/codex_scenarios.rs`); these cover what they do not.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use futures::executor::block_on;
use serde_json::{json, Value};

use crate::testing::{memory_env, read, run_err, run_ok, write};
use openagent_core::env::ExecutionEnvironment;
use openagent_core::tools::ApplyPatchTool;
use openagent_memenv::MemoryEnvironment;

fn patch(body: &str) -> Value {
    json!({ "patch": format!("*** Begin Patch\n{body}\n*** End Patch\n") })
}

fn env_with(files: &[(&str, &str)]) -> MemoryEnvironment {
    let env = memory_env();
    for (path, content) in files {
        write(&env, path, content);
    }
    env
}

#[test]
fn adds_deletes_and_updates_with_a_codex_style_summary() {
    let env = env_with(&[("old.txt", "bye\n"), ("src/a.rs", "fn a() {\n    1\n}\n")]);
    let out = run_ok(
        &ApplyPatchTool,
        &env,
        patch("*** Add File: new.txt\n+hello\n*** Update File: src/a.rs\n@@ fn a() {\n-    1\n+    2\n*** Delete File: old.txt"),
    );
    assert_eq!(out, "Success. Updated the following files:\nA new.txt\nM src/a.rs\nD old.txt");
    assert_eq!(read(&env, "new.txt"), "hello\n");
    assert_eq!(read(&env, "src/a.rs"), "fn a() {\n    2\n}\n");
    assert_eq!(env.list_all_files(), ["/workspace/new.txt", "/workspace/src/a.rs"]);
}

#[test]
fn fuzzy_passes_match_whitespace_and_unicode_punctuation() {
    let env = env_with(&[("a.py", "x = 1   \n\tif y:\n        say(\u{201c}hi\u{201d}) \u{2014} ok\nend\n")]);
    let body = "*** Update File: a.py\n@@\n x = 1\n-if y:\n+if z:\n-    say(\"hi\") - ok\n+    say('hi')\n end";
    run_ok(&ApplyPatchTool, &env, patch(body));
    // Context lines keep the file's text; only replaced lines take the patch's.
    assert_eq!(read(&env, "a.py"), "x = 1   \nif z:\n    say('hi')\nend\n");
}

#[test]
fn the_context_hint_picks_the_second_identical_block() {
    let block = "    let x = 1;\n    run(x);\n";
    let env = env_with(&[("m.rs", &format!("fn one() {{\n{block}}}\nfn two() {{\n{block}}}\n"))]);
    run_ok(&ApplyPatchTool, &env, patch("*** Update File: m.rs\n@@ fn two() {\n-    let x = 1;\n+    let x = 2;\n     run(x);"));
    assert_eq!(read(&env, "m.rs"), format!("fn one() {{\n{block}}}\nfn two() {{\n    let x = 2;\n    run(x);\n}}\n"));
    let err = run_err(&ApplyPatchTool, &env, patch("*** Update File: m.rs\n@@ fn two() {\n-    let x = 1;\n+    let x = 3;"));
    assert!(err.starts_with("apply_patch: in m.rs, hunk 1 (@@ fn two() {): the lines to replace were not found below its @@ line:\n    let x = 1;\nRead m.rs"), "{err}");
}

#[test]
fn multiple_chunks_apply_in_order_and_end_of_file_anchors_the_last() {
    let env = env_with(&[("f.txt", "a\nx\nb\nx\nc\nx\n")]);
    run_ok(&ApplyPatchTool, &env, patch("*** Update File: f.txt\n@@\n a\n-x\n+1\n@@\n b\n-x\n+2\n@@\n-x\n+3\n*** End of File"));
    assert_eq!(read(&env, "f.txt"), "a\n1\nb\n2\nc\n3\n");
}

#[test]
fn a_move_with_an_update_writes_the_new_path_and_removes_the_old() {
    let env = env_with(&[("old/name.py", "import os\nimport old_dep\n")]);
    let out = run_ok(
        &ApplyPatchTool,
        &env,
        patch("*** Update File: old/name.py\n*** Move to: new/name.py\n@@\n import os\n-import old_dep\n+import new_dep"),
    );
    assert_eq!(out, "Success. Updated the following files:\nM new/name.py (moved from old/name.py)");
    assert_eq!(env.list_all_files(), ["/workspace/new/name.py"]);
    assert_eq!(read(&env, "new/name.py"), "import os\nimport new_dep\n");
}

#[test]
fn add_replaces_an_existing_file_and_says_so() {
    // codex's semantics (its scenario 011_add_overwrites_existing_file), but never silently.
    let env = env_with(&[("a.txt", "old\n")]);
    assert_eq!(
        run_ok(&ApplyPatchTool, &env, patch("*** Add File: a.txt\n+new\n*** Add File: b.txt\n+b")),
        "Success. Updated the following files:\nA a.txt (replaced the existing file)\nA b.txt"
    );
    assert_eq!(read(&env, "a.txt"), "new\n");
}

#[test]
fn later_operations_see_earlier_ones_of_the_same_patch() {
    let env = memory_env();
    run_ok(&ApplyPatchTool, &env, patch("*** Add File: n.txt\n+one\n*** Update File: ./n.txt\n@@\n-one\n+two"));
    assert_eq!(read(&env, "n.txt"), "two\n");
    let err = run_err(&ApplyPatchTool, &env, patch("*** Delete File: n.txt\n*** Update File: n.txt\n@@\n-two\n+three"));
    assert!(err.starts_with("apply_patch: cannot update n.txt: there is no such file."), "{err}");
    assert_eq!(read(&env, "n.txt"), "two\n");
}

#[test]
fn deleting_or_updating_a_missing_file_is_an_error() {
    let env = env_with(&[("keep.txt", "k\n")]);
    assert_eq!(
        run_err(&ApplyPatchTool, &env, patch("*** Delete File: gone.txt")),
        "apply_patch: cannot delete gone.txt: there is no such file. Check the path (glob finds files). No file was changed."
    );
    assert_eq!(
        run_err(&ApplyPatchTool, &env, patch("*** Update File: gone.txt\n@@\n-a\n+b")),
        "apply_patch: cannot update gone.txt: there is no such file. Check the path (glob finds files), \
         or use `*** Add File:` to create it. No file was changed."
    );
    let err = run_err(&ApplyPatchTool, &env, patch("*** Delete File: ."));
    assert!(err.contains("is a directory"), "{err}");
    assert_eq!(env.list_all_files(), ["/workspace/keep.txt"]);
}

#[test]
fn crlf_files_stay_crlf() {
    let env = env_with(&[("w.txt", "one\r\ntwo\r\nthree\r\n")]);
    run_ok(&ApplyPatchTool, &env, patch("*** Update File: w.txt\n@@\n one\n-two\n+2\n+2b"));
    assert_eq!(read(&env, "w.txt"), "one\r\n2\r\n2b\r\nthree\r\n");
}

#[test]
fn heredoc_wrapped_input_is_accepted_with_its_cd() {
    let env = env_with(&[("app/a.txt", "a\n")]);
    let wrapped = "cd app && apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch\nEOF\n";
    assert_eq!(run_ok(&ApplyPatchTool, &env, json!({"patch": wrapped})), "Success. Updated the following files:\nM app/a.txt");
    assert_eq!(read(&env, "app/a.txt"), "b\n");
}

#[test]
fn empty_and_unmarked_patches_are_explained() {
    let env = memory_env();
    let err = |text: &str| run_err(&ApplyPatchTool, &env, json!({ "patch": text }));
    assert!(err("").starts_with("apply_patch: the patch is empty."));
    assert!(err("*** Add File: a\n+x\n*** End Patch")
        .starts_with("apply_patch: the first line of the patch must be `*** Begin Patch`"));
    assert!(err("*** Begin Patch\n*** Add File: a\n+x")
        .starts_with("apply_patch: the last line of the patch must be `*** End Patch`"));
    assert!(err("*** Begin Patch\n*** End Patch").starts_with("apply_patch: the patch changes no files."));
    assert_eq!(run_err(&ApplyPatchTool, &env, json!({})), "Missing required argument \"patch\" (a string).");
    assert!(env.list_all_files().is_empty());
}

#[test]
fn a_failing_second_hunk_changes_nothing_and_names_the_hunk() {
    let env = env_with(&[("src/a.rs", "fn main() {\n    one();\n}\n"), ("b.txt", "b\n")]);
    let before = env.snapshot();
    let body = "*** Add File: new.txt\n+n\n*** Delete File: b.txt\n*** Update File: src/a.rs\n@@\n-    one();\n+    two();\n\
                @@ fn main\n-    three();\n+    four();";
    assert_eq!(
        run_err(&ApplyPatchTool, &env, patch(body)),
        "apply_patch: in src/a.rs, hunk 2 (@@ fn main): the @@ line `fn main` was not found below the previous hunk. \
         Read src/a.rs to see its current content, then send the patch again with context and `-` lines copied from it \
         exactly, hunks in file order. No file was changed."
    );
    let body = "*** Update File: src/a.rs\n@@ fn main() {\n-    one();\n+    two();\n@@\n     two();\n-    three();";
    assert_eq!(
        run_err(&ApplyPatchTool, &env, patch(body)),
        "apply_patch: in src/a.rs, hunk 2: the lines to replace were not found below the previous hunk:\n    two();\n    three();\n\
         Read src/a.rs to see its current content, then send the patch again with context and `-` lines copied from it \
         exactly, hunks in file order. No file was changed."
    );
    assert_eq!(env.snapshot(), before);
}

#[test]
fn paths_that_cannot_be_written_are_refused_before_any_change() {
    let env = env_with(&[("file", "x\n")]);
    let err = run_err(&ApplyPatchTool, &env, patch("*** Add File: first.txt\n+1\n*** Add File: file/inner.txt\n+2"));
    assert_eq!(err, "apply_patch: cannot write file/inner.txt: /workspace/file is not a directory. No file was changed.");
    let err = run_err(&ApplyPatchTool, &env, patch("*** Add File: ../../x\n+1"));
    assert!(err.starts_with("apply_patch: cannot write ../../x: invalid path"), "{err}");
    assert_eq!(env.list_all_files(), ["/workspace/file"]);
}

#[test]
fn a_change_that_fails_midway_undoes_the_ones_made_before_it() {
    // The last section writes a file where an earlier one made a directory: only the write finds out.
    let env = env_with(&[("x.txt", "one\n"), ("y.txt", "gone?\n"), ("nul.txt", "a\0b\n")]);
    let body = "*** Update File: x.txt\n@@\n-one\n+ONE\n*** Delete File: y.txt\n*** Delete File: nul.txt\n\
                *** Add File: a/b.txt\n+1\n*** Add File: a\n+2";
    assert_eq!(
        run_err(&ApplyPatchTool, &env, patch(body)),
        "apply_patch: every hunk applied, but could not write a: /workspace/a is a directory, not a file. \
         The changes made before it were undone, so no file was changed."
    );
    assert_eq!(read(&env, "x.txt"), "one\n");
    assert_eq!(read(&env, "y.txt"), "gone?\n");
    assert_eq!(env.read_bytes_sync("nul.txt").unwrap(), b"a\0b\n");
    assert!(!block_on(env.file_exists("a/b.txt")));
}

#[test]
fn changes_that_cannot_be_undone_are_made_last() {
    // A file that is not UTF-8 cannot be written back through the environment, so its deletion
    // waits until every other change has been made.
    let env = env_with(&[("x.txt", "one\n")]);
    env.write_bytes("latin1.txt", &[b'c', 0xe9]).unwrap();
    let body = "*** Delete File: latin1.txt\n*** Add File: a/b.txt\n+1\n*** Add File: a\n+2";
    let err = run_err(&ApplyPatchTool, &env, patch(body));
    assert!(err.ends_with("so no file was changed."), "{err}");
    assert_eq!(env.read_bytes_sync("latin1.txt").unwrap(), [b'c', 0xe9]);
}
