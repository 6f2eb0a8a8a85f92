#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use async_trait::async_trait;
use serde_json::{json, Value};

use crate::testing::{memory_env, run, run_err, run_ok, write};
use openagent_core::env::{DirEntry, EnvError, ExecOptions, ExecResult, ExecutionEnvironment, FileInfo, GrepOptions};
use openagent_core::llm::MediaData;
use openagent_core::tools::ReadFileTool;
use openagent_memenv::MemoryEnvironment;

fn numbered(count: usize) -> String {
    (1..=count).map(|n| format!("line {n}\n")).collect()
}

#[test]
fn numbers_every_line() {
    let env = memory_env();
    write(&env, "src/a.rs", "fn main() {\n    run();\n}\n");
    let out = run_ok(&ReadFileTool, &env, json!({"file_path": "src/a.rs"}));
    assert_eq!(out, "   1 | fn main() {\n   2 |     run();\n   3 | }");
}

#[test]
fn a_last_line_without_newline_and_crlf_endings_read_the_same() {
    let env = memory_env();
    write(&env, "/workspace/w.txt", "one\r\ntwo\r\nthree");
    let out = run_ok(&ReadFileTool, &env, json!({"file_path": "/workspace/w.txt"}));
    assert_eq!(out, "   1 | one\n   2 | two\n   3 | three");
}

#[test]
fn offset_and_limit_select_lines_and_say_where_to_go_on() {
    let env = memory_env();
    write(&env, "f.txt", &numbered(5));
    let out = run_ok(&ReadFileTool, &env, json!({"file_path": "f.txt", "offset": 2, "limit": 2}));
    assert_eq!(out, "   2 | line 2\n   3 | line 3\n[Showing lines 2-3; the file goes on. Use offset=4 to read more.]");
    let rest = run_ok(&ReadFileTool, &env, json!({"file_path": "f.txt", "offset": 4}));
    assert_eq!(rest, "   4 | line 4\n   5 | line 5");
    let to_the_end = run_ok(&ReadFileTool, &env, json!({"file_path": "f.txt", "offset": 4, "limit": 2}));
    assert_eq!(to_the_end, "   4 | line 4\n   5 | line 5");
}

#[test]
fn reads_2000_lines_by_default() {
    let env = memory_env();
    write(&env, "big.txt", &numbered(2500));
    let out = run_ok(&ReadFileTool, &env, json!({"file_path": "big.txt"}));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2001);
    assert_eq!(lines[0], "   1 | line 1");
    assert_eq!(lines[1999], "2000 | line 2000");
    assert_eq!(lines[2000], "[Showing lines 1-2000; the file goes on. Use offset=2001 to read more.]");
}

#[test]
fn line_numbers_widen_past_four_digits() {
    let env = memory_env();
    write(&env, "big.txt", &numbered(10_001));
    let out = run_ok(&ReadFileTool, &env, json!({"file_path": "big.txt", "offset": 9999, "limit": 3}));
    assert_eq!(out, " 9999 | line 9999\n10000 | line 10000\n10001 | line 10001");
}

#[test]
fn an_empty_file_says_so() {
    let env = memory_env();
    write(&env, "empty.txt", "");
    assert_eq!(run_ok(&ReadFileTool, &env, json!({"file_path": "empty.txt"})), "empty.txt is empty.");
}

#[test]
fn an_offset_past_the_end_is_an_error() {
    let env = memory_env();
    write(&env, "f.txt", &numbered(3));
    assert_eq!(
        run_err(&ReadFileTool, &env, json!({"file_path": "f.txt", "offset": 4})),
        "offset 4 is past the end of f.txt, which has fewer than 4 lines. Use a smaller offset, or read it from the start."
    );
}

#[test]
fn long_lines_are_cut_on_a_character_boundary() {
    let env = memory_env();
    write(&env, "min.js", &format!("{}\nshort\n", "é".repeat(2600)));
    let out = run_ok(&ReadFileTool, &env, json!({"file_path": "min.js"}));
    let expected = format!("   1 | {}... [line cut: 600 more characters]\n   2 | short", "é".repeat(2000));
    assert_eq!(out, expected);
}

#[test]
fn text_with_nul_bytes_is_binary() {
    let env = memory_env();
    write(&env, "/workspace/data.bin", "ab\0cd");
    assert_eq!(
        run_err(&ReadFileTool, &env, json!({"file_path": "/workspace/data.bin"})),
        "/workspace/data.bin is a binary file; it cannot be shown as text. Only text files and images can be read."
    );
}

#[test]
fn non_utf8_files_are_binary() {
    let env = memory_env();
    env.write_bytes("latin1.txt", &[b'c', 0xe9]).expect("written");
    assert_eq!(
        run_err(&ReadFileTool, &env, json!({"file_path": "latin1.txt"})),
        "/workspace/latin1.txt is a binary file; it cannot be shown as text. Only text files and images can be read."
    );
}

#[test]
fn a_missing_file_suggests_glob() {
    let env = memory_env();
    assert_eq!(
        run_err(&ReadFileTool, &env, json!({"file_path": "/workspace/nope.rs"})),
        "file not found: /workspace/nope.rs. Check the path, or use glob to find the file."
    );
}

