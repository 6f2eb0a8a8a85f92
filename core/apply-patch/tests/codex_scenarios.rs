//! Runs codex's apply_patch conformance scenarios against the crate, over a tree held in memory, as
//! their runner contract says (`shared/fixtures/apply_patch_scenarios/NOTICE.md`): load `input/`,
//! apply `patch.txt` (the result is ignored), then the tree must equal `expected/` exactly: the same
//! paths, bytes and directories.
//!
//! Files are changed here as `openagent-core`'s `apply_patch` tool changes them (its own tests cover
//! reading and writing through an environment): all of a patch or none of it, an added file
//! replaces one that is there, and an update or a deletion needs the file.
//!
//! The fixtures live in `shared/fixtures/` beside the repository; `OPENAGENT_FIXTURES` points
//! elsewhere. Without them the test says so and passes.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use openagent_apply_patch::{apply_chunks, parse, Op};

/// A tree as relative paths: files with their bytes, directories with `None`.
type Tree = BTreeMap<String, Option<Vec<u8>>>;

#[test]
fn codex_apply_patch_scenarios() {
    let root = std::env::var_os("OPENAGENT_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures"));
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
    let input = disk_tree(&scenario.join("input"));
    let patch = std::fs::read_to_string(scenario.join("patch.txt")).map_err(|error| error.to_string())?;
    // The contract compares trees only; a refused patch must simply leave the input as it was.
    let actual = apply(&input, &patch).unwrap_or(input);
    let expected = disk_tree(&scenario.join("expected"));
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

/// `tree` with the whole patch applied, or why it cannot be.
fn apply(tree: &Tree, patch: &str) -> Result<Tree, String> {
    let mut tree = tree.clone();
    for op in parse(patch).map_err(|error| error.to_string())? {
        match op {
            Op::Add { path, lines } => put(&mut tree, &path, lines.iter().map(|line| format!("{line}\n")).collect()),
            Op::Delete { path } => {
                tree.remove(&path).flatten().ok_or(format!("no file {path} to delete"))?;
            }
            Op::Update { path, move_to, chunks } => {
                let old = tree.remove(&path).flatten().ok_or(format!("no file {path} to update"))?;
                let old = String::from_utf8(old).map_err(|error| error.to_string())?;
                let new = apply_chunks(&old, &chunks).map_err(|error| format!("{path}: {error:?}"))?;
                put(&mut tree, move_to.as_deref().unwrap_or(&path), new);
            }
        }
    }
    Ok(tree)
}

/// Writes a file, making the directories it is in.
fn put(tree: &mut Tree, path: &str, content: String) {
    for (at, _) in path.match_indices('/') {
        tree.insert(path[..at].to_owned(), None);
    }
    tree.insert(path.to_owned(), Some(content.into_bytes()));
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
