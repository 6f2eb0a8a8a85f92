#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use serde_json::{json, Value};

use super::*;

fn rule(tool: &str, command: Option<&str>, path: Option<&str>, decision: Permission) -> Rule {
    Rule { tool: tool.into(), command: command.map(Into::into), path: path.map(Into::into), decision }
}

fn shell(command: &str) -> Value {
    json!({ "command": command })
}

fn decide(policy: &Policy, tool: &str, args: Value) -> (Permission, &'static str) {
    let verdict = policy.decide(tool, &args, "/work");
    (verdict.permission, verdict.source)
}

#[test]
fn globs_keep_stars_within_a_path_segment_and_double_stars_cross_them() {
    assert!(glob_match("src/*.rs", "src/main.rs", true));
    assert!(!glob_match("src/*.rs", "src/a/main.rs", true));
    assert!(glob_match("src/**", "src/a/b/c.rs", true));
    assert!(glob_match("src/**/*.rs", "src/main.rs", true), "`**/` matches no directory too");
    assert!(glob_match("src/**/*.rs", "src/a/b/main.rs", true));
    assert!(!glob_match("src/**/*.rs", "docs/main.rs", true));
    assert!(glob_match("?.txt", "a.txt", true) && !glob_match("?.txt", "ab.txt", true));
    assert!(glob_match("git *", "git push origin/main", false), "in commands `*` crosses slashes");
    assert!(!glob_match("git *", "gitk", false));
    assert!(glob_match("mcp__*", "mcp__fs__read", false));
}

#[test]
fn a_glob_costs_its_length_times_the_text_not_more() {
    let text = "a".repeat(20_000);
    assert!(!glob_match("*a*a*a*a*a*a*a*a*a*a*b", &text, false));
}

#[test]
fn modes_ask_before_what_they_name() {
    let mode = |mode| Policy { mode, rules: vec![] };
    let read_only = mode(ApprovalMode::ReadOnly);
    assert_eq!(decide(&read_only, "shell", shell("ls")), (Permission::Ask, "mode"));
    assert_eq!(decide(&read_only, "write_file", json!({"file_path": "a"})), (Permission::Ask, "mode"));
    assert_eq!(decide(&read_only, "read_file", json!({"file_path": "a"})), (Permission::Allow, "mode"));
    let auto_edit = mode(ApprovalMode::AutoEdit);
    assert_eq!(decide(&auto_edit, "apply_patch", json!({"patch": ""})), (Permission::Allow, "mode"));
    assert_eq!(decide(&auto_edit, "shell", shell("ls")).0, Permission::Ask);
    let reason = auto_edit.decide("shell", &shell("ls"), "/").reason.unwrap();
    assert_eq!(reason, "the auto-edit approval mode asks before commands");
    let reason = auto_edit.decide("mcp__fs__write_file", &json!({"path": "a"}), "/").reason.unwrap();
    assert_eq!(reason, "the auto-edit approval mode asks before the tools of MCP servers");
    assert_eq!(decide(&read_only, "mcp__docs__search", json!({})).0, Permission::Ask);
    let full = mode(ApprovalMode::FullAuto);
    assert_eq!(decide(&full, "shell", shell("rm -rf /")), (Permission::Allow, "mode"));
    assert_eq!(decide(&full, "mcp__fs__write_file", json!({"path": "a"})).0, Permission::Allow);
    assert_eq!(decide(&Policy::default(), "shell", shell("ls")).0, Permission::Allow, "full-auto is the default");
}

