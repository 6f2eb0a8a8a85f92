//! Agent configs: what loads, and for each way a file can be wrong, the problem it gets (its
//! field, its line, what to change).

use std::path::{Path, PathBuf};
use std::rc::Rc;

use openagent_core::llm::catalog::Catalog;
use openagent_core::llm::ScriptedClient;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::setup::ProviderKind;
use openagent_core::{Session, SessionConfig};
use openagent_memenv::MemoryEnvironment;
use serde_json::json;

use super::*;

/// The smallest config that loads, for the directory `a`.
const MINIMAL: &str = "schema: openagent.agent/1\nid: a\nname: A\nprovider: openai-compatible\nmodel: m\n";

/// `MINIMAL` with `extra` appended.
fn with(extra: &str) -> String {
    format!("{MINIMAL}{extra}")
}

/// The one problem `text` has.
fn problem(text: &str) -> Problem {
    let problems = parse(text, "a").expect_err("the config is refused");
    assert_eq!(problems.len(), 1, "{problems:?}");
    problems.into_iter().next().expect("one problem")
}

/// `(field, line)` and the message, for asserting both at once.
fn at(problem: &Problem) -> (&str, Option<usize>) {
    (problem.field.as_str(), problem.line)
}

#[test]
fn a_full_config_loads_with_every_field() {
    let text = "\
schema: openagent.agent/1
id: a
name: Reviewer
provider: openai
model: gpt-5.2
profile: general
instructions: |
  Review the change.
  Be terse.
tools: [read_file, grep, spawn_agent]
limits:
  max_turns: 8
  max_tool_rounds: 4
  max_result_attempts: 2
  max_output_tokens: 512
  command_timeout_ms: 30000
output:
  schema:
    type: object
    required: [summary]
    properties:
      summary: { type: string, minLength: 10 }
      severity: { enum: [low, high] }
";
    let config = parse(text, "a").expect("a valid config");
    assert_eq!(
        (config.name.as_str(), config.provider.as_deref(), config.model.as_deref()),
        ("Reviewer", Some("openai"), Some("gpt-5.2"))
    );
    assert_eq!(config.profile.as_deref(), Some("general"));
    assert_eq!(config.instructions.as_deref(), Some("Review the change.\nBe terse.\n"));
    assert_eq!(config.tools, Some(vec!["read_file".into(), "grep".into(), "spawn_agent".into()]));
    assert_eq!(
        config.limits,
        Limits {
            max_turns: Some(8),
            max_tool_rounds: Some(4),
            max_result_attempts: Some(2),
            max_output_tokens: Some(512),
            command_timeout_ms: Some(30_000)
        }
    );
    let schema = config.output_schema().expect("an output schema");
    assert_eq!(schema["properties"]["severity"], json!({"enum": ["low", "high"]}));
    assert_eq!(schema["required"], json!(["summary"]));

    let minimal = parse(MINIMAL, "a").expect("the minimal config");
    assert_eq!((minimal.profile, minimal.tools, minimal.output), (None, None, None));
    assert_eq!(minimal.limits, Limits::default());
}

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
        p.message
            .ends_with("`tools`, `limits`, `output`, `mcp_servers`, `permissions`, `hooks`): remove it or correct its spelling"),
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

