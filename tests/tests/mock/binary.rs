//! The `mock-llm` binary, as the browser tests will run it.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use openagent_core::llm::http::HttpRequest;

use crate::support::send;

fn script_file(name: &str, json: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("mock-llm-{}-{name}.json", std::process::id()));
    std::fs::write(&path, json).expect("write the script");
    path
}

/// Kills the server when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn mock_llm_serves_a_script_file_until_killed() {
    let script = script_file("serves", r#"[{"reply": {"text": "from the binary"}}]"#);
    let mut server = Running(
        Command::new(env!("CARGO_BIN_EXE_mock-llm"))
            .args(["--script".as_ref(), script.as_os_str(), "--port".as_ref(), "0".as_ref()])
            .stdout(Stdio::piped())
            .spawn()
            .expect("start mock-llm"),
    );
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().expect("stdout")).read_line(&mut line).expect("the listening line");
    let base_url =
        line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("unexpected first line {line:?}")).to_owned();
    // Read the whole answer before the server goes away.
    let request = HttpRequest::post_json(format!("{base_url}/v1/chat/completions"), b"{}".to_vec());
    let body = send(request).and_then(|response| futures::executor::block_on(response.bytes()));
    drop(server);
    let _ = std::fs::remove_file(&script);
    let completion: serde_json::Value = serde_json::from_slice(&body.expect("an answer")).expect("JSON");
    assert_eq!(completion["choices"][0]["message"]["content"], "from the binary");
}

#[test]
fn mock_llm_rejects_a_bad_script_naming_the_step() {
    let script = script_file("bad", r#"[{"reply": {"text": "ok"}}, {"fault": "explode"}]"#);
    let output = Command::new(env!("CARGO_BIN_EXE_mock-llm")).arg("--script").arg(&script).output().expect("run mock-llm");
    let _ = std::fs::remove_file(&script);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("step 2") && stderr.contains("drop_mid_stream"), "{stderr}");
}
