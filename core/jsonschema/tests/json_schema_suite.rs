//! Runs the official JSON-Schema-Test-Suite (draft 2020-12) against this crate.
//!
//! The fixtures live in `shared/fixtures/json_schema_test_suite/` beside the repository (CI clones
//! them there); `OPENAGENT_FIXTURES` points elsewhere. Without them the test says so and passes.
//! Every case must pass except those in `UNSUPPORTED`, which are skipped with the reason.
//! Each case is checked with both `is_valid` and `validate`, which must agree.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

use openagent_jsonschema::Schema;
use serde_json::Value;

/// Files or groups (`file`, `Some(group description)`) that need what the validator deliberately
/// leaves out (see the crate doc).
const UNSUPPORTED: &[(&str, Option<&str>, &str)] = &[
    ("dynamicRef.json", None, "$dynamicRef is not supported"),
    ("unevaluatedItems.json", Some("unevaluatedItems with $dynamicRef"), "$dynamicRef is not supported"),
    ("unevaluatedProperties.json", Some("unevaluatedProperties with $dynamicRef"), "$dynamicRef is not supported"),
    ("refRemote.json", None, "remote references are not supported"),
    ("ref.json", Some("remote ref, containing refs itself"), "needs the 2020-12 meta-schema (remote)"),
    ("defs.json", Some("validate definition against metaschema"), "needs the 2020-12 meta-schema (remote)"),
    ("vocabulary.json", None, "$vocabulary is not supported (needs remote meta-schemas)"),
    (
        "pattern.json",
        Some("pattern with Unicode property escape requires unicode mode"),
        "regex-lite has no Unicode property classes (\\p{Letter})",
    ),
    (
        "patternProperties.json",
        Some("patternProperties with Unicode property escape"),
        "regex-lite has no Unicode property classes (\\p{Letter})",
    ),
];

/// Files of `optional/` that are cheap to support and so must pass too.
/// Files of `optional/` that pass and so must keep passing. Left out: `cross-draft.json` and
/// `format-assertion.json` (remote meta-schemas), `dependencies-compatibility.json` (draft 7's
/// `dependencies`), `dynamicRef.json`; `ecmascript-regex.json` is only reported (see below).
const OPTIONAL: &[&str] = &[
    "anchor.json",
    "bignum.json",
    "float-overflow.json",
    "id.json",
    "no-schema.json",
    "non-bmp-regex.json",
    "refOfUnknownKeyword.json",
    "unknownKeyword.json",
];

/// Run and counted, but not required: `pattern` is regex-lite, not ECMA-262 (see the crate doc).
const REPORTED_ONLY: &[&str] = &["ecmascript-regex.json"];

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
}

#[test]
fn json_schema_test_suite_draft2020_12() {
    let root = std::env::var_os("OPENAGENT_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures"));
    let dir = root.join("json_schema_test_suite/draft2020-12");
    if !dir.is_dir() {
        println!("skipped: fixtures not found at {}", dir.display());
        return;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixture directory is readable")
        .map(|entry| entry.expect("fixture directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.extend(OPTIONAL.iter().map(|name| dir.join("optional").join(name)));
    files.sort();
    files.extend(REPORTED_ONLY.iter().map(|name| dir.join("optional").join(name)));

    let mut failures = Vec::new();
    let mut total = Tally::default();
    println!("{:<40} {:>6} {:>6} {:>7}", "file", "passed", "failed", "skipped");
    for path in &files {
        let name = path.strip_prefix(&dir).expect("file under the fixture directory").display().to_string();
        let reported_only = REPORTED_ONLY.iter().any(|file| name.ends_with(file));
        let mut file_failures = Vec::new();
        let tally = run_file(path, &name, &mut file_failures);
        let note = if reported_only { "  (reported only, not required)" } else { "" };
        println!("{name:<40} {:>6} {:>6} {:>7}{note}", tally.passed, tally.failed, tally.skipped);
        if reported_only {
            continue;
        }
        failures.append(&mut file_failures);
        total.passed += tally.passed;
        total.failed += tally.failed;
        total.skipped += tally.skipped;
    }
    println!("{:<40} {:>6} {:>6} {:>7}", "total (required)", total.passed, total.failed, total.skipped);
    for (file, group, reason) in UNSUPPORTED {
        println!("skipped {file}{}: {reason}", group.map(|g| format!(" / {g}")).unwrap_or_default());
    }
    assert!(failures.is_empty(), "{} failing cases:\n{}", failures.len(), failures.join("\n"));
}

fn run_file(path: &Path, name: &str, failures: &mut Vec<String>) -> Tally {
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
    let groups: Vec<Value> = serde_json::from_str(&text).unwrap_or_else(|error| panic!("parsing {name}: {error}"));
    let mut tally = Tally::default();
    for group in &groups {
        let description = group["description"].as_str().unwrap_or_default();
        let tests = group["tests"].as_array().map(Vec::as_slice).unwrap_or_default();
        let skipped = UNSUPPORTED.iter().any(|(file, only, _)| *file == name && only.is_none_or(|only| only == description));
        if skipped {
            tally.skipped += tests.len();
            continue;
        }
        let schema = match Schema::compile(&group["schema"]) {
            Ok(schema) => schema,
            Err(error) => {
                tally.failed += tests.len();
                failures.push(format!("{name} / {description}: does not compile: {error}"));
                continue;
            }
        };
        for test in tests {
            let expected = test["valid"].as_bool().unwrap_or_default();
            let data = &test["data"];
            let checked = schema.is_valid(data);
            let validated = schema.validate(data);
            if checked == expected && validated.is_ok() == expected {
                tally.passed += 1;
            } else {
                tally.failed += 1;
                failures.push(format!(
                    "{name} / {description} / {}: expected valid={expected}, is_valid={checked}, validate={validated:?}",
                    test["description"].as_str().unwrap_or_default()
                ));
            }
        }
    }
    tally
}
