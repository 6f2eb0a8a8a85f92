//! Profile tests, named after what spec 3.4 to 3.7, 6 and 9.2, 9.8 ask of them.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use serde_json::{json, Value};

use crate::testing::{memory_env, run_ok, write};
use openagent_core::env::{EnvError, ExecOptions, ExecResult, ExecutionEnvironment};
use openagent_core::llm::catalog::Catalog;
use openagent_core::llm::{ScriptStep, ScriptedClient, ToolDefinition};
use openagent_core::profiles::*;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::{Session, Turn};
use openagent_core::tools::{RegisteredTool, ShellTool};
use openagent_memenv::{CommandRunner, MemoryEnvironment};

/// Spec 6.5: the project instructions' budget, and the marker where it cuts them.
const DOCS_BUDGET: usize = 32 * 1024;
const TRUNCATED: &str = "[Project instructions truncated at 32KB]";

/// How long the git snapshot waits for each of its commands.
const GIT_TIMEOUT_MS: u64 = 5_000;

/// A host's git: answers the snapshot's commands from a script, fails every other command as a
/// missing one (exit 127), and records what it was asked with which timeout.
struct FakeGit {
    answers: &'static [(&'static str, &'static str)],
    asked: RefCell<Vec<(String, u64)>>,
}

#[async_trait(?Send)]
impl CommandRunner for FakeGit {
    async fn run(&self, command: &str, options: &ExecOptions) -> Result<ExecResult, EnvError> {
        self.asked.borrow_mut().push((command.to_owned(), options.timeout_ms));
        Ok(match self.answers.iter().find(|(asked, _)| *asked == command) {
            Some((_, stdout)) => ExecResult { stdout: (*stdout).into(), ..ExecResult::default() },
            None => ExecResult { stderr: "command not found".into(), exit_code: 127, ..ExecResult::default() },
        })
    }
}

/// What git says of the repository at `/repo`.
const REPO: &[(&str, &str)] = &[
    ("git --no-optional-locks status --porcelain", " M src/a.rs\nA  src/b.rs\nR  old.rs -> new.rs\n?? notes.txt\n?? tmp/\n"),
    ("git log --oneline -5", "abc1234 Add the parser\ndef5678 Initial commit\n"),
];

/// An environment in `cwd` with a repository at `/repo` on branch `feature/x` (its `.git/HEAD`),
/// whose git answers from `answers`.
fn git_env(cwd: &str, answers: &'static [(&'static str, &'static str)]) -> (MemoryEnvironment, Rc<FakeGit>) {
    let git = Rc::new(FakeGit { answers, asked: RefCell::default() });
    let env = memory_env().with_working_directory(cwd).expect("working directory").with_command_runner(git.clone());
    write(&env, "/repo/.git/HEAD", "ref: refs/heads/feature/x\n");
    (env, git)
}

fn prompt(profile: &dyn ProviderProfile, env: &dyn ExecutionEnvironment, user: Option<&str>) -> String {
    let ctx = PromptContext { env, today: "2025-01-02".into(), user_instructions: user };
    block_on(profile.build_system_prompt(&ctx))
}

/// The paths of the instruction files in a prompt, in order.
fn doc_paths(prompt: &str) -> Vec<&str> {
    prompt.split("<project_instructions path=\"").skip(1).filter_map(|rest| rest.split('"').next()).collect()
}

fn names(profile: &dyn ProviderProfile) -> Vec<String> {
    profile.tool_registry().names()
}

fn schema(profile: &dyn ProviderProfile, tool: &str) -> Value {
    profile.tool_registry().get(tool).map(|t| t.definition.parameters.clone()).expect("tool offered")
}

fn properties(profile: &dyn ProviderProfile, tool: &str) -> Vec<String> {
    let schema = schema(profile, tool);
    schema["properties"].as_object().expect("properties").keys().cloned().collect()
}

/// Runs a profile's tool as the session would, with the spec 5.4 timeouts.
fn run_tool(profile: &dyn ProviderProfile, env: &dyn ExecutionEnvironment, tool: &str, args: Value) -> String {
    let tool = profile.tool_registry().get(tool).expect("tool offered");
    assert!(tool.schema().validate(&args).is_ok(), "{args} does not fit the schema of {}", tool.definition.name);
    run_ok(&*tool.executor, env, args)
}