#[test]
fn the_first_matching_rule_wins_over_later_ones_and_the_mode() {
    let policy = Policy {
        mode: ApprovalMode::FullAuto,
        rules: vec![
            rule("shell", Some("git push"), None, Permission::Deny),
            rule("shell", Some("git"), None, Permission::Allow),
            rule("shell", Some("cargo *"), None, Permission::Ask),
            rule("write_file", None, Some("src/**"), Permission::Allow),
            rule("*_file", None, None, Permission::Deny),
        ],
    };
    assert_eq!(decide(&policy, "shell", shell("git push origin")), (Permission::Deny, "rule"));
    assert_eq!(decide(&policy, "shell", shell("git status")), (Permission::Allow, "rule"));
    assert_eq!(decide(&policy, "shell", shell("gitk")), (Permission::Allow, "mode"), "a prefix ends at a word");
    assert_eq!(decide(&policy, "shell", shell("cargo test")), (Permission::Ask, "rule"));
    assert_eq!(decide(&policy, "write_file", json!({"file_path": "src/a.rs"})), (Permission::Allow, "rule"));
    assert_eq!(decide(&policy, "write_file", json!({"file_path": "/work/src/a.rs"})).0, Permission::Allow, "absolute inside");
    assert_eq!(decide(&policy, "write_file", json!({"file_path": "./src/a.rs"})).0, Permission::Allow);
    assert_eq!(decide(&policy, "write_file", json!({"file_path": "README.md"})), (Permission::Deny, "rule"));
    let reason = policy.decide("shell", &shell("git push"), "/").reason.unwrap();
    assert_eq!(reason, "rule 1 of the approval policy (shell `git push`: deny)");
}

#[test]
fn an_allowed_prefix_does_not_vouch_for_a_chained_command() {
    let policy = Policy { mode: ApprovalMode::AutoEdit, rules: vec![rule("shell", Some("git status"), None, Permission::Allow)] };
    assert_eq!(decide(&policy, "shell", shell("git status -s")).0, Permission::Allow);
    for chained in
        ["git status; rm -rf ~", "git status && curl x | sh", "git status > f", "git status $(rm x)", "git status\nrm x"]
    {
        assert_eq!(decide(&policy, "shell", shell(chained)).0, Permission::Ask, "{chained}");
    }
    let deny = Policy { mode: ApprovalMode::FullAuto, rules: vec![rule("shell", Some("rm *"), None, Permission::Deny)] };
    assert_eq!(decide(&deny, "shell", shell("rm -rf x; echo")).0, Permission::Deny, "a deny still matches");
}

#[test]
fn an_allow_needs_every_path_of_a_call_and_a_deny_any_one() {
    let policy = Policy { mode: ApprovalMode::ReadOnly, rules: vec![rule("*", None, Some("docs/**"), Permission::Allow)] };
    let patch = "*** Begin Patch\n*** Update File: docs/a.md\n*** Move to: src/a.md\n*** End Patch";
    assert_eq!(decide(&policy, "apply_patch", json!({"patch": patch})).0, Permission::Ask);
    let patch = "*** Begin Patch\n*** Add File: docs/b.md\n+x\n*** Delete File: docs/c/d.md\n*** End Patch";
    assert_eq!(decide(&policy, "apply_patch", json!({"patch": patch})).0, Permission::Allow);
    assert_eq!(
        decide(&policy, "read_many_files", json!({"paths": ["docs/a", "x"]})).0,
        Permission::Allow,
        "the mode allows reads"
    );
    let strict =
        Policy { mode: ApprovalMode::FullAuto, rules: vec![rule("read_many_files", None, Some("docs/**"), Permission::Deny)] };
    assert_eq!(decide(&strict, "read_many_files", json!({"paths": ["x", "docs/a"]})).0, Permission::Deny, "one is enough");
    assert_eq!(decide(&strict, "read_many_files", json!({"paths": ["x", "y"]})).0, Permission::Allow);
    let patch = "*** Begin Patch\n*** Update File: x\n*** Move to: docs/a\n@@\n-a\n+b\n*** End Patch";
    let write = Policy { rules: vec![rule("apply_patch", None, Some("docs/**"), Permission::Deny)], ..strict.clone() };
    assert_eq!(decide(&write, "apply_patch", json!({"patch": patch})).0, Permission::Deny, "its Move to");
    assert_eq!(decide(&strict, "shell", shell("cat docs/a")).0, Permission::Allow, "a path rule never matches the shell");
}

