//! For each way a config can be wrong, the problem it gets: its field, its line, what to change.

use super::*;

#[test]
fn missing_fields_are_named() {
    assert_eq!(problem("schema: openagent.agent/1\nid: a\n").field, "name", "the first missing one");
    assert_eq!(problem(&with("output: {}\n")).field, "output.schema");

    let empty = problem("  \n");
    assert!(empty.message.starts_with("the file is empty: an agent config is a YAML mapping"), "{empty:?}");
    let p = problem(&MINIMAL.replace("name: A", "name:"));
    assert_eq!((p.field.as_str(), p.message.as_str()), ("name", "is empty: give it a value"), "a key without a value");
    assert_eq!(problem(&MINIMAL.replace("name: A", "name: \"  \"")).message, "is empty: give it a value");
}

#[test]
fn wrong_types_say_what_was_expected_and_where() {
    let p = problem(&with("limits:\n  max_turns: ten\n"));
    assert_eq!(at(&p), ("limits.max_turns", Some(7)));
    assert_eq!(p.message, "invalid type: a string, expected a whole number");
    let p = problem(&with("limits:\n  max_result_attempts: -1\n"));
    assert_eq!(at(&p), ("limits.max_result_attempts", Some(7)));
    let p = problem(&with("tools: read_file\n"));
    assert_eq!((at(&p), p.message.contains("expected a sequence")), (("tools", Some(6)), true), "{p:?}");
    let p = problem("- schema\n- id\n");
    assert!(p.message.starts_with("invalid type: sequence") && p.message.contains("a YAML mapping"), "{p:?}");
}

#[test]
fn mcp_servers_are_checked_where_they_are_written() {
    let p = problem(&with("mcp_servers:\n  docs:\n    url: ftp://example\n"));
    assert_eq!(at(&p), ("mcp_servers", Some(6)));
    assert!(p.message.contains("server `docs` `url` is `ftp://example`: give an http:// or https:// URL"), "{p:?}");
    let p = problem(&with("mcp_servers:\n  docs:\n    comand: npx\n"));
    assert!(p.message.contains("is not a key of this format"), "{p:?}");
}

#[test]
fn unknown_keys_are_errors_at_every_level() {
    let p = problem(&with("tols: [read_file]\n"));
    assert_eq!(at(&p), ("tols", Some(6)));
    assert!(p.message.starts_with("is not a key of this format (the keys here are `schema`, `id`"), "{p:?}");
    assert!(
        p.message.ends_with(
            "`tools`, `limits`, `output`, `mcp_servers`, `permissions`, `sandbox`, `hooks`): remove it or correct its spelling"
        ),
        "{p:?}"
    );
    let p = problem(&with("limits:\n  max_turns: 3\n  max_trns: 3\n"));
    assert_eq!(at(&p), ("limits.max_trns", Some(8)));
    assert!(
        p.message.contains("`max_turns`, `max_tool_rounds`, `max_result_attempts`, `max_output_tokens`, `command_timeout_ms`"),
        "{p:?}"
    );
    assert_eq!(problem(&with("output:\n  schma: {type: object}\n")).field, "output.schma");
    assert_eq!(problem(&with("id: b\n")).message, "is given twice: keep one");
}

#[test]
fn output_schemas_must_be_object_schemas_that_compile() {
    let p = problem(&with("output:\n  schema:\n    type: array\n"));
    assert_eq!(at(&p), ("output.schema", Some(6)));
    assert!(p.message.starts_with("cannot be the result's schema:") && p.message.contains("\"type\": \"object\""), "{p:?}");
    let p = problem(&with("output:\n  schema:\n    type: object\n    properties:\n      n: { minimum: ten }\n"));
    assert_eq!(p.message, "cannot be the result's schema: invalid schema at /properties/n/minimum: must be a number");
    let dangling = with("output:\n  schema:\n    type: object\n    properties:\n      a: { $ref: '#/$defs/missing' }\n");
    assert!(problem(&dangling).message.contains("#/$defs/missing"), "{:?}", problem(&dangling));
}

#[test]
fn unknown_tools_are_refused_listing_the_profiles_tools() {
    let p = problem(&with("tools:\n  - read_file\n  - shel\n"));
    assert_eq!(at(&p), ("tools[1]", Some(8)));
    assert_eq!(
        p.message,
        "unknown tool `shel`; the general profile's tools are read_file, write_file, edit_file, shell, grep, glob, \
         and the subagent tools spawn_agent, send_input, wait, close_agent"
    );
    // The tools depend on the profile: apply_patch is OpenAI's, not the general profile's.
    assert_eq!(problem(&with("tools: [apply_patch]\n")).field, "tools[0]");
    assert!(parse(&with("profile: openai\ntools: [apply_patch]\n"), "a").is_ok());
    assert!(parse(
        &MINIMAL.replace("openai-compatible", "openai").replace("model: m", "model: gpt-5.2\ntools: [apply_patch]"),
        "a"
    )
    .is_ok());
    assert!(parse(&with("tools: []\n"), "a").is_ok(), "no tools at all is a choice");
}