// ---- 3.4 to 3.6, 9.2: tools, flags, timeouts ----

#[test]
fn openai_offers_codex_aligned_tools() {
    let profile = OpenAiProfile::new("gpt-5.2-codex");
    assert_eq!(profile.id(), "openai");
    assert_eq!(profile.model(), "gpt-5.2-codex");
    assert_eq!(names(&profile), ["read_file", "apply_patch", "write_file", "shell", "grep", "glob"]);
    assert_eq!(properties(&profile, "apply_patch"), ["patch"]);
    assert_eq!(properties(&profile, "shell"), ["command", "timeout_ms", "workdir"]);
    assert_eq!(properties(&profile, "grep"), ["include", "limit", "path", "pattern"]);
    assert_eq!(profile.default_command_timeout_ms(), Some(10_000));
    assert_eq!(profile.provider_options(), None);
    assert!(profile.supports_reasoning() && profile.supports_streaming() && profile.supports_parallel_tool_calls());
    assert_eq!(profile.context_window_size(), 400_000);
    let older = OpenAiProfile::new("openai/gpt-4o-mini");
    assert!(!older.supports_reasoning());
    assert_eq!(older.context_window_size(), 128_000);
    assert_eq!(OpenAiProfile::new("gpt-4.1").context_window_size(), 1_047_576);
    assert_eq!(OpenAiProfile::new("o3").context_window_size(), 200_000);
}

#[test]
fn anthropic_offers_claude_code_aligned_tools() {
    let profile = AnthropicProfile::new("claude-sonnet-4-5");
    assert_eq!(profile.id(), "anthropic");
    assert_eq!(names(&profile), ["read_file", "write_file", "edit_file", "shell", "grep", "glob"]);
    assert_eq!(properties(&profile, "edit_file"), ["file_path", "new_string", "old_string", "replace_all"]);
    assert_eq!(properties(&profile, "shell"), ["command", "description", "timeout"]);
    assert_eq!(properties(&profile, "grep"), ["-i", "glob", "head_limit", "output_mode", "path", "pattern"]);
    let modes = &schema(&profile, "grep")["properties"]["output_mode"]["enum"];
    assert_eq!(modes, &json!(["content", "files_with_matches", "count"]));
    assert_eq!(profile.default_command_timeout_ms(), Some(120_000));
    assert_eq!(profile.provider_options(), None);
    assert!(profile.supports_reasoning() && profile.supports_streaming() && profile.supports_parallel_tool_calls());
    assert_eq!(profile.context_window_size(), 200_000);
    // Windows and reasoning come from the catalog; a model it does not know gets the family's.
    assert!(!AnthropicProfile::new("claude-3-haiku-20240307").supports_reasoning());
    assert_eq!(AnthropicProfile::new("claude-opus-4-6").context_window_size(), 1_000_000);
    let unknown = AnthropicProfile::new("claude-next");
    assert!(unknown.supports_reasoning() && unknown.model_info().is_none() && unknown.supports_images());
    assert_eq!(unknown.context_window_size(), 200_000);
}

#[test]
fn a_catalog_with_overrides_gives_the_profile_its_window_prices_and_capabilities() {
    let patch =
        json!({"models": [{"id": "gpt-5.2", "context_window": 64000, "supports_vision": false, "input_cost_per_million": 1}]});
    let catalog = Catalog::builtin().clone().with_overrides(serde_json::from_value(patch).unwrap()).unwrap();
    let profile = OpenAiProfile::new("gpt-5.2").with_catalog(&catalog);
    assert_eq!((profile.context_window_size(), profile.supports_images()), (64_000, false));
    assert_eq!(profile.model_info().and_then(|m| m.input_cost_per_million), Some(1.0));
    assert_eq!(OpenAiProfile::new("gpt-5.2").context_window_size(), 400_000, "the built-in catalog is untouched");
}

