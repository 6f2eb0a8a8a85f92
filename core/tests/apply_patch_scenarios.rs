//! Runs codex's apply_patch conformance scenarios against the `apply_patch` tool over a
//! `MemoryEnvironment`, as their runner contract says (`shared/fixtures/apply_patch_scenarios/NOTICE.md`):
//! load `input/` into the working directory, apply `patch.txt` (the result is ignored), then the
//! working directory must equal `expected/` exactly: the same paths, bytes and directories.
//!
//! The fixtures live in `shared/fixtures/` beside the repository; `OPENAGENT_FIXTURES` points
//! elsewhere. Without them the test says so and passes.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use futures::executor::block_on;
use openagent_core::env::MemoryEnvironment;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::tools::{ApplyPatchTool, ToolContext, ToolExecutor};
use openagent_core::ExecutionEnvironment;
use serde_json::json;

/// A tree as relative paths: files with their bytes, directories with `None`.
type Tree = BTreeMap<String, Option<Vec<u8>>>;

#[test]
fn codex_apply_patch_scenarios() {
    let root = std::env::var_os("OPENAGENT_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures"));
    let dir = root.join("apply_patch_scenarios");
    if !dir.is_dir() {
        println!("skipped: apply_patch scenarios not found at {}", dir.display());
        return;
    }
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("scenario directory is readable")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.join("patch.txt").is_file())
        .collect();
    scenarios.sort();
    assert!(!scenarios.is_empty(), "no scenarios in {}", dir.display());

    println!("{:<45} result", "scenario");
    let mut failures = Vec::new();
    for scenario in &scenarios {
        let name = scenario.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        match run(scenario) {
            Ok(()) => println!("{name:<45} pass"),
            Err(diff) => {
                println!("{name:<45} FAIL");
                failures.push(format!("{name}: {diff}"));
            }
        }
    }
    println!("{} of {} scenarios pass", scenarios.len() - failures.len(), scenarios.len());
    assert!(failures.is_empty(), "failing scenarios:\n{}", failures.join("\n"));
}

fn run(scenario: &Path) -> Result<(), String> {
    let env = MemoryEnvironment::new(Rc::new(VirtualRuntime::new(|_| {})));
    for (path, content) in disk_tree(&scenario.join("input")) {
        match content {
            Some(bytes) => env.write_bytes(&path, &bytes),
            None => env.mkdir_p(&path),
        }
        .map_err(|error| format!("loading input {path}: {error}"))?;
    }
    let patch = std::fs::read_to_string(scenario.join("patch.txt")).map_err(|error| error.to_string())?;
    let ctx = ToolContext { env: &env, default_command_timeout_ms: 10_000, max_command_timeout_ms: 600_000, on_output: None };
    // The contract compares trees only; a refused patch must simply leave the input as it was.
    let _ = block_on(ApplyPatchTool.execute(&json!({ "patch": patch }), &ctx));

    let expected = disk_tree(&scenario.join("expected"));
    let actual = memory_tree(&env);
    if actual == expected {
        return Ok(());
    }
    let show = |tree: &Tree| -> Vec<String> {
        tree.iter()
            .map(|(path, content)| match content {
                Some(bytes) => format!("{path} = {:?}", String::from_utf8_lossy(bytes)),
                None => format!("{path}/"),
            })
            .collect()
    };
    Err(format!("expected {:?}, got {:?}", show(&expected), show(&actual)))
}

/// Everything under `dir` on disk; an absent directory is an empty tree.
fn disk_tree(dir: &Path) -> Tree {
    let mut tree = Tree::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else { continue };
        for entry in entries {
            let path = entry.expect("directory entry").path();
            let relative = path.strip_prefix(dir).expect("under the root").to_string_lossy().replace('\\', "/");
            if path.is_dir() {
                tree.insert(relative, None);
                pending.push(path);
            } else {
                tree.insert(relative, Some(std::fs::read(&path).expect("fixture file is readable")));
            }
        }
    }
    tree
}

/// Everything under the environment's working directory.
fn memory_tree(env: &MemoryEnvironment) -> Tree {
    let entries = block_on(env.list_directory(".", usize::MAX)).expect("working directory lists");
    let mut tree = Tree::new();
    for entry in entries {
        let content = if entry.is_dir { None } else { Some(env.read_bytes_sync(&entry.name).expect("listed file reads")) };
        tree.insert(entry.name, content);
    }
    tree
}
