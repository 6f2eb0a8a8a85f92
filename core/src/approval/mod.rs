//! Approval: whether a tool call may run, decided `allow`, `ask` or `deny` by a [`Policy`].
//!
//! A policy is a mode and ordered rules. A rule names a tool (a glob: `shell`, `mcp__*`), and
//! for the shell tool a command (a prefix, `git status`, or a glob, `cargo *`), for the file tools
//! a path glob (`src/**`); the first rule that matches a call decides it. When none does, the
//! mode decides, with names taken from codex:
//! - `read-only`: the tools that write files, and commands, ask;
//! - `auto-edit`: file edits are allowed, commands ask;
//! - `full-auto`: everything is allowed (the default, the core's behaviour before policies).
//!
//! `ask` goes to the host through the [`Approver`] seam: a terminal prompt, an HTTP round trip,
//! an async JavaScript function. It answers allow, deny (with a reason the model reads), or allow
//! always, which allows calls like this one for the rest of the session. Without an approver,
//! `ask` is a deny. Tools other than the file tools and the shell (the host's own, MCP tools,
//! subagent tools) are allowed unless a rule says otherwise.
//!
//! A path glob matches the file a path reaches, not how the call writes it: the environment
//! resolves it ([`ExecutionEnvironment::canonical_path`]: `..` folded, symlinks followed, an
//! absolute path inside the working directory made relative), so `docs/../secrets/key` and a
//! link `alias -> secrets` are both `secrets/...`. An `allow` needs every path of a call to
//! match; a `deny` or an `ask`, any one. A path that cannot be resolved (a dangling link, a loop)
//! or lies outside the working directory matches every deny rule and no allow: what cannot be
//! told is refused. `grep` and `glob` are refused when their root holds what a deny rule names,
//! rather than search it; the reason says which rule and to narrow the path.
//!
//! Writes to the agent's own configuration and git's (a `.openagent`, `.git` or `.mcp.json`
//! anywhere on the resolved path) ask every time in every mode below `full-auto`, whatever the
//! rules say: an allow does not vouch for them, nor does an earlier "always"; a deny still
//! denies. And an allow with a command does not vouch for git told to write a file or run a
//! program (`--output`, `-c`, `-C`, `--git-dir`, ..., see `git.rs`).

mod escalation;
mod git;
#[cfg(test)]
mod tests;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::task::{Poll, Waker};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::env::{lexical_path, ExecutionEnvironment};
pub use crate::glob::glob_match;
use crate::sandbox::SandboxPolicy;

/// How the tools of MCP servers are named (`mcp__<server>__<tool>`): what they do is the server's
/// to say, so `read-only` and `auto-edit` ask before them as before commands.
pub const MCP_TOOL_PREFIX: &str = "mcp__";
/// The tools that change files: `read-only` asks before them.
pub const EDIT_TOOLS: [&str; 3] = ["write_file", "edit_file", "apply_patch"];
/// The tool that runs commands: `read-only` and `auto-edit` ask before it.
pub const SHELL_TOOL: &str = "shell";
/// The tools a `path` rule can match: the edit tools and those that read.
pub const FILE_TOOLS: [&str; 8] =
    ["write_file", "edit_file", "apply_patch", "read_file", "read_many_files", "list_dir", "grep", "glob"];

/// What a policy does when no rule matches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalMode {
    /// Writes, commands and MCP tools ask.
    ReadOnly,
    /// File edits are allowed, commands and MCP tools ask.
    AutoEdit,
    /// Everything is allowed.
    #[default]
    FullAuto,
}

impl ApprovalMode {
    pub const NAMES: &'static str = "read-only, auto-edit, full-auto";

    /// The mode named `name`, or an error listing the names.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "read-only" => Ok(Self::ReadOnly),
            "auto-edit" => Ok(Self::AutoEdit),
            "full-auto" => Ok(Self::FullAuto),
            _ => Err(format!("unknown approval mode `{name}`; the modes are {}", Self::NAMES)),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::AutoEdit => "auto-edit",
            Self::FullAuto => "full-auto",
        }
    }
}

/// What a rule (or a mode) says of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Permission {
    Allow,
    Ask,
    Deny,
}

/// One rule: `tool` is a glob over tool names; `command` (shell only) a prefix of the command,
/// or a glob over all of it when it has `*` or `?`; `path` (file tools only) a glob every path
/// of the call must match, relative to the working directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub decision: Permission,
}