#[test]
fn anthropic_beta_headers_go_to_provider_options() {
    let profile = AnthropicProfile::new("claude-sonnet-4-5").with_beta_headers(&["interleaved-thinking-2025-05-14"]);
    assert_eq!(profile.provider_options(), Some(json!({"anthropic": {"beta_headers": ["interleaved-thinking-2025-05-14"]}})));
    assert_eq!(profile.context_window_size(), 200_000);
    let wide = AnthropicProfile::new("claude-sonnet-4-5").with_beta_headers(&["context-1m-2025-08-07"]);
    assert_eq!(wide.context_window_size(), 1_000_000);
    assert_eq!(wide.with_beta_headers(&["interleaved-thinking-2025-05-14"]).context_window_size(), 200_000);
    assert_eq!(AnthropicProfile::new("claude-opus-4-1").with_beta_headers(&[]).provider_options(), None);
}

#[test]
fn gemini_offers_gemini_cli_aligned_tools() {
    let profile = GeminiProfile::new("gemini-2.5-pro");
    assert_eq!(profile.id(), "gemini");
    assert_eq!(names(&profile), ["read_file", "read_many_files", "write_file", "edit_file", "shell", "grep", "glob", "list_dir"]);
    assert_eq!(properties(&profile, "list_dir"), ["depth", "path"]);
    assert_eq!(properties(&profile, "read_many_files"), ["paths"]);
    assert_eq!(profile.default_command_timeout_ms(), Some(10_000));
    assert_eq!(profile.provider_options(), None);
    assert!(profile.supports_reasoning() && profile.supports_streaming() && profile.supports_parallel_tool_calls());
    assert_eq!(profile.context_window_size(), 1_048_576);
    let old = GeminiProfile::new("models/gemini-2.0-flash-001");
    assert!(!old.supports_reasoning());
    assert_eq!(old.model_info().and_then(|m| m.max_output), Some(8192));
    let safety = json!({"safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]});
    let tuned = GeminiProfile::new("gemini-3-pro-preview").with_provider_options(safety.clone());
    assert_eq!(tuned.provider_options(), Some(json!({ "gemini": safety })));
}

#[test]
fn general_offers_the_core_tools_for_compatible_servers() {
    let profile = GeneralProfile::new("qwen2.5-coder-7b");
    assert_eq!(profile.id(), "openai-compatible");
    assert_eq!(names(&profile), ["read_file", "write_file", "edit_file", "shell", "grep", "glob"]);
    assert_eq!(profile.default_command_timeout_ms(), None);
    assert_eq!(profile.provider_options(), None);
    assert!(!profile.supports_reasoning() && profile.supports_streaming() && profile.supports_parallel_tool_calls());
    assert_eq!(profile.context_window_size(), 32_768);
    let tuned = GeneralProfile::new("qwen3").with_id("lmstudio").with_context_window_size(131_072).with_reasoning(true);
    assert_eq!((tuned.id(), tuned.context_window_size(), tuned.supports_reasoning()), ("lmstudio", 131_072, true));
}

/// On a CPU a local model evaluates every token of the first request before it answers (about 50
/// a second for a 1.5B model on two cores), so the general profile keeps it short: no subagent
/// tools unless asked for, terse tool definitions, and the precedence of instructions said only
/// when there are instructions. Measured with qwen2.5-coder's tokenizer through llama.cpp: 969
/// tokens for a one-line task, where the full definitions took 2,032.
#[test]
fn general_keeps_a_local_models_first_request_short() {
    let env = memory_env();
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let tools = |profile: GeneralProfile| {
        let client = Rc::new(ScriptedClient::new([ScriptStep::text("ok")]));
        Session::builder(Rc::new(profile), Rc::new(memory_env()), client, runtime.clone()).build().tool_names()
    };
    assert_eq!(tools(GeneralProfile::new("local")), ["read_file", "write_file", "edit_file", "shell", "grep", "glob"]);
    assert!(tools(GeneralProfile::new("local").with_subagents(true)).contains(&"spawn_agent".to_owned()));

    let profile = GeneralProfile::new("local");
    let system = prompt(&profile, &env, None);
    assert!(!system.contains("override everything else"), "no instructions to weigh: {system}");
    let definitions = serde_json::to_string(&profile.tool_registry().definitions()).unwrap();
    assert!(system.len() + definitions.len() < 3_400, "{} + {} characters", system.len(), definitions.len());
    write(&env, "AGENTS.md", "Use tabs.\n");
    assert!(prompt(&profile, &env, None).contains("override everything else"), "instructions come with their precedence");
}

fn every_profile() -> Vec<Rc<dyn ProviderProfile>> {
    vec![
        Rc::new(OpenAiProfile::new("gpt-5.2-codex")),
        Rc::new(AnthropicProfile::new("claude-sonnet-4-5")),
        Rc::new(GeminiProfile::new("gemini-2.5-pro")),
        Rc::new(GeneralProfile::new("local")),
    ]
}

#[test]
fn every_tool_schema_is_closed_and_described() {
    for profile in every_profile() {
        for ToolDefinition { name, description, parameters } in profile.tool_registry().definitions() {
            let id = profile.id();
            assert!(description.len() > 40, "{id}.{name}: description too short");
            assert_eq!(parameters["additionalProperties"], false, "{id}.{name}");
            let properties = parameters["properties"].as_object().expect("properties");
            for (property, schema) in properties {
                assert!(schema["description"].is_string(), "{id}.{name}.{property} has no description");
            }
            for field in parameters["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                assert!(properties.contains_key(field), "{id}.{name} requires unknown {field}");
            }
        }
    }
}

// ---- 3.7: custom tools ----

fn custom(name: &str) -> RegisteredTool {
    let definition = ToolDefinition {
        name: name.into(),
        description: format!("custom {name}"),
        parameters: json!({"type": "object", "properties": {}}),
    };
    RegisteredTool::new(definition, Rc::new(ShellTool)).expect("valid")
}

/// Registers a replacement shell and a new tool; the replacement keeps the shell's place.
fn add_custom_tools(registry: &mut openagent_core::tools::ToolRegistry) -> Vec<String> {
    let before = registry.names();
    registry.register(custom("shell"));
    registry.register(custom("run_tests"));
    assert_eq!(registry.get("shell").map(|t| t.definition.description.as_str()), Some("custom shell"));
    before
}

#[test]
fn custom_tools_register_on_top_of_every_profile_latest_wins() {
    let mut openai = OpenAiProfile::new("gpt-5");
    let mut anthropic = AnthropicProfile::new("claude-opus-4-1");
    let mut gemini = GeminiProfile::new("gemini-2.5-flash");
    let mut general = GeneralProfile::new("local");
    let registries =
        [openai.tool_registry_mut(), anthropic.tool_registry_mut(), gemini.tool_registry_mut(), general.tool_registry_mut()];
    for registry in registries {
        let mut expected = add_custom_tools(registry);
        expected.push("run_tests".into());
        assert_eq!(registry.names(), expected);
    }
}

// ---- family argument names reach the shared executors ----

fn project() -> MemoryEnvironment {
    let env = memory_env();
    write(&env, "src/lib.rs", "pub fn Hello() {}\npub fn hello() {}\n");
    write(&env, "src/main.rs", "fn main() { hello() }\n");
    write(&env, "README.md", "hello\n");
    env
}

#[test]
fn anthropic_grep_takes_claude_code_arguments_and_lists_files_by_default() {
    let (profile, env) = (AnthropicProfile::new("claude-sonnet-4-5"), project());
    assert_eq!(run_tool(&profile, &env, "grep", json!({"pattern": "hello"})), "README.md\nsrc/lib.rs\nsrc/main.rs");
    let counts = json!({"pattern": "hello", "-i": true, "glob": "*.rs", "output_mode": "count"});
    assert_eq!(run_tool(&profile, &env, "grep", counts), "src/lib.rs:2\nsrc/main.rs:1");
    let lines = json!({"pattern": "fn hello", "output_mode": "content", "head_limit": 1});
    assert!(run_tool(&profile, &env, "grep", lines).starts_with("src/lib.rs:2:pub fn hello() {}\n[Reached the limit of 1"));
}

#[test]
fn anthropic_shell_takes_its_timeout_in_timeout() {
    let (profile, env) = (AnthropicProfile::new("claude-sonnet-4-5"), memory_env());
    let out = run_tool(&profile, &env, "shell", json!({"command": "echo a && sleep 5", "timeout": 250}));
    assert!(out.contains("Command timed out after 250ms"), "{out}");
}

#[test]
fn openai_grep_and_shell_take_codex_arguments() {
    let (profile, env) = (OpenAiProfile::new("gpt-5"), project());
    let found = json!({"pattern": "hello", "include": "*.rs", "limit": 1});
    assert_eq!(
        run_tool(&profile, &env, "grep", found),
        "src/lib.rs\n[Showing 1 of 2 files. Narrow the pattern, path or glob, or raise the limit.]"
    );
    let out = run_tool(&profile, &env, "shell", json!({"command": "ls", "workdir": "src"}));
    assert!(out.starts_with("lib.rs\nmain.rs\nExit code: 0"), "{out}");
}

// ---- 6, 9.8: the layered system prompt ----

#[test]
fn prompt_layers_come_in_order_with_user_instructions_last() {
    let bases = [
        include_str!("../../src/profiles/base/openai.md"),
        include_str!("../../src/profiles/base/anthropic.md"),
        include_str!("../../src/profiles/base/gemini.md"),
        include_str!("../../src/profiles/base/general.md"),
    ];
    for (profile, base) in every_profile().into_iter().zip(bases) {
        let (env, _) = git_env("/repo", REPO);
        write(&env, "/repo/AGENTS.md", "Run `make check` before you finish.\n");
        let text = prompt(&*profile, &env, Some("Answer in French."));
        assert!(text.starts_with(base.trim_end()), "{}: base first", profile.id());
        let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("{}: no {needle} in\n{text}", profile.id()));
        let order = [
            at("Project instruction files refine these instructions"),
            at("<environment>\nWorking directory: /repo\nPlatform: memory\n"),
            at(&format!("Today's date: 2025-01-02\nModel: {}\n</environment>", profile.model())),
            at("<git>\nRepository root: /repo\nBranch: feature/x\n"),
            at("<project_instructions path=\"/repo/AGENTS.md\">\nRun `make check` before you finish.\n</project_instructions>"),
            at("<user_instructions>\nAnswer in French.\n</user_instructions>"),
        ];
        assert!(order.windows(2).all(|pair| pair[0] < pair[1]), "{}: layers out of order: {order:?}", profile.id());
        assert!(text.ends_with("</user_instructions>"), "{}", profile.id());
    }
}

#[test]
fn git_snapshot_gives_branch_change_counts_and_recent_commits() {
    let (env, git) = git_env("/repo", REPO);
    let text = prompt(&OpenAiProfile::new("gpt-5"), &env, None);
    let block = "<git>\nRepository root: /repo\nBranch: feature/x\nStatus: 3 modified, 2 untracked\nRecent commits:\n\
                 abc1234 Add the parser\ndef5678 Initial commit\n</git>";
    assert!(text.contains(block), "{text}");
    let asked = git.asked.borrow().clone();
    let expected: Vec<(String, u64)> = REPO.iter().map(|(command, _)| ((*command).to_owned(), GIT_TIMEOUT_MS)).collect();
    assert_eq!(asked, expected);
}

#[test]
fn git_snapshot_is_skipped_without_git_and_trimmed_when_status_fails() {
    // The built-in shell has no git: no snapshot, and nothing said about it.
    let env = memory_env();
    assert!(!prompt(&AnthropicProfile::new("claude-sonnet-4-5"), &env, None).contains("<git>"));
    // Outside a repository (no `.git` from the working directory up) git is not even asked.
    let (env, git) = git_env("/w", REPO);
    assert!(!prompt(&GeminiProfile::new("gemini-2.5-pro"), &env, None).contains("<git>"));
    assert_eq!(git.asked.borrow().len(), 0);
    // A repository whose status and log fail still gives its root and branch.
    let (env, _) = git_env("/repo", &[]);
    write(&env, "/repo/.git/HEAD", "ref: refs/heads/main\n");
    let text = prompt(&GeneralProfile::new("local"), &env, None);
    assert!(text.contains("<git>\nRepository root: /repo\nBranch: main\n</git>"), "{text}");
}

#[test]
fn the_built_in_shell_is_not_asked_for_a_git_it_does_not_have() {
    // The browser package fetches the shell with its first command: a prompt must not be one.
    thread_local!(static RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) });
    fn counted<'a>(env: &'a MemoryEnvironment, command: &'a str, options: &'a ExecOptions) -> openagent_memenv::ShellRun<'a> {
        RUNS.with(|runs| runs.set(runs.get() + 1));
        openagent_memenv::builtin_shell(env, command, options)
    }
    let env = MemoryEnvironment::with_shell(Rc::new(openagent_core::runtime::VirtualRuntime::new(|_| {})), counted);
    assert!(!prompt(&AnthropicProfile::new("claude-sonnet-4-5"), &env, None).contains("<git>"));
    assert_eq!(RUNS.with(|runs| runs.get()), 0);
    // A host's `git` is a command like any other: asked.
    struct HostGit;
    #[async_trait(?Send)]
    impl openagent_memenv::HostCommand for HostGit {
        async fn run(&self, _: openagent_memenv::HostCall<'_>) -> openagent_memenv::HostOutput {
            openagent_memenv::HostOutput { stdout: Vec::new(), stderr: b"not a repository".to_vec(), exit_code: 128 }
        }
    }
    env.add_host_command("git", Rc::new(HostGit)).unwrap();
    write(&env, &format!("{}/.git/HEAD", env.working_directory().trim_end_matches('/')), "ref: refs/heads/main\n");
    let _ = prompt(&AnthropicProfile::new("claude-sonnet-4-5"), &env, None);
    assert!(RUNS.with(|runs| runs.get()) > 0);
}