#[test]
fn a_directory_suggests_listing_it() {
    let env = memory_env();
    write(&env, "/workspace/src/a.rs", "x");
    assert_eq!(
        run_err(&ReadFileTool, &env, json!({"file_path": "/workspace/src"})),
        "/workspace/src is a directory, not a file. Use glob (or `ls` in the shell) to list its files, \
         then read one of them."
    );
}

#[test]
fn images_come_back_as_media() {
    let env = memory_env();
    write(&env, "img/logo.GIF", "GIF89a");
    let out = run(&ReadFileTool, &env, json!({"file_path": "img/logo.GIF"})).expect("image read");
    assert_eq!(out.text, "Image img/logo.GIF (image/gif, 6 bytes).");
    let image = out.image.expect("image attached");
    assert_eq!(image.data.as_deref(), Some(&b"GIF89a"[..]));
    assert_eq!(image.media_type.as_deref(), Some("image/gif"));
}

#[test]
fn binary_image_bytes_are_returned_unchanged() {
    let env = memory_env();
    let png = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0];
    env.write_bytes("shot.png", &png).expect("written");
    let out = run(&ReadFileTool, &env, json!({"file_path": "shot.png"})).expect("image read");
    assert_eq!(out.text, "Image shot.png (image/png, 9 bytes).");
    let expected = MediaData { data: Some(png.to_vec()), media_type: Some("image/png".into()), ..MediaData::default() };
    assert_eq!(out.image, Some(expected));
}

/// The memory environment, seen as one that reads by I/O: without `shared_text`, so that
/// `read_file` takes the path every other environment takes.
struct ReadOnlyThroughReadFile(MemoryEnvironment);

#[async_trait(?Send)]
impl ExecutionEnvironment for ReadOnlyThroughReadFile {
    async fn read_file(&self, path: &str, offset: Option<usize>, limit: Option<usize>) -> Result<String, EnvError> {
        self.0.read_file(path, offset, limit).await
    }
    async fn read_bytes(&self, path: &str) -> Result<Vec<u8>, EnvError> {
        self.0.read_bytes(path).await
    }
    async fn write_file(&self, path: &str, content: &str) -> Result<(), EnvError> {
        self.0.write_file(path, content).await
    }
    async fn remove_file(&self, path: &str) -> Result<(), EnvError> {
        self.0.remove_file(path).await
    }
    async fn stat(&self, path: &str) -> Result<FileInfo, EnvError> {
        self.0.stat(path).await
    }
    async fn list_directory(&self, path: &str, depth: usize) -> Result<Vec<DirEntry>, EnvError> {
        self.0.list_directory(path, depth).await
    }
    async fn exec_command(&self, command: &str, options: &ExecOptions) -> Result<ExecResult, EnvError> {
        self.0.exec_command(command, options).await
    }
    async fn grep(&self, pattern: &str, path: &str, options: &GrepOptions) -> Result<String, EnvError> {
        self.0.grep(pattern, path, options).await
    }
    async fn glob(&self, pattern: &str, path: &str) -> Result<Vec<String>, EnvError> {
        self.0.glob(pattern, path).await
    }
    fn working_directory(&self) -> String {
        self.0.working_directory()
    }
    fn platform(&self) -> String {
        self.0.platform()
    }
    fn os_version(&self) -> String {
        self.0.os_version()
    }
}

#[test]
fn a_file_in_memory_reads_as_it_does_through_read_file() {
    let env = memory_env();
    let files = [
        ("short.txt", numbered(12)),
        ("crlf.txt", "one\r\ntwo\r\n\r\nthree".into()),
        ("empty.txt", String::new()),
        ("blank_lines.txt", "\n\n\n".into()),
        ("wide.txt", numbered(10_003)),
        ("nul.txt", "text\nmore\0text\n".into()),
    ];
    for (path, text) in &files {
        write(&env, path, text);
    }
    env.write_bytes("bytes.bin", &[b'c', 0xe9]).expect("written");
    let through_read_file = ReadOnlyThroughReadFile(env);
    let in_memory = &through_read_file.0;
    assert!(in_memory.shared_text("short.txt").is_some() && through_read_file.shared_text("short.txt").is_none());
    let reads = [
        (None, None),
        (Some(1), Some(1)),
        (Some(2), Some(3)),
        (Some(12), Some(5)),
        (Some(13), None),
        (Some(40), Some(2)),
        (Some(9_998), Some(4)),
        (Some(10_003), Some(1)),
        (None, Some(50_000)),
    ];
    for path in files.iter().map(|(path, _)| *path).chain(["missing.txt", "/workspace", "bytes.bin"]) {
        for (offset, limit) in reads {
            let args = json!({"file_path": path, "offset": offset, "limit": limit});
            let args = Value::Object(
                args.as_object().unwrap().iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect(),
            );
            let shared = run(&ReadFileTool, in_memory, args.clone()).map(|out| out.text).map_err(|e| e.0);
            let read = run(&ReadFileTool, &through_read_file, args.clone()).map(|out| out.text).map_err(|e| e.0);
            assert_eq!(shared, read, "{args}");
        }
    }
}