impl Rule {
    /// Why this rule cannot be used, if it cannot: each problem names the field.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if self.tool.is_empty() {
            return Err(("tool", "the tool name (or glob) is empty".into()));
        }
        let plain = !is_glob(&self.tool);
        match (&self.command, &self.path) {
            (Some(_), Some(_)) => Err(("path", "a rule has `command` or `path`, not both".into())),
            (Some(command), None) => {
                if plain && self.tool != SHELL_TOOL {
                    return Err(("command", format!("`command` applies to the `shell` tool only, not `{}`", self.tool)));
                }
                if command.trim().is_empty() {
                    return Err(("command", "the command pattern is empty".into()));
                }
                Ok(())
            }
            (None, Some(path)) => {
                if plain && !FILE_TOOLS.contains(&self.tool.as_str()) {
                    let tools = FILE_TOOLS.join(", ");
                    return Err(("path", format!("`path` applies to the file tools ({tools}), not `{}`", self.tool)));
                }
                if path.is_empty() {
                    return Err(("path", "the path glob is empty".into()));
                }
                crate::glob::check_path_glob(path).map_err(|e| ("path", e))
            }
            (None, None) => Ok(()),
        }
    }

    /// The rule as people read it: ``shell `git status` `` or ``write_file `src/**` ``.
    pub fn describe(&self) -> String {
        match self.command.as_ref().or(self.path.as_ref()) {
            // Concatenation rather than `format!` here and below: less code in the browser bundle.
            Some(pattern) => [&self.tool, " `", pattern, "`"].concat(),
            None => self.tool.clone(),
        }
    }

    /// Whether the rule applies to `call`. An `allow` with a command pattern never matches a
    /// command that chains or redirects (`git status; rm -rf ~`), nor git with an option that
    /// writes a file or runs a program (`git log --output=FILE`): the pattern vouches for one
    /// command, not for what follows it or what it is told to run. An `allow` with a path pattern
    /// matches when every path of the call matches it; a `deny` or an `ask`, when any does.
    fn matches(&self, call: &CallFacts) -> bool {
        if !glob_match(&self.tool, &call.tool, false) {
            return false;
        }
        let allow = self.decision == Permission::Allow;
        if let Some(pattern) = &self.command {
            let Some(command) = &call.command else { return false };
            if allow && (command.bytes().any(|b| b";&|`$><\n(".contains(&b)) || git::writes_or_runs(command)) {
                return false;
            }
            return if is_glob(pattern) {
                glob_match(pattern, command, false)
            } else {
                command.strip_prefix(pattern.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
            };
        }
        if let Some(pattern) = &self.path {
            let (mut any, mut all) = (false, !call.paths.is_empty());
            for path in &call.paths {
                let hit = path_hit(self.decision, pattern, path, call.searches());
                any |= hit;
                all &= hit;
            }
            return if allow { all } else { any };
        }
        true
    }
}

/// Whether one path of a call matches a rule's `pattern`. An absolute path is one not known to be
/// inside the working directory (outside it, or not resolved): it matches every deny rule and
/// never an allow, so that what cannot be told is refused. A search's root matches a deny rule
/// that names paths under it, since the search would read them.
fn path_hit(decision: Permission, pattern: &str, path: &str, search: bool) -> bool {
    let deny = decision == Permission::Deny;
    if path.starts_with('/') {
        return deny || (decision == Permission::Ask && glob_match(pattern, path, true));
    }
    glob_match(pattern, path, true) || (deny && search && may_hold(pattern, path))
}

/// Whether a search under `dir` (relative, `.` for the working directory) can reach a path that
/// `pattern` matches: `dir`'s names match the pattern's first names, or reach its `**`.
fn may_hold(pattern: &str, dir: &str) -> bool {
    if pattern.starts_with('/') {
        return false;
    }
    let mut names = pattern.split('/');
    if dir != "." {
        for name in dir.split('/') {
            match names.next() {
                Some("**") => return true,
                Some(head) if glob_match(head, name, true) => {}
                _ => return false,
            }
        }
    }
    names.next().is_some()
}

/// A mode and ordered rules: the first rule that matches a call decides it, else the mode.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Policy {
    pub mode: ApprovalMode,
    pub rules: Vec<Rule>,
}

impl Policy {
    /// Every rule checked: the first problem, with the rule's index and field.
    pub fn check(&self) -> Result<(), (usize, &'static str, String)> {
        for (index, rule) in self.rules.iter().enumerate() {
            rule.check().map_err(|(field, message)| (index, field, message))?;
        }
        Ok(())
    }

    /// What the policy says of the call `tool` with `arguments`, in `working_dir`, and why. Its
    /// paths are folded by name, as in an environment without symlinks; a session resolves them
    /// through its environment.
    pub fn decide(&self, tool: &str, arguments: &Value, working_dir: &str) -> Verdict {
        let call = CallFacts::lexical(tool, arguments, working_dir);
        self.decide_facts(&call)
    }