/// `git rev-parse --show-toplevel --abbrev-ref HEAD`, read from the repository's files: the
/// nearest `.git` up whose `HEAD` reads, a linked work tree's `.git` file, a detached `HEAD`.
#[test]
fn the_root_and_the_branch_are_read_from_the_repository() {
    let root_and_branch = |env: &MemoryEnvironment| {
        let text = prompt(&GeneralProfile::new("local"), env, None);
        let block = text.split("<git>\n").nth(1)?.split("</git>").next()?.to_owned();
        let mut lines = block.lines();
        Some((lines.next()?.strip_prefix("Repository root: ")?.to_owned(), lines.next()?.strip_prefix("Branch: ")?.to_owned()))
    };
    let (env, _) = git_env("/repo/a/b", REPO);
    assert_eq!(root_and_branch(&env), Some(("/repo".into(), "feature/x".into())));
    // A `.git` without a HEAD is not a repository: the one above is.
    write(&env, "/repo/a/.git/config", "");
    assert_eq!(root_and_branch(&env), Some(("/repo".into(), "feature/x".into())));
    // A linked work tree: its `.git` file names the git directory, relative to the file.
    let (env, _) = git_env("/repo/w/b", REPO);
    write(&env, "/repo/w/.git", "gitdir: ../.git/worktrees/w\n");
    write(&env, "/repo/.git/worktrees/w/HEAD", "ref: refs/heads/topic\n");
    assert_eq!(root_and_branch(&env), Some(("/repo/w".into(), "topic".into())));
    write(&env, "/repo/w/.git", "gitdir: /elsewhere/git\n");
    write(&env, "/elsewhere/git/HEAD", "0123456789abcdef0123456789abcdef01234567\n");
    assert_eq!(root_and_branch(&env), Some(("/repo/w".into(), "HEAD".into())), "detached");
    // A HEAD that is neither a ref nor a commit, or a `.git` file naming nothing: not a repository.
    for (file, text) in [("/elsewhere/git/HEAD", "junk\n"), ("/repo/w/.git", "not a gitdir line\n")] {
        write(&env, file, text);
        assert_eq!(root_and_branch(&env), Some(("/repo".into(), "feature/x".into())), "{file}: {text:?}");
    }
}

