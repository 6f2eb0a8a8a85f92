//! The core's [`Hooks`] as commands: each hook configured for a point (and, for tool calls,
//! whose matcher takes the tool) runs in turn through `/bin/bash -c` in the working directory,
//! supervised like the shell tool's commands (its own process group, every process it starts
//! ended with it, output capped), with the [`HookInput`] as JSON on stdin.
//!
//! - Exit 0: go on. A `pre_tool_use` hook may print `{"tool_input": {...}}` to run the call with
//!   those arguments (the next hook sees them); a `user_prompt_submit` hook's output is context
//!   the model reads after the prompt.
//! - Exit 2: block, stderr the reason; no later hook of that point runs.
//! - Anything else (another exit code, a timeout, a command that cannot start, unreadable
//!   output): a failure, reported and otherwise ignored.
//!
//! A hook is the user's own program, so it runs with the user's rights unless its configuration
//! names a sandbox policy; then it is confined as the model's commands are.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use openagent_core::approval::glob_match;
use openagent_core::env::{EnvError, ExecOptions};
use openagent_core::hooks::{HookEvent, HookInput, HookOutcome, Hooks};
use openagent_core::sandbox::SandboxPolicy;
use serde_json::Value;

use super::local_env::confined::{self, Confined, Prepared};
use super::local_env::exec;
use super::local_env::vars::command_vars;
use super::local_env::{EnvPass, EnvPolicy, Supervision};

/// The most of a reason or a context that is kept: the model reads it.
pub const MAX_TEXT: usize = 8 * 1024;

/// One configured hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookCommand {
    /// `pre_tool_use`, `post_tool_use`, `user_prompt_submit` or `session_end`.
    pub point: &'static str,
    /// Globs on the tool name separated by `|`; every tool when `None`.
    pub matcher: Option<String>,
    pub command: String,
    pub timeout_ms: u64,
    /// What the hook may reach, as its configuration says; `None`: the user's own rights (the
    /// default: a hook is the user's program).
    pub sandbox: Option<SandboxPolicy>,
}

impl HookCommand {
    fn takes(&self, event: &HookEvent) -> bool {
        self.point == event.name()
            && match (&self.matcher, event.tool_name()) {
                (Some(matcher), Some(tool)) => matcher.split('|').any(|glob| glob_match(glob.trim(), tool, false)),
                _ => true,
            }
    }

    /// How this hook is named in a report.
    fn describe(&self) -> String {
        format!("hook `{}` ({})", self.command, self.point)
    }
}

/// The hooks of a session, run as commands in `dir`.
pub struct CommandHooks {
    dir: PathBuf,
    hooks: Vec<HookCommand>,
    /// The confinement of the hooks that have a policy, prepared once per policy.
    prepared: Prepared,
}

impl CommandHooks {
    pub fn new(dir: PathBuf, hooks: Vec<HookCommand>) -> Self {
        Self { dir, hooks, prepared: Prepared::default() }
    }

    /// How `hook` is held in: the confinement its policy asks for, none without one.
    fn confinement(&self, hook: &HookCommand) -> Result<Option<Arc<Confined>>, EnvError> {
        let Some(policy) = hook.sandbox.as_ref().filter(|policy| policy.confines()) else { return Ok(None) };
        let confined = self.prepared.get(policy, &self.dir, None, exec::namespaces_available())?;
        Ok(Some(Arc::new(confined)))
    }
}

#[async_trait(?Send)]
impl Hooks for CommandHooks {
    async fn run(&self, input: &HookInput) -> HookOutcome {
        let mut outcome = HookOutcome::default();
        let mut input = input.clone();
        for hook in &self.hooks {
            if !hook.takes(&input.event) {
                continue;
            }
            let stdin = serde_json::to_vec(&input).unwrap_or_default();
            // The user's own commands get the user's variables, less the secrets, as MCP servers do.
            let mut vars = command_vars(EnvPolicy::InheritAll, &EnvPass::default(), std::env::vars_os(), None);
            let confinement = match self.confinement(hook) {
                Ok(confinement) => confinement,
                Err(e) => {
                    outcome.failures.push(format!("{} could not be confined: {e}", hook.describe()));
                    continue;
                }
            };
            if let Some(confined) = &confinement {
                vars.extend(confined::vars(confined));
            }
            let options = ExecOptions { timeout_ms: hook.timeout_ms, sandbox: hook.sandbox.clone(), ..ExecOptions::default() };
            let ran = exec::run(
                exec::Program::Shell(&hook.command),
                &self.dir,
                vars,
                &options,
                Some(stdin),
                Supervision::detect(),
                confinement,
            )
            .await;
            let done = match ran {
                Ok(done) => done,
                Err(e) => {
                    outcome.failures.push(format!("{} could not start: {e}", hook.describe()));
                    continue;
                }
            };
            if done.timed_out {
                let seconds = hook.timeout_ms as f64 / 1000.0;
                outcome.failures.push(format!("{} timed out after {seconds} s and was stopped", hook.describe()));
                continue;
            }
            match done.exit_code {
                0 => {}
                2 => {
                    let reason = bounded(done.stderr.trim());
                    outcome.block = Some(if reason.is_empty() { format!("{} gave no reason", hook.describe()) } else { reason });
                    break;
                }
                code => {
                    let stderr = bounded(done.stderr.trim());
                    let said = if stderr.is_empty() { String::new() } else { format!(": {stderr}") };
                    outcome.failures.push(format!("{} failed with exit code {code}{said}", hook.describe()));
                    continue;
                }
            }
            let stdout = done.stdout.trim();
            match &mut input.event {
                HookEvent::PreToolUse { tool_input, .. } if stdout.starts_with('{') => match rewrite(stdout) {
                    Ok(Some(arguments)) => {
                        *tool_input = arguments.clone();
                        outcome.tool_input = Some(arguments);
                    }
                    Ok(None) => {}
                    Err(problem) => {
                        outcome.failures.push(format!("{} printed {problem}; its output is ignored", hook.describe()))
                    }
                },
                HookEvent::UserPromptSubmit { .. } if !stdout.is_empty() => {
                    let context = outcome.context.get_or_insert_with(String::new);
                    if !context.is_empty() {
                        context.push_str("\n\n");
                    }
                    context.push_str(&bounded(stdout));
                }
                _ => {}
            }
        }
        outcome
    }
}

/// What a `pre_tool_use` hook printed that cannot rewrite the call's arguments; it reads after
/// "the hook printed".
#[derive(Debug, thiserror::Error)]
enum BadRewrite {
    #[error("output that is not JSON ({0})")]
    NotJson(#[from] serde_json::Error),
    #[error("a `tool_input` that is not an object")]
    NotAnObject,
}

/// The arguments a `pre_tool_use` hook's `{"tool_input": {...}}` gives, if any.
fn rewrite(stdout: &str) -> Result<Option<Value>, BadRewrite> {
    let value: Value = serde_json::from_str(stdout)?;
    match value.get("tool_input") {
        None => Ok(None),
        Some(arguments) if arguments.is_object() => Ok(Some(arguments.clone())),
        Some(_) => Err(BadRewrite::NotAnObject),
    }
}

/// `text` cut to [`MAX_TEXT`] bytes (between characters), saying how much was left out.
fn bounded(text: &str) -> String {
    if text.len() <= MAX_TEXT {
        return text.to_owned();
    }
    let mut end = MAX_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} [... {} more bytes]", &text[..end], text.len() - end)
}