    fn decide_facts(&self, call: &CallFacts) -> Verdict {
        let verdict = self.by_rules_and_mode(call);
        match &call.protected {
            Some(path) if self.mode != ApprovalMode::FullAuto && verdict.permission != Permission::Deny => {
                let reason = [
                    "`",
                    path,
                    "` holds the agent's own configuration or git's, which can make later runs run programs: \
                     writing it asks every time outside full-auto, whatever the rules say",
                ]
                .concat();
                Verdict { permission: Permission::Ask, source: "protection", reason: Some(reason) }
            }
            _ => verdict,
        }
    }

    fn by_rules_and_mode(&self, call: &CallFacts) -> Verdict {
        if let Some((index, rule)) = self.rules.iter().enumerate().find(|(_, rule)| rule.matches(call)) {
            let number = (index + 1).to_string();
            let mut reason =
                ["rule ", &number, " of the approval policy (", &rule.describe(), ": ", word(rule.decision), ")"].concat();
            if let (Permission::Deny, Some(pattern)) = (rule.decision, &rule.path) {
                note_why(&mut reason, pattern, call);
            }
            return Verdict { permission: rule.decision, source: "rule", reason: Some(reason) };
        }
        let mode = self.mode;
        let (permission, what) = if call.tool == SHELL_TOOL {
            (mode != ApprovalMode::FullAuto, "commands")
        } else if call.tool.starts_with(MCP_TOOL_PREFIX) {
            (mode != ApprovalMode::FullAuto, "the tools of MCP servers")
        } else if EDIT_TOOLS.contains(&call.tool.as_str()) {
            (mode == ApprovalMode::ReadOnly, "file edits")
        } else {
            (false, "")
        };
        if permission {
            let reason = ["the ", mode.name(), " approval mode asks before ", what].concat();
            Verdict { permission: Permission::Ask, source: "mode", reason: Some(reason) }
        } else {
            Verdict { permission: Permission::Allow, source: "mode", reason: None }
        }
    }
}

/// Adds to a deny's `reason` why a path the rule's glob does not name still matched it: the path
/// could not be placed inside the working directory, or a search under it would reach the glob.
fn note_why(reason: &mut String, pattern: &str, call: &CallFacts) {
    for path in &call.paths {
        if glob_match(pattern, path, true) {
            continue;
        }
        let note = if path.starts_with('/') {
            ["; `", path, "` is outside the working directory or cannot be resolved, and such a path matches every deny rule"]
                .concat()
        } else {
            ["; a search under `", path, "` would reach `", pattern, "`: search a narrower path that leaves it out"].concat()
        };
        reason.push_str(&note);
        return;
    }
}

fn is_glob(pattern: &str) -> bool {
    pattern.bytes().any(|b| b == b'*' || b == b'?')
}

fn word(permission: Permission) -> &'static str {
    match permission {
        Permission::Allow => "allow",
        Permission::Ask => "ask",
        Permission::Deny => "deny",
    }
}

/// A policy's answer: what, which part of the policy decided it (`rule` or `mode`), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub permission: Permission,
    pub source: &'static str,
    pub reason: Option<String>,
}

/// What rules look at in a call: its tool, its command, its paths.
pub(crate) struct CallFacts {
    tool: String,
    command: Option<String>,
    /// The files the call reaches, relative to the working directory when inside it; absolute
    /// when outside it or when they cannot be resolved (see [`path_hit`]).
    paths: Vec<String>,
    /// The first path a writing tool would change in the agent's configuration or git's.
    protected: Option<String>,
}

/// The names the agent's own configuration (agents, hooks, MCP servers, models, permissions) and
/// git's (its config, hooks, and a `.git` file pointing elsewhere) live under, anywhere on a path:
/// writing them can make the next run, or the next `git status`, run a program. Compared ignoring
/// ASCII case, as a case-insensitive filesystem would open them.
const PROTECTED: [&str; 3] = [".openagent", ".git", ".mcp.json"];

impl CallFacts {
    /// The facts of a call with its paths resolved by `env`, symlinks and all: what they reach.
    pub(crate) async fn resolved(tool: &str, arguments: &Value, env: &dyn ExecutionEnvironment) -> Self {
        let mut call = Self::written(tool, arguments);
        let root = match env.canonical_path(".").await {
            Ok(root) => root,
            Err(_) => env.working_directory(),
        };
        let mut reached = Vec::new();
        for path in &call.paths {
            reached.push(env.canonical_path(path).await.ok());
        }
        call.place(reached, &root);
        call
    }