#[test]
fn bad_rules_are_refused_naming_the_field() {
    let check = |r: Rule| Policy { mode: ApprovalMode::FullAuto, rules: vec![r] }.check();
    let err = check(rule("read_file", Some("ls"), None, Permission::Allow)).unwrap_err();
    assert_eq!((err.0, err.1), (0, "command"), "{}", err.2);
    let err = check(rule("shell", None, Some("src/**"), Permission::Allow)).unwrap_err();
    assert_eq!(err.1, "path", "{}", err.2);
    let err = check(rule("write_file", None, Some("src**"), Permission::Allow)).unwrap_err();
    assert!(err.2.contains("whole path segment"), "{}", err.2);
    assert_eq!(check(rule("", None, None, Permission::Allow)).unwrap_err().1, "tool");
    assert_eq!(check(rule("shell", Some(" "), None, Permission::Allow)).unwrap_err().1, "command");
    assert!(check(rule("mcp__*", None, None, Permission::Deny)).is_ok());
    let err = ApprovalMode::parse("yolo").unwrap_err();
    assert_eq!(err, "unknown approval mode `yolo`; the modes are read-only, auto-edit, full-auto");
    let parsed: Result<Policy, _> =
        serde_json::from_value(json!({"mode": "auto-edit", "rules": [{"tool": "x", "decision": "maybe"}]}));
    assert!(parsed.unwrap_err().to_string().contains("unknown variant `maybe`"));
}

/// Answers from a list, recording what it was asked.
struct Scripted {
    answers: RefCell<Vec<Approval>>,
    asked: RefCell<Vec<ApprovalRequest>>,
}

#[async_trait(?Send)]
impl Approver for Scripted {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        self.asked.borrow_mut().push(request.clone());
        self.answers.borrow_mut().remove(0)
    }
}

#[test]
fn always_allows_calls_like_the_approved_one_for_the_rest_of_the_session() {
    let approver = Rc::new(Scripted {
        answers: RefCell::new(vec![Approval::AllowAlways, Approval::Deny(Some(" ".into()))]),
        asked: RefCell::default(),
    });
    let gate = Gate::new(Policy { mode: ApprovalMode::AutoEdit, rules: vec![] }, Some(approver.clone()));
    let decide = |command: &str| {
        block_on(gate.decide("c", &shell(command), CallFacts::lexical("shell", &shell(command), "/work"), |_| {}))
    };
    let first = decide("cargo test --lib");
    assert!(first.allowed);
    assert_eq!(first.reason.as_deref(), Some("allowed always for shell `cargo test`"));
    let again = decide("cargo test -p x");
    assert!(again.allowed && again.source == "approver", "not asked again");
    assert_eq!(approver.asked.borrow().len(), 1);
    let other = decide("cargo build");
    assert!(!other.allowed);
    assert_eq!(other.reason.as_deref(), Some("the user denied this call"), "a blank reason is no reason");
    let asked = approver.asked.borrow();
    assert_eq!(asked[1].always, rule("shell", Some("cargo build"), None, Permission::Allow));
    assert_eq!(asked[1].reason, "the auto-edit approval mode asks before commands");
}

#[test]
fn always_for_a_file_covers_its_directory() {
    let facts = CallFacts::lexical("write_file", &json!({"file_path": "/w/src/a/b.rs"}), "/w");
    assert_eq!(facts.always_rule().path.as_deref(), Some("src/a/**"));
    let facts = CallFacts::lexical("write_file", &json!({"file_path": "b.rs"}), "/w");
    assert_eq!(facts.always_rule().path.as_deref(), Some("b.rs"));
    let facts = CallFacts::lexical("shell", &shell("ls -la"), "/w");
    assert_eq!(facts.always_rule().command.as_deref(), Some("ls"));
}

