//! The agent's file tools on the real machine: a FIFO or a device read is a tool error at once
//! (before, a FIFO blocked the run so that no signal could stop it, and `/dev/zero` grew the
//! process without end), and writes outside the working directory are refused and leave nothing
//! there. The run goes on to its answer.

use std::ffi::CString;
use std::os::unix::fs::symlink;

use openagent_tests::{Reply, Step};
use serde_json::json;

use super::{call, ANSWER, TASK};
use openagent_tests::cli::Sandbox;
use openagent_tests::over_http::serve;

#[test]
fn special_files_and_paths_outside_are_tool_errors_and_the_run_completes() {
    let sandbox = Sandbox::new();
    let fifo = CString::new(sandbox.cwd().join("pipe").display().to_string()).expect("no NUL in the path");
    // SAFETY: mkfifo reads the NUL-terminated path it is given.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0, "a FIFO in the working directory");
    symlink(sandbox.path(""), sandbox.cwd().join("up")).expect("a symlink out of the working directory");
    let server = serve([
        call("toolu_fifo", "read_file", json!({"file_path": "pipe"})),
        call("toolu_zero", "read_file", json!({"file_path": "/dev/zero"})),
        call("toolu_dotdot", "write_file", json!({"file_path": "../planted.txt", "content": "x"})),
        call("toolu_link", "write_file", json!({"file_path": "up/planted.txt", "content": "x"})),
        Step::reply(Reply::text(ANSWER)),
    ]);
    let run = sandbox.run_json(&server, TASK, &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let results = run.data_of("tool_exec_finished");
    let boundary = format!("outside the working directory {}", sandbox.cwd().display());
    let expected = [
        ("toolu_fifo", "it is a FIFO (named pipe); only regular files are read"),
        ("toolu_zero", "it is a character device; only regular files are read"),
        ("toolu_dotdot", boundary.as_str()),
        ("toolu_link", "it resolves to"),
    ];
    assert_eq!(results.len(), expected.len(), "{results:?}");
    for (result, (id, says)) in results.iter().zip(expected) {
        let preview = result["content_preview"].as_str().unwrap_or_default();
        assert_eq!((result["call_id"].as_str(), result["ok"].as_bool()), (Some(id), Some(false)), "{result}");
        assert!(preview.contains(says), "{id}: {preview}");
    }
    assert!(!sandbox.path("planted.txt").exists(), "nothing is written outside");
}
