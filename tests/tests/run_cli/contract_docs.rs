//! The native README documents the `openagent.run_event.v1` contract in a table of its types; that
//! table must name the core's list ([`openagent_core::run_event::TYPES`]) and the streamed
//! `text_delta`, no more and no fewer, so the docs cannot drift from what the CLI writes.

use std::collections::BTreeSet;

use openagent_core::run_event::{SCHEMA_VERSION, TEXT_DELTA, TYPES};

const README: &str = include_str!("../../../native/README.md");

/// The first column of the table headed `| type | from internal | `data` |`, without backticks.
fn documented_types() -> BTreeSet<&'static str> {
    let (_, table) = README.split_once("| type | from internal | `data` |\n|---|---|---|\n").expect("the README's v1 type table");
    let rows = table.lines().take_while(|line| line.starts_with("| `"));
    rows.filter_map(|row| row.strip_prefix("| `")?.split_once('`').map(|(name, _)| name)).collect()
}

#[test]
fn the_readme_documents_exactly_the_v1_types() {
    let expected: BTreeSet<&str> = TYPES.iter().copied().chain([TEXT_DELTA]).collect();
    assert_eq!(documented_types(), expected, "native/README.md's table of v1 types differs from openagent_core::run_event");
    assert!(README.contains(&format!("## The JSON contract: `{SCHEMA_VERSION}`")), "the README names the schema version");
}