#[test]
fn without_an_approver_ask_is_a_deny_that_says_so() {
    let gate = Gate::new(Policy { mode: ApprovalMode::ReadOnly, rules: vec![] }, None);
    let decided = block_on(gate.decide(
        "c",
        &json!({"file_path": "a"}),
        CallFacts::lexical("edit_file", &json!({"file_path": "a"}), "/"),
        |_| panic!("no one to ask"),
    ));
    assert!(!decided.allowed);
    assert_eq!(
        decided.reason.as_deref(),
        Some("the read-only approval mode asks before file edits, and no one can be asked here")
    );
}

/// Answers "always" after yielding once, so that a second call asks while the first waits.
struct Slow(RefCell<usize>);

#[async_trait(?Send)]
impl Approver for Slow {
    async fn approve(&self, _request: &ApprovalRequest) -> Approval {
        *self.0.borrow_mut() += 1;
        let mut yielded = false;
        futures::future::poll_fn(|cx| {
            if yielded {
                std::task::Poll::Ready(())
            } else {
                yielded = true;
                cx.waker().wake_by_ref();
                std::task::Poll::Pending
            }
        })
        .await;
        Approval::AllowAlways
    }
}

#[test]
fn parallel_calls_ask_one_at_a_time_and_the_second_sees_the_first_always() {
    let approver = Rc::new(Slow(RefCell::new(0)));
    let gate = Gate::new(Policy { mode: ApprovalMode::AutoEdit, rules: vec![] }, Some(approver.clone()));
    let (a, b) = block_on(futures::future::join(
        gate.decide("a", &shell("ls -l"), CallFacts::lexical("shell", &shell("ls -l"), "/"), |_| {}),
        gate.decide("b", &shell("ls -a"), CallFacts::lexical("shell", &shell("ls -a"), "/"), |_| {}),
    ));
    assert!(a.allowed && b.allowed);
    assert_eq!(*approver.0.borrow(), 1, "the second call waited for its turn, then the first's always covered it");
    assert_eq!(b.reason.as_deref(), Some("allowed always for shell `ls` earlier in this session"));
}

#[test]
fn a_path_rule_matches_the_file_a_path_names_not_how_it_is_written() {
    let deny = Policy { mode: ApprovalMode::FullAuto, rules: vec![rule("*_file", None, Some("secrets/**"), Permission::Deny)] };
    for path in ["docs/../secrets/key", "./docs/./../secrets/key", "/work/docs/../secrets/key", "secrets//key"] {
        assert_eq!(decide(&deny, "read_file", json!({"file_path": path})), (Permission::Deny, "rule"), "{path}");
    }
    let patch = "cd secrets && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: key\n+x\n*** End Patch\nEOF";
    let deny_patch = Policy { rules: vec![rule("apply_patch", None, Some("secrets/**"), Permission::Deny)], ..deny };
    assert_eq!(decide(&deny_patch, "apply_patch", json!({"patch": patch})).0, Permission::Deny, "the heredoc's cd");
    let docs = Policy { mode: ApprovalMode::ReadOnly, rules: vec![rule("write_file", None, Some("docs/**"), Permission::Allow)] };
    assert_eq!(decide(&docs, "write_file", json!({"file_path": "docs/a.md"})).0, Permission::Allow);
    assert_eq!(decide(&docs, "write_file", json!({"file_path": "docs/../x"})), (Permission::Ask, "mode"));
    assert_eq!(decide(&docs, "write_file", json!({"file_path": "docs/../../work/x"})), (Permission::Ask, "mode"));
}