    /// The facts of a call with its paths folded by name against `working_dir`.
    fn lexical(tool: &str, arguments: &Value, working_dir: &str) -> Self {
        let mut call = Self::written(tool, arguments);
        let mut reached = Vec::new();
        for path in &call.paths {
            reached.push(Some(lexical_path(working_dir, path)));
        }
        call.place(reached, working_dir);
        call
    }

    /// The facts with the paths as the call writes them. A patch's are read by the parser that
    /// applies it, so that its `cd DIR &&` and every file of it, `Move to` included, are seen.
    fn written(tool: &str, arguments: &Value) -> Self {
        let text = |key: &str| arguments.get(key).and_then(Value::as_str);
        let command = (tool == SHELL_TOOL).then(|| text("command").unwrap_or("").trim().to_owned());
        // Plain loops and pushes: iterator adapters would each be code of their own in the bundle.
        let mut paths = Vec::new();
        if let Some(path) = text("file_path").or_else(|| text("path")) {
            paths.push(path.to_owned());
        } else if let Some(list) = arguments.get("paths").and_then(Value::as_array) {
            for path in list {
                paths.push(path.as_str().unwrap_or("").to_owned());
            }
        } else if let Some(patch) = text("patch") {
            // A patch that does not parse changes nothing: the tool refuses it.
            for op in openagent_apply_patch::parse(patch).unwrap_or_default() {
                for path in op.paths().into_iter().flatten() {
                    paths.push(path.to_owned());
                }
            }
        } else if FILE_TOOLS.contains(&tool) {
            paths.push(".".into()); // list_dir, grep and glob default to the working directory
        }
        Self { tool: tool.to_owned(), command, paths, protected: None }
    }

    /// Replaces each path by what it reaches (`None`: it cannot be resolved), relative to `root`,
    /// and notes a write to a protected name, or one whose target cannot be told.
    fn place(&mut self, reached: Vec<Option<String>>, root: &str) {
        let writes = EDIT_TOOLS.contains(&self.tool.as_str());
        for (path, reached) in self.paths.iter_mut().zip(reached) {
            let shown = match &reached {
                Some(abs) => relative(abs, root),
                None => lexical_path(root, path),
            };
            let protected = match &reached {
                Some(abs) => abs.split('/').any(|name| PROTECTED.iter().any(|p| name.eq_ignore_ascii_case(p))),
                None => true,
            };
            if writes && protected && self.protected.is_none() {
                self.protected = Some(shown.clone());
            }
            *path = shown;
        }
    }

    fn searches(&self) -> bool {
        self.tool == "grep" || self.tool == "glob"
    }

    /// The rule "always" adds for this call: the command's first word (and its subcommand), the
    /// directory of its paths, or the whole tool.
    fn always_rule(&self) -> Rule {
        let mut rule = Rule { tool: self.tool.clone(), command: None, path: None, decision: Permission::Allow };
        if let Some(command) = &self.command {
            let mut words = command.split(' ').filter(|word| !word.is_empty());
            let mut prefix = words.next().unwrap_or("").to_owned();
            if let Some(sub) = words.next().filter(|w| w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')) {
                if !sub.starts_with('-') {
                    prefix = [&prefix, " ", sub].concat();
                }
            }
            rule.command = (!prefix.is_empty()).then_some(prefix);
        } else if let Some(first) = self.paths.first() {
            // A call with paths elsewhere too is not matched by it: every path must match.
            rule.path = Some(match first.rsplit_once('/') {
                Some((dir, _)) => [dir, "/**"].concat(),
                None => first.clone(),
            });
        }
        rule
    }
}

/// The absolute, normal `path` relative to `root` when it is inside it (`.` for `root` itself),
/// else as it is.
fn relative(path: &str, root: &str) -> String {
    let inside = match path.strip_prefix(root.trim_end_matches('/')) {
        Some("") | Some("/") => Some("."),
        Some(rest) => rest.strip_prefix('/'),
        None => None,
    };
    inside.unwrap_or(path).to_owned()
}

/// A call the policy asks about, as the host's [`Approver`] gets it.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    pub call_id: String,
    pub tool_name: String,
    pub arguments: Value,
    /// Why it asks: the rule or the mode.
    pub reason: String,
    /// The rule that [`Approval::AllowAlways`] adds to the session.
    pub always: Rule,
    /// A write to the agent's configuration or git's, or a call to run outside the sandbox: asked
    /// every time, whatever the rules, so that only an answer lets it through ("always" allows
    /// it once).
    pub protected: bool,
    /// The sandbox refused the call (a command it denied, a write it does not allow); allowing
    /// runs it again outside the sandbox, with the user's rights.
    pub outside_sandbox: bool,
}