#[test]
fn names_are_checked_and_every_problem_is_reported() {
    let text = "schema: openagent.agent/2\nid: b\nname: A\nprovider: openia\nmodel: m\nprofile: claude\n";
    let problems = parse(text, "a").expect_err("refused");
    let fields: Vec<_> = problems.iter().map(|p| (p.field.as_str(), p.line)).collect();
    assert_eq!(fields, [("schema", Some(1)), ("id", Some(2)), ("provider", Some(4)), ("profile", Some(6))]);
    assert_eq!(problems[0].message, "is `openagent.agent/2`; this openagent reads `openagent.agent/1`");
    assert!(problems[1].message.starts_with("is `b` but the directory is `a`: make them the same"), "{problems:?}");
    assert!(problems[2].message.contains("the providers are openai, anthropic, gemini and openai-compatible"));
    assert_eq!(problems[3].message, "unknown profile `claude`; the profiles are openai, anthropic, gemini and general");
    assert_eq!(problem(&with("limits: { max_result_attempts: 0 }\n")).field, "limits.max_result_attempts");
}

#[test]
fn yaml_syntax_errors_give_their_line() {
    let p = problem("schema: openagent.agent/1\nid: a\nname: A\n  provider: x\nmodel: m\n");
    assert_eq!(at(&p), ("", Some(4)));
    assert_eq!(p.message, "not valid YAML: mapping values are not allowed in this context");
    let p = problem("schema: openagent.agent/1\nid: a\nname: \"A\nprovider: x\n");
    assert!(p.line.is_some() && p.message.starts_with("not valid YAML"), "{p:?}");
    let p = problem(&with("tools: [read_file\nlimits: {}\n"));
    assert!(p.line >= Some(6) && p.message.starts_with("not valid YAML"), "{p:?}");
}

#[test]
fn an_unknown_approval_mode_is_refused_with_its_line() {
    let p = problem(&with("permissions:\n  mode: yolo\n"));
    assert_eq!(at(&p), ("permissions.mode", Some(7)), "{p:?}");
    assert!(p.message.contains("read-only") && p.message.contains("full-auto"), "the modes are listed: {p:?}");
    let p = problem(&with("permissions:\n  rules:\n    - { tool: shell, decision: maybe }\n"));
    assert_eq!(p.line, Some(8), "{p:?}");
    assert!(p.message.contains("allow") && p.message.contains("deny"), "{p:?}");
}

#[test]
fn a_bad_rule_pattern_is_refused_naming_the_rule_and_its_line() {
    let text = with("permissions:\n  rules:\n    - { tool: shell, decision: ask }\n    - { tool: write_file, path: \"src**\", decision: allow }\n");
    let p = problem(&text);
    assert_eq!(at(&p), ("permissions.rules[1].path", Some(9)), "{p:?}");
    assert!(p.message.contains("whole path segment"), "{p:?}");
    let p = problem(&with("permissions:\n  rules:\n    - tool: read_file\n      command: ls\n      decision: allow\n"));
    assert_eq!(at(&p), ("permissions.rules[0].command", Some(9)), "{p:?}");
    assert!(p.message.contains("`command` applies to the `shell` tool only"), "{p:?}");
}

/// Four problems of four kinds (a check after serde's, an unknown key, an unknown mode, an unknown
/// decision in a rule): all four, each with its line, in the order of the file.
#[test]
fn every_problem_is_reported_at_once_each_with_its_line() {
    let text = "\
schema: openagent.agent/1
id: a
name: A
provider: openia
colour: blue
permissions:
  mode: yolo
  rules:
    - { tool: read_file, decision: allow }
    - { tool: shell, decision: maybe }
    - { tool: grep, path: \"src**\", decision: allow }
";
    let problems = parse(text, "a").expect_err("refused");
    let found: Vec<_> = problems.iter().map(at).collect();
    assert_eq!(
        found,
        [
            ("provider", Some(4)),
            ("colour", Some(5)),
            ("permissions.mode", Some(7)),
            ("permissions.rules[1].decision", Some(10)),
            ("permissions.rules[2].path", Some(11)),
        ],
        "{problems:#?}"
    );
    assert!(problems[0].message.contains("openia"), "{:?}", problems[0]);
    assert!(problems[1].message.starts_with("is not a key of this format (the keys here are `schema`"), "{:?}", problems[1]);
    assert!(problems[2].message.contains("unknown variant"), "{:?}", problems[2]);
    assert!(problems[2].message.contains("read-only"), "{:?}", problems[2]);
    assert!(problems[3].message.contains("unknown variant") && problems[3].message.contains("`allow`"), "{:?}", problems[3]);
}

/// Past twenty, the rest are counted.
#[test]
fn problems_past_twenty_are_counted() {
    let keys: String = (0..25).map(|n| format!("extra_{n}: 1\n")).collect();
    let problems = parse(&with(&keys), "a").expect_err("refused");
    assert_eq!(problems.len(), 21, "{problems:#?}");
    assert_eq!(at(&problems[19]), ("extra_19", Some(25)));
    assert_eq!(problems[20].message, "and 5 more problems: fix these to see the rest");
}

/// What YAML reads as a string (`3`, `true`) is no problem beside a real one; a wrong list item
/// has its own line.
#[test]
fn the_other_problems_are_only_real_ones() {
    let text = with("instructions: 3\nmcp_servers: { x: { command: true } }\ntools:\n  - read_file\n  - [grep]\ncolour: blue\n");
    let problems = parse(&text, "a").expect_err("refused");
    let found: Vec<_> = problems.iter().map(at).collect();
    assert_eq!(found, [("tools[1]", Some(10)), ("colour", Some(11))], "{problems:#?}");
}