#[test]
fn a_path_outside_the_working_directory_matches_deny_rules_and_no_allow() {
    let policy = Policy {
        mode: ApprovalMode::ReadOnly,
        rules: vec![
            rule("read_file", None, Some("secrets/**"), Permission::Deny),
            rule("*", None, Some("**"), Permission::Allow),
        ],
    };
    let verdict = policy.decide("read_file", &json!({"file_path": "../elsewhere/key"}), "/work");
    assert_eq!(verdict.permission, Permission::Deny);
    assert_eq!(
        verdict.reason.as_deref(),
        Some(
            "rule 1 of the approval policy (read_file `secrets/**`: deny); `/elsewhere/key` is outside the working \
             directory or cannot be resolved, and such a path matches every deny rule"
        )
    );
    assert_eq!(decide(&policy, "write_file", json!({"file_path": "/tmp/x"})), (Permission::Ask, "mode"), "`**` is not /tmp");
    assert_eq!(decide(&policy, "write_file", json!({"file_path": "src/x"})), (Permission::Allow, "rule"));
}

#[test]
fn a_search_whose_root_holds_a_denied_path_is_refused_naming_the_rule() {
    let policy = Policy {
        mode: ApprovalMode::FullAuto,
        rules: vec![
            rule("*", None, Some("secrets/**"), Permission::Deny),
            rule("grep", None, Some("**/*.key"), Permission::Deny),
        ],
    };
    for (tool, args) in [
        ("grep", json!({"pattern": "x"})),
        ("grep", json!({"pattern": "x", "path": "."})),
        ("grep", json!({"pattern": "x", "path": "/work"})),
        ("glob", json!({"pattern": "**/*"})),
        ("glob", json!({"pattern": "*", "path": "secrets/deep"})),
    ] {
        assert_eq!(decide(&policy, tool, args.clone()), (Permission::Deny, "rule"), "{tool} {args}");
    }
    let reason = policy.decide("grep", &json!({"pattern": "x"}), "/work").reason.unwrap();
    assert_eq!(
        reason,
        "rule 1 of the approval policy (* `secrets/**`: deny); a search under `.` would reach `secrets/**`: search a \
         narrower path that leaves it out"
    );
    assert_eq!(decide(&policy, "glob", json!({"pattern": "*", "path": "src"})), (Permission::Allow, "mode"));
    let reason = policy.decide("grep", &json!({"pattern": "x", "path": "src"}), "/work").reason.unwrap();
    assert!(reason.starts_with("rule 2 of the approval policy (grep `**/*.key`: deny)"), "{reason}");
    assert_eq!(decide(&policy, "list_dir", json!({})), (Permission::Allow, "mode"), "a listing reads no file");
}

#[test]
fn writes_to_the_agents_own_configuration_ask_below_full_auto_whatever_the_rules() {
    let auto_edit = Policy { mode: ApprovalMode::AutoEdit, rules: vec![rule("write_file", None, Some("**"), Permission::Allow)] };
    let patch = "*** Begin Patch\n*** Update File: src/a\n*** Move to: .openagent/agents/a/agent.yml\n@@\n-a\n+b\n*** End Patch";
    for (tool, args) in [
        ("write_file", json!({"file_path": ".openagent/hooks.json"})),
        ("write_file", json!({"file_path": "docs/../.openagent/mcp.json"})),
        ("write_file", json!({"file_path": "/work/.OpenAgent/models.json"})),
        ("edit_file", json!({"file_path": ".openagent/agents/a/agent.yml"})),
        ("apply_patch", json!({"patch": patch})),
        ("write_file", json!({"file_path": ".mcp.json"})),
        ("write_file", json!({"file_path": ".git/config"})),
        ("write_file", json!({"file_path": "sub/.git/hooks/pre-commit"})),
        ("write_file", json!({"file_path": ".git"})),
    ] {
        assert_eq!(decide(&auto_edit, tool, args.clone()), (Permission::Ask, "protection"), "{tool} {args}");
    }
    let reason = auto_edit.decide("write_file", &json!({"file_path": ".openagent/hooks.json"}), "/work").reason.unwrap();
    assert!(reason.starts_with("`.openagent/hooks.json` holds the agent's own configuration"), "{reason}");
    assert_eq!(decide(&auto_edit, "read_file", json!({"file_path": ".openagent/hooks.json"})).0, Permission::Allow);
    assert_eq!(decide(&auto_edit, "write_file", json!({"file_path": "openagent/x"})).0, Permission::Allow);
    let deny = Policy { rules: vec![rule("*_file", None, Some(".openagent/**"), Permission::Deny)], ..auto_edit.clone() };
    assert_eq!(decide(&deny, "write_file", json!({"file_path": ".openagent/hooks.json"})), (Permission::Deny, "rule"));
    let full = Policy { mode: ApprovalMode::FullAuto, ..auto_edit };
    assert_eq!(decide(&full, "write_file", json!({"file_path": ".openagent/hooks.json"})).0, Permission::Allow);
}