/// The host's answer to an [`ApprovalRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    Allow,
    /// Allow this call, and calls matching [`ApprovalRequest::always`] for the rest of the session.
    AllowAlways,
    /// Refuse; the reason (the user's, or the host's own words) goes to the model.
    Deny(Option<String>),
}

/// The host seam for `ask`: one method, asked once per call that needs it, one call at a time.
#[async_trait(?Send)]
pub trait Approver {
    async fn approve(&self, request: &ApprovalRequest) -> Approval;
}

/// A session's policy, its approver, and the rules "always" added: shared with its subagents,
/// so a subagent is held to the same policy and an "always" counts for all of them.
#[derive(Default)]
pub(crate) struct Gate {
    pub policy: Policy,
    /// What a call may reach once it runs: beside the approval policy, and shared the same way.
    pub sandbox: SandboxPolicy,
    pub approver: Option<Rc<dyn Approver>>,
    always: RefCell<Vec<Rule>>,
    /// One question at a time: parallel calls wait, then see any "always" given meanwhile. A
    /// flag and the wakers of those waiting, rather than an async mutex, for the browser bundle.
    asking: Cell<bool>,
    waiting: RefCell<Vec<Waker>>,
}

/// The turn to ask, given back (and the next waiter woken) when dropped, also when the question
/// is abandoned (an abort).
struct Turn<'a>(&'a Gate);

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.0.asking.set(false);
        for waker in self.0.waiting.take() {
            waker.wake();
        }
    }
}

/// The decision on a call: `allow` or `deny` (never `ask`: asked already), its source and reason.
pub(crate) struct Decided {
    pub allowed: bool,
    pub source: &'static str,
    pub reason: Option<String>,
}

impl Gate {
    pub fn new(policy: Policy, approver: Option<Rc<dyn Approver>>) -> Self {
        Self { policy, approver, ..Self::default() }
    }

    /// Waits for the turn to ask: one question at a time.
    async fn turn(&self) -> Turn<'_> {
        futures::future::poll_fn(|cx| {
            if self.asking.replace(true) {
                self.waiting.borrow_mut().push(cx.waker().clone());
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await;
        Turn(self)
    }

    /// The gate with `sandbox` as what its calls may reach.
    pub fn confining(self, sandbox: SandboxPolicy) -> Self {
        Self { sandbox, ..self }
    }

    /// Decides the call, asking the approver when the policy says `ask`; `on_ask` is told just
    /// before it is asked. A write to a protected path is asked every time: no "always" covers it.
    pub async fn decide(&self, call_id: &str, arguments: &Value, call: CallFacts, on_ask: impl Fn(&ApprovalRequest)) -> Decided {
        let verdict = self.policy.decide_facts(&call);
        let reason = match verdict.permission {
            Permission::Allow => return Decided { allowed: true, source: verdict.source, reason: verdict.reason },
            Permission::Deny => return Decided { allowed: false, source: verdict.source, reason: verdict.reason },
            Permission::Ask => verdict.reason.unwrap_or_default(),
        };
        let _turn = self.turn().await;
        let protected = call.protected.is_some();
        if let Some(rule) = self.always.borrow().iter().find(|rule| !protected && rule.matches(&call)) {
            let reason = ["allowed always for ", &rule.describe(), " earlier in this session"].concat();
            return Decided { allowed: true, source: "approver", reason: Some(reason) };
        }
        let Some(approver) = &self.approver else {
            let reason = reason + ", and no one can be asked here";
            return Decided { allowed: false, source: "approver", reason: Some(reason) };
        };
        let request = ApprovalRequest {
            call_id: call_id.to_owned(),
            tool_name: call.tool.clone(),
            arguments: arguments.clone(),
            reason,
            always: call.always_rule(),
            protected,
            outside_sandbox: false,
        };
        on_ask(&request);
        let (allowed, reason) = match approver.approve(&request).await {
            Approval::Allow => (true, None),
            Approval::AllowAlways if protected => (true, Some("allowed this once: writes to this path ask every time".into())),
            Approval::AllowAlways => {
                let reason = ["allowed always for ", &request.always.describe()].concat();
                self.always.borrow_mut().push(request.always);
                (true, Some(reason))
            }
            Approval::Deny(reason) => {
                let reason = reason.filter(|r| !r.trim().is_empty());
                (false, Some(reason.unwrap_or_else(|| "the user denied this call".into())))
            }
        };
        Decided { allowed, source: "approver", reason }
    }
}
