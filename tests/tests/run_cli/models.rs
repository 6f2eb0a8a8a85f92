//! `openagent models`: the catalog with the directory's `.openagent/models.json` over it.

use std::process::Stdio;

use serde_json::Value;

use openagent_tests::cli::{Running, Sandbox};

fn models(sandbox: &Sandbox, args: &[&str]) -> openagent_tests::cli::Finished {
    let mut command = sandbox.bare(None, &[&["models"], args].concat());
    command.arg("--cwd").arg(sandbox.cwd());
    Running::start(command).finish()
}

fn write_models(sandbox: &Sandbox, text: &str) {
    std::fs::create_dir_all(sandbox.cwd().join(".openagent")).unwrap();
    std::fs::write(sandbox.cwd().join(".openagent/models.json"), text).unwrap();
}

#[test]
fn the_catalog_lists_with_a_local_model_added_and_a_price_changed() {
    let sandbox = Sandbox::new();
    write_models(
        &sandbox,
        r#"{"models": [{"id": "qwen3-coder", "provider": "openai-compatible", "context_window": 65536,
            "input_cost_per_million": 0, "output_cost_per_million": 0},
           {"id": "gpt-5.2", "input_cost_per_million": 1.5}]}"#,
    );
    let table = models(&sandbox, &["--provider", "openai-compatible"]);
    assert_eq!(table.code, Some(0), "{table:?}");
    assert!(table.stdout.lines().nth(1).unwrap_or_default().starts_with("qwen3-coder "), "{table:?}");
    let json = models(&sandbox, &["--json"]);
    let listed: Value = serde_json::from_str(json.stdout.trim()).unwrap();
    let gpt = listed["models"].as_array().unwrap().iter().find(|m| m["id"] == "gpt-5.2").cloned().unwrap();
    assert_eq!((&gpt["input_cost_per_million"], &gpt["output_cost_per_million"]), (&1.5.into(), &14.0.into()));
    assert!(listed["prices_as_of"].as_str().is_some_and(|day| day.len() == 10), "{listed}");
}

#[test]
fn a_broken_models_json_or_unknown_provider_exits_2_naming_what_is_wrong() {
    let sandbox = Sandbox::new();
    write_models(&sandbox, "{\"models\": [\n  {\"id\": \"o3\",\n   \"supports_vision\": \"yes\"}]}");
    let broken = models(&sandbox, &[]);
    assert_eq!(broken.code, Some(2), "{broken:?}");
    assert!(
        broken
            .stderr
            .contains(".openagent/models.json:3: models[0].supports_vision: invalid type: string \"yes\", expected a boolean"),
        "{broken:?}"
    );
    // A run in that directory stops before any request, with the same words.
    let run = sandbox.run_json(&openagent_tests::over_http::serve([]), "hi", &[]);
    assert_ne!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.contains("models[0].supports_vision"), "{run:?}");

    std::fs::remove_file(sandbox.cwd().join(".openagent/models.json")).unwrap();
    let unknown = models(&sandbox, &["--provider", "mistral"]);
    assert_eq!((unknown.code, unknown.stderr.trim()), (Some(2), "error: no models of provider `mistral` in the catalog"));
}

/// `openagent models` and `openagent mcp list` with their reader gone (`| head`): no panic.
#[test]
fn a_reader_that_closes_early_is_no_error() {
    let sandbox = Sandbox::new();
    for args in [&["models"][..], &["mcp", "list"]] {
        let mut command = sandbox.bare(None, args);
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("openagent starts");
        drop(child.stdout.take());
        let output = child.wait_with_output().expect("it ends");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success() && !stderr.contains("panicked"), "{args:?}: {output:?}");
    }
}