#[test]
fn only_the_family_instruction_files_are_loaded() {
    let cases: [(Rc<dyn ProviderProfile>, &[&str]); 4] = [
        (Rc::new(OpenAiProfile::new("gpt-5")), &["/repo/AGENTS.md", "/repo/.codex/instructions.md"]),
        (Rc::new(AnthropicProfile::new("claude-sonnet-4-5")), &["/repo/AGENTS.md", "/repo/CLAUDE.md"]),
        (Rc::new(GeminiProfile::new("gemini-2.5-pro")), &["/repo/AGENTS.md", "/repo/GEMINI.md"]),
        (Rc::new(GeneralProfile::new("local")), &["/repo/AGENTS.md"]),
    ];
    for (profile, expected) in cases {
        let (env, _) = git_env("/repo", REPO);
        for path in ["AGENTS.md", "CLAUDE.md", "GEMINI.md", ".codex/instructions.md"] {
            write(&env, &format!("/repo/{path}"), &format!("from {path}\n"));
        }
        let text = prompt(&*profile, &env, None);
        assert_eq!(doc_paths(&text), expected, "{}", profile.id());
    }
}

#[test]
fn instruction_files_load_root_first_down_to_a_nested_working_directory() {
    let (env, _) = git_env("/repo/pkg/sub", REPO);
    for path in [
        "/AGENTS.md",
        "/repo/AGENTS.md",
        "/repo/pkg/CLAUDE.md",
        "/repo/pkg/AGENTS.md",
        "/repo/pkg/sub/CLAUDE.md",
        "/repo/other/AGENTS.md",
        "/repo/pkg/sub/deeper/AGENTS.md",
    ] {
        write(&env, path, &format!("from {path}\n"));
    }
    let profile = AnthropicProfile::new("claude-sonnet-4-5");
    let expected = ["/repo/AGENTS.md", "/repo/pkg/AGENTS.md", "/repo/pkg/CLAUDE.md", "/repo/pkg/sub/CLAUDE.md"];
    assert_eq!(doc_paths(&prompt(&profile, &env, None)), expected);
    // Without git the working directory is the root.
    let plain = memory_env().with_working_directory("/repo/pkg/sub").expect("working directory");
    write(&plain, "/repo/AGENTS.md", "root\n");
    write(&plain, "/repo/pkg/sub/AGENTS.md", "here\n");
    assert_eq!(doc_paths(&prompt(&profile, &plain, None)), ["/repo/pkg/sub/AGENTS.md"]);
}

