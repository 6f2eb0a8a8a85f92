#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use futures::executor::block_on;
use serde_json::json;

use crate::testing::{memory_env, read, run_err, run_ok, write};
use openagent_core::env::ExecutionEnvironment;
use openagent_core::tools::WriteFileTool;

#[test]
fn creates_a_file_and_its_directories() {
    let env = memory_env();
    let out = run_ok(&WriteFileTool, &env, json!({"file_path": "notes/day/1.md", "content": "café\n"}));
    assert_eq!(out, "Wrote 6 bytes to notes/day/1.md (new file).");
    assert_eq!(read(&env, "/workspace/notes/day/1.md"), "café\n");
    assert!(block_on(env.stat("/workspace/notes/day")).expect("parent exists").is_dir);
}

#[test]
fn overwrites_an_existing_file_whole() {
    let env = memory_env();
    write(&env, "a.txt", "a long old content\n");
    let out = run_ok(&WriteFileTool, &env, json!({"file_path": "a.txt", "content": "new"}));
    assert_eq!(out, "Wrote 3 bytes to a.txt (overwrote the existing file).");
    assert_eq!(read(&env, "a.txt"), "new");
}

#[test]
fn writes_an_empty_file() {
    let env = memory_env();
    assert_eq!(run_ok(&WriteFileTool, &env, json!({"file_path": "e", "content": ""})), "Wrote 0 bytes to e (new file).");
    assert_eq!(read(&env, "e"), "");
}

#[test]
fn refuses_a_directory() {
    let env = memory_env();
    write(&env, "src/a.rs", "x");
    assert_eq!(
        run_err(&WriteFileTool, &env, json!({"file_path": "src", "content": "y"})),
        "src is a directory. Give the path of a file inside it instead."
    );
    assert_eq!(read(&env, "src/a.rs"), "x");
}

#[test]
fn missing_content_is_named() {
    let env = memory_env();
    assert_eq!(run_err(&WriteFileTool, &env, json!({"file_path": "a.txt"})), "Missing required argument \"content\" (a string).");
    assert!(!block_on(env.file_exists("a.txt")));
}

#[test]
fn append_adds_at_the_end_on_a_line_of_its_own_and_creates_a_missing_file() {
    let env = memory_env();
    write(&env, "calc.py", "def add(a, b):\n    return a + b");
    let args = json!({"file_path": "calc.py", "content": "def sub(a, b):\n    return a - b\n", "append": true});
    let out = run_ok(&WriteFileTool, &env, args);
    assert_eq!(out, "Wrote 32 bytes to calc.py (added at the end of the existing file).");
    assert_eq!(read(&env, "calc.py"), "def add(a, b):\n    return a + b\ndef sub(a, b):\n    return a - b\n");
    let out = run_ok(&WriteFileTool, &env, json!({"file_path": "new.txt", "content": "one\n", "append": true}));
    assert_eq!(out, "Wrote 4 bytes to new.txt (new file).");
    assert_eq!(read(&env, "new.txt"), "one\n");
    // The same text appended twice is there twice: an append is never taken for a repeated write.
    run_ok(&WriteFileTool, &env, json!({"file_path": "new.txt", "content": "one\n", "append": true}));
    assert_eq!(read(&env, "new.txt"), "one\none\n");
}

#[test]
fn append_to_a_binary_file_fails_and_leaves_it_whole() {
    let env = memory_env();
    env.write_bytes("blob.bin", &[0, 159, 146, 150]).unwrap();
    let error = run_err(&WriteFileTool, &env, json!({"file_path": "blob.bin", "content": "x", "append": true}));
    assert!(error.contains("blob.bin"), "{error}");
    assert_eq!(block_on(env.read_bytes("blob.bin")).unwrap(), vec![0, 159, 146, 150]);
}