/// A directory of its own under the system's temporary one, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("openagent-agents-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        Self(dir)
    }

    fn agent(&self, id: &str, text: &str) {
        let dir = self.0.join(AGENTS_DIR).join(id);
        std::fs::create_dir_all(&dir).expect("the agent's directory");
        std::fs::write(dir.join(CONFIG_FILE), text).expect("the config");
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn load_finds_the_agent_by_id_and_names_the_file_in_errors() {
    let dir = Dir::new("load");
    dir.agent("a", MINIMAL);
    dir.agent("b", &MINIMAL.replace("id: a", "id: b").replace("model: m\n", "model: m\nlimits: {max_turns: x}\n"));
    assert_eq!(load(dir.path(), "a").expect("loads").name, "A");

    let error = load(dir.path(), "b").expect_err("refused");
    let file = config_path(dir.path(), "b");
    assert_eq!(error.file, file);
    assert_eq!(
        error.to_string(),
        format!("{}:6: limits.max_turns: invalid type: a string, expected a whole number", file.display())
    );
    assert_eq!(
        error.lines(Some(dir.path())),
        [".openagent/agents/b/agent.yml:6: limits.max_turns: invalid type: a string, expected a whole number"]
    );

    let missing = load(dir.path(), "nope").expect_err("no such agent").to_string();
    assert!(missing.contains("agent.yml: no agent `nope` here: this file does not exist (`openagent agents list"), "{missing}");
    for bad in ["../a", "", ".hidden", "a/b"] {
        let error = load(dir.path(), bad).expect_err("not an id").to_string();
        assert!(error.contains("is not an agent id"), "{bad}: {error}");
    }
}

#[test]
fn discover_lists_every_agent_directory_sorted_broken_ones_included() {
    let dir = Dir::new("discover");
    assert!(discover(dir.path()).expect("no agents directory is no agents").is_empty());
    dir.agent("b", &MINIMAL.replace("id: a", "id: b"));
    dir.agent("a", MINIMAL);
    dir.agent("c", MINIMAL); // its id says `a`
    std::fs::create_dir_all(dir.path().join(AGENTS_DIR).join("d")).expect("an empty agent directory");
    std::fs::write(dir.path().join(AGENTS_DIR).join("README.md"), "not an agent").expect("a stray file");

    let found = discover(dir.path()).expect("listed");
    let ids: Vec<_> = found.iter().map(|f| (f.id.as_str(), f.config.is_ok())).collect();
    assert_eq!(ids, [("a", true), ("b", true), ("c", false), ("d", false)]);
    let missing = found[3].config.as_ref().expect_err("no agent.yml").to_string();
    assert!(
        missing.ends_with("d/agent.yml: missing: each directory in .openagent/agents holds its agent's agent.yml"),
        "{missing}"
    );
}

#[test]
fn a_config_shapes_the_session_tools_limits_and_result() {
    let text = with(
        "instructions: Be terse.\ntools: [read_file, wait]\nlimits: {max_turns: 5, max_result_attempts: 2, max_output_tokens: 64, command_timeout_ms: 900000}\n\
         output:\n  schema: {type: object, properties: {a: {type: string}}}\n",
    );
    let config = parse(&text, "a").expect("valid");
    let profile = config.profile(ProviderKind::OpenAiCompatible, "m", Catalog::builtin());
    assert_eq!(profile.tool_registry().names(), ["read_file"], "only the allowed tools of the profile");
    assert_eq!((profile.id(), profile.default_command_timeout_ms()), ("openai-compatible", Some(900_000)));
    // A family's prompt on another provider: requests still name the provider they go to.
    let general =
        parse(&with("profile: anthropic\n"), "a").expect("valid").profile(ProviderKind::OpenAi, "m", Catalog::builtin());
    assert_eq!((general.id(), general.tool_registry().names().len()), ("openai", 6));

    let limits = config.apply_limits(SessionConfig { max_tool_rounds_per_input: 7, ..SessionConfig::default() });
    assert_eq!((limits.max_turns, limits.max_tool_rounds_per_input, limits.max_result_attempts), (5, 7, 2));
    assert_eq!(limits.max_output_tokens, Some(64));
    assert_eq!((limits.default_command_timeout_ms, limits.max_command_timeout_ms), (Some(900_000), 900_000));

    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let builder = Session::builder(profile, env, Rc::new(ScriptedClient::new(vec![])), runtime);
    let session = config.build(builder);
    assert_eq!(session.tool_names(), ["read_file", "wait", "submit_result", "give_up"]);
}

#[test]
fn provider_and_model_may_be_left_to_the_flags_and_the_environment() {
    let bare = "schema: openagent.agent/1\nid: a\nname: A\ntools: [read_file, list_dir]\n";
    let config = parse(bare, "a").expect("a config without provider and model loads");
    assert_eq!((config.provider, config.model), (None, None));
    // Without a family, a tool is checked against every profile's: list_dir is Gemini's.
    let p = problem(&bare.replace("list_dir", "teleport"));
    assert_eq!(p.field, "tools[1]");
    assert!(p.message.starts_with("unknown tool `teleport`; the profiles' tools are "), "{p:?}");
    let p = problem(&format!("{bare}model: \"\"\n"));
    assert_eq!(
        (p.field.as_str(), p.message.as_str()),
        ("model", "is empty: give it a value, or leave it out for the provider's default")
    );
}

#[test]
fn an_error_does_not_print_what_the_file_holds() {
    let dir = Dir::new("secrets");
    std::fs::write(dir.path().join(".env"), "OPENAI_API_KEY=sk-secret-7f3a9\n").unwrap();
    let agent_dir = dir.path().join(".openagent/agents/leak");
    std::fs::create_dir_all(&agent_dir).unwrap();
    std::os::unix::fs::symlink(dir.path().join(".env"), agent_dir.join("agent.yml")).unwrap();
    let error = load(dir.path(), "leak").expect_err("not an agent config");
    let shown = error.lines(None).join("\n");
    assert!(!shown.contains("sk-secret-7f3a9") && !shown.contains("OPENAI_API_KEY"), "{shown}");
    assert!(shown.contains("invalid type: a string"), "{shown}");
    let quoted = problem(&MINIMAL.replace("name: A", "name: A\nlimits: {max_turns: \"x \\\" y\"}"));
    assert_eq!(quoted.message, "invalid type: a string, expected a whole number");
}

#[test]
fn permissions_load_with_a_mode_and_ordered_rules() {
    let config = parse(
        &with(
            "permissions:\n  mode: read-only\n  rules:\n    - { tool: shell, command: git status, decision: allow }\n    \
             - { tool: write_file, path: \"docs/**\", decision: allow }\n    - { tool: \"mcp__*\", decision: deny }\n",
        ),
        "a",
    )
    .expect("loads");
    let permissions = config.permissions.expect("permissions");
    assert_eq!(permissions.mode, Some(openagent_core::approval::ApprovalMode::ReadOnly));
    let described: Vec<String> = permissions.rules.iter().map(|r| r.describe()).collect();
    assert_eq!(described, ["shell `git status`", "write_file `docs/**`", "mcp__*"]);
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