#[test]
fn instruction_files_stop_at_32kb_with_a_marker() {
    let (env, _) = git_env("/repo/sub", REPO);
    // 20 001 bytes leave an odd 12 767 for the next file, whose two-byte characters must not be split.
    write(&env, "/repo/AGENTS.md", &"a".repeat(20_001));
    write(&env, "/repo/CLAUDE.md", &"é".repeat(10_000));
    write(&env, "/repo/sub/AGENTS.md", "never reached\n");
    let text = prompt(&AnthropicProfile::new("claude-sonnet-4-5"), &env, Some("user"));
    assert_eq!(doc_paths(&text), ["/repo/AGENTS.md", "/repo/CLAUDE.md"]);
    assert!(text.contains(&format!("\n{}\n</project_instructions>", "a".repeat(20_001))));
    assert_eq!(text.matches('é').count(), 6_383);
    assert_eq!(text.matches(TRUNCATED).count(), 1);
    assert!(text.contains(&format!("{}\n{TRUNCATED}\n</project_instructions>\n\n<user_instructions>", "é".repeat(3))));
    // Exactly the budget needs no marker.
    let (env, _) = git_env("/repo", REPO);
    write(&env, "/repo/AGENTS.md", &"x".repeat(DOCS_BUDGET));
    assert!(!prompt(&GeneralProfile::new("local"), &env, None).contains(TRUNCATED));
}