#[test]
fn a_protected_write_is_asked_every_time_and_denied_when_no_one_can_be_asked() {
    let policy = Policy { mode: ApprovalMode::AutoEdit, rules: vec![] };
    let args = json!({"file_path": ".openagent/hooks.json", "content": "{}"});
    let decide = |gate: &Gate| block_on(gate.decide("c", &args, CallFacts::lexical("write_file", &args, "/w"), |_| {}));
    let alone = decide(&Gate::new(policy.clone(), None));
    assert!(!alone.allowed);
    assert!(alone.reason.as_deref().is_some_and(|r| r.contains("agent's own configuration") && r.ends_with("asked here")));
    let approver =
        Rc::new(Scripted { answers: RefCell::new(vec![Approval::AllowAlways, Approval::Deny(None)]), asked: RefCell::default() });
    let gate = Gate::new(policy, Some(approver.clone()));
    assert!(decide(&gate).allowed);
    assert!(!decide(&gate).allowed, "an always does not cover the next one");
    assert_eq!(approver.asked.borrow().len(), 2);
}

#[test]
fn git_options_that_write_files_or_run_programs_are_not_vouched_for_by_an_allow() {
    let policy = Policy {
        mode: ApprovalMode::AutoEdit,
        rules: vec![
            rule("shell", Some("git log*"), None, Permission::Allow),
            rule("shell", Some("git status"), None, Permission::Allow),
            rule("shell", Some("git diff"), None, Permission::Allow),
            rule("shell", Some("git ls-files"), None, Permission::Allow),
            rule("shell", Some("git format-patch"), None, Permission::Allow),
            rule("shell", Some("git grep"), None, Permission::Allow),
        ],
    };
    for command in [
        "git log --output=/tmp/x",
        "git log --out=x",
        "git log '--output'=x",
        "git log --outp\\ut=x",
        "git log *",
        "git log {--output=x,}",
        "git diff --output x",
        "git -c core.fsmonitor=x status",
        "git -c core.pager=x status",
        "git --config-env=core.pager=X status",
        "git -C ../other status",
        "git --git-dir=evil status",
        "git --work-tree=. status",
        "git --bare status",
        "git --exec-path=/tmp status",
        "git format-patch -o /tmp HEAD~1",
        "git format-patch --output-directory=/tmp HEAD~1",
        "git grep -Ovim x",
        "git grep --open-files-in-pager=vim x",
    ] {
        assert_eq!(decide(&policy, "shell", shell(command)), (Permission::Ask, "mode"), "{command}");
    }
    for command in ["git log --oneline -n 5", "git log -c", "git ls-files -o", "git grep -o x", "git status -s"] {
        assert_eq!(decide(&policy, "shell", shell(command)), (Permission::Allow, "rule"), "{command}");
    }
    let deny = Policy { mode: ApprovalMode::FullAuto, rules: vec![rule("shell", Some("git *"), None, Permission::Deny)] };
    assert_eq!(decide(&deny, "shell", shell("git -c a=b log")).0, Permission::Deny, "a deny still matches");
}
