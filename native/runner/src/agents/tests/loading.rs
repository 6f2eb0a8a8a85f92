//! What loads: a config with every field, one from its file or in the listing, and what a
//! config makes of a session (its tools, limits and result).

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