// ---- a session with each profile ----

/// Spec 6.3 with a host that begins the prompt early: the git snapshot's commands start at
/// `prepare_prompt`, before any input, and the first input takes that prompt up (git is not asked
/// again), the same prompt an unprepared session builds.
#[test]
fn a_prompt_begun_before_the_first_input_is_the_prompt_it_sends() {
    let prompts: Vec<(String, Vec<(String, u64)>)> = [true, false]
        .into_iter()
        .map(|prepared| {
            let runtime = Rc::new(VirtualRuntime::new(|_| {}));
            let (env, git) = git_env("/repo", REPO);
            let client = Rc::new(ScriptedClient::new([ScriptStep::text("done")]));
            let profile = Rc::new(OpenAiProfile::new("gpt-5"));
            let session = Session::builder(profile, Rc::new(env), client.clone(), runtime).build();
            if prepared {
                session.prepare_prompt();
                assert_eq!(git.asked.borrow().len(), 2, "both of git's commands started before any input");
                session.prepare_prompt();
            }
            block_on(session.submit("go")).expect("completed");
            let asked = git.asked.borrow().clone();
            (client.requests()[0].messages[0].text(), asked)
        })
        .collect();
    assert!(prompts[0].0.contains("<git>\nRepository root: /repo\nBranch: feature/x\n"), "{}", prompts[0].0);
    assert_eq!(prompts[0], prompts[1], "prepared or not, the same prompt and the same two commands, once");
}

/// One tool round per profile, with a tool only that family has (or the shared read_file).
#[test]
fn a_session_with_each_profile_runs_a_scripted_tool_round() {
    const PATCH: &str = "*** Begin Patch\n*** Update File: README.md\n@@\n-hello\n+bye\n*** End Patch";
    let calls = [
        ("apply_patch", json!({"patch": PATCH}), "Success. Updated the following files:\nM README.md"),
        ("grep", json!({"pattern": "HELLO", "-i": true, "output_mode": "content"}), "README.md:1:hello"),
        ("list_dir", json!({"depth": 1}), "README.md (6 bytes)"),
        // The general profile edits only what the model has read (see session/read_first.rs).
        ("read_file", json!({"file_path": "README.md"}), "   1 | hello"),
    ];
    for (profile, (tool, args, expected)) in every_profile().into_iter().zip(calls) {
        let runtime = Rc::new(VirtualRuntime::new(|_| {}));
        let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
        write(&*env, "README.md", "hello\n");
        let client = Rc::new(ScriptedClient::new([ScriptStep::tool_call(tool, args), ScriptStep::text("done")]));
        let session = Session::builder(profile.clone(), env, client.clone(), runtime).build();
        block_on(session.submit("go")).expect("completed");
        let results = Turn::tool_results(&session.history());
        assert_eq!(results.len(), 1, "{}", profile.id());
        assert!(!results[0].is_error && results[0].content.starts_with(expected), "{}: {:?}", profile.id(), results[0]);
        let request = &client.requests()[0];
        assert_eq!(request.provider.as_deref(), Some(profile.id()));
        // The session adds its subagent tools after the profile's.
        let offered: Vec<String> = request.tools.iter().map(|t| t.name.clone()).collect();
        assert!(offered.starts_with(&names(&*profile)), "{}: {offered:?}", profile.id());
        assert!(request.messages[0].text().contains("<environment>"), "{}", profile.id());
    }
}

/// Spec 3.5: the Anthropic shell waits 120 s unless the call says otherwise; OpenAI keeps 10 s.
#[test]
fn a_session_gives_the_anthropic_shell_120_seconds_by_default() {
    let cases: [(Rc<dyn ProviderProfile>, &str); 2] =
        [(Rc::new(AnthropicProfile::new("claude-sonnet-4-5")), "timeout"), (Rc::new(OpenAiProfile::new("gpt-5")), "timeout_ms")];
    for (profile, timeout) in cases {
        let runtime = Rc::new(VirtualRuntime::new(|_| {}));
        let git = Rc::new(FakeGit { answers: &[], asked: RefCell::default() });
        let env = Rc::new(MemoryEnvironment::new(runtime.clone()).with_command_runner(git.clone()));
        let mut slow = json!({"command": "make slow"});
        slow[timeout] = json!(300_000);
        let client = Rc::new(ScriptedClient::new([
            ScriptStep::tool_call("shell", json!({"command": "make test"})),
            ScriptStep::tool_call("shell", slow),
            ScriptStep::text("done"),
        ]));
        let session = Session::builder(profile.clone(), env, client, runtime).build();
        block_on(session.submit("test it")).expect("completed");
        let asked: Vec<(String, u64)> = git.asked.borrow().iter().filter(|(c, _)| c.starts_with("make")).cloned().collect();
        let default = profile.default_command_timeout_ms().expect("a profile default");
        assert_eq!(asked, [("make test".into(), default), ("make slow".into(), 300_000)], "{}", profile.id());
    }
}
