//! Hooks in configuration: `.openagent/hooks.json` (`{"hooks": {point: [hook, ...]}}`) for a
//! directory, and `hooks:` in an agent.yml (same shape), whose hooks run after the file's. Each
//! hook is a command (`/bin/bash -c`), optionally limited to some tools by `matcher`.

use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;

use openagent_core::hooks::HOOK_POINTS;
use openagent_core::sandbox::SandboxPolicy;
use serde::{Deserialize, Serialize};

pub use crate::config_error::HooksError;
use crate::config_error::{self, ConfigError};
use openagent_host::hooks::{CommandHooks, HookCommand};

/// Where a directory's hooks are configured.
pub const HOOKS_FILE: &str = ".openagent/hooks.json";

/// A hook's timeout when none is given.
const DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// One hook.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HookConfig {
    /// Run by `/bin/bash -c` in the working directory, the event as JSON on stdin.
    pub command: String,
    /// `pre_tool_use` and `post_tool_use` only: the tools it runs for, as globs on the tool name
    /// separated by `|` (`shell|write_file`, `mcp__*`); every tool when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// Milliseconds before the hook is stopped and reported (60000 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// What the hook's command may reach (the core's `SandboxPolicy`, checked as it is read);
    /// absent: `full-access`, as the hook is the user's own program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxPolicy>,
}

impl HookConfig {
    /// The policy the hook runs under, as commands take it (`ExecOptions::sandbox`): `None`,
    /// unconfined, for `full-access`.
    pub fn exec_sandbox(&self) -> Option<SandboxPolicy> {
        self.sandbox.clone().filter(SandboxPolicy::confines)
    }
}

/// The hooks of each point, in the order they run.
pub type HooksConfig = BTreeMap<String, Vec<HookConfig>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HooksFile {
    hooks: HooksConfig,
}

/// Parses and checks the text of a hooks.json.
pub fn parse(text: &str) -> Result<HooksConfig, HooksError> {
    let file: HooksFile = serde_json::from_str(text)?;
    check(&file.hooks).map_err(|(at, problem)| HooksError::Hook { at, problem })?;
    Ok(file.hooks)
}

/// Each point is known and each hook usable; the error names the hook (`pre_tool_use[0]`, or
/// the point) and says what is wrong with it.
pub fn check(hooks: &HooksConfig) -> Result<(), (String, String)> {
    for (point, list) in hooks {
        if !HOOK_POINTS.contains(&point.as_str()) {
            return Err((point.clone(), format!("is not a hook point: the points are {}", HOOK_POINTS.join(", "))));
        }
        for (index, hook) in list.iter().enumerate() {
            let problem = if hook.command.trim().is_empty() {
                Some("`command` is empty".to_owned())
            } else if hook.matcher.is_some() && !point.ends_with("_tool_use") {
                Some(format!("has a `matcher`, but {point} is not about a tool: only pre_tool_use and post_tool_use take one"))
            } else if hook.timeout_ms == Some(0) {
                Some("`timeout_ms` is 0: give the milliseconds it may take".to_owned())
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err((format!("{point}[{index}]"), problem));
            }
        }
    }
    Ok(())
}

/// The hooks of `cwd`'s `.openagent/hooks.json` (none when there is no such file), then
/// `agent`'s (an agent config's `hooks:`); `None` when there are none at all. The error names the
/// file.
pub fn load(cwd: &Path, agent: &HooksConfig) -> Result<Option<Rc<CommandHooks>>, ConfigError> {
    let file = cwd.join(HOOKS_FILE);
    let mut hooks = match config_error::read_named(&file)? {
        Some(text) => parse(&text).map_err(|problem| ConfigError::Hooks { file, problem })?,
        None => HooksConfig::new(),
    };
    for (point, list) in agent {
        hooks.entry(point.clone()).or_default().extend(list.iter().cloned());
    }
    let commands: Vec<HookCommand> = hooks
        .into_iter()
        .flat_map(|(point, list)| {
            list.into_iter().map(move |hook| HookCommand {
                point: HOOK_POINTS.into_iter().find(|p| *p == point).unwrap_or_default(),
                sandbox: hook.exec_sandbox(),
                matcher: hook.matcher,
                command: hook.command,
                timeout_ms: hook.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS),
            })
        })
        .collect();
    Ok((!commands.is_empty()).then(|| Rc::new(CommandHooks::new(cwd.to_owned(), commands))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hooks_json_shape_loads() {
        let hooks = parse(
            r#"{"hooks": {
                "pre_tool_use": [{"matcher": "shell|mcp__*", "command": "./check.sh", "timeout_ms": 5000}],
                "session_end": [{"command": "echo bye >> log"}]
            }}"#,
        )
        .unwrap();
        assert_eq!(hooks["pre_tool_use"][0].matcher.as_deref(), Some("shell|mcp__*"));
        assert_eq!(hooks["session_end"][0].timeout_ms, None);
        assert_eq!(hooks["session_end"][0].exec_sandbox(), None, "full-access by default");
    }

    #[test]
    fn a_hook_takes_a_sandbox_policy_checked_as_it_is_read() {
        let hooks = parse(r#"{"hooks": {"session_end": [{"command": "x", "sandbox": "read-only"}]}}"#).unwrap();
        assert_eq!(hooks["session_end"][0].exec_sandbox().map(|p| p.describe()).as_deref(), Some("read-only, network off"));
        let full = parse(r#"{"hooks": {"session_end": [{"command": "x", "sandbox": "full-access"}]}}"#).unwrap();
        assert_eq!(full["session_end"][0].exec_sandbox(), None);
        let refused = parse(r#"{"hooks": {"session_end": [{"command": "x", "sandbox": "open"}]}}"#).unwrap_err().to_string();
        assert!(
            refused.contains("unknown sandbox mode `open`; the modes are read-only, workspace-write, full-access"),
            "{refused}"
        );
    }

    #[test]
    fn what_cannot_run_is_refused_naming_the_hook() {
        let refused = |text: &str| parse(text).unwrap_err().to_string();
        assert!(refused(r#"{"hooks": {"before_tool": []}}"#)
            .starts_with("hook before_tool is not a hook point: the points are pre_tool_use,"));
        assert_eq!(
            refused(r#"{"hooks": {"user_prompt_submit": [{"command": "x", "matcher": "shell"}]}}"#),
            "hook user_prompt_submit[0] has a `matcher`, but user_prompt_submit is not about a tool: only pre_tool_use and post_tool_use take one"
        );
        assert_eq!(refused(r#"{"hooks": {"pre_tool_use": [{"command": " "}]}}"#), "hook pre_tool_use[0] `command` is empty");
        assert!(refused(r#"{"hooks": {"pre_tool_use": [{"command": "x", "timeout_ms": 0}]}}"#).contains("`timeout_ms` is 0"));
        assert!(refused(r#"{"hooks": {"pre_tool_use": [{"cmd": "x"}]}}"#).contains("unknown field `cmd`"));
        assert!(refused(r#"{"hook": {}}"#).contains("unknown field `hook`"));
    }

    #[test]
    fn a_file_that_is_not_there_is_no_hooks_and_a_broken_one_is_an_error_naming_it() {
        let dir = std::env::temp_dir().join(format!("openagent-hooks-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".openagent")).unwrap();
        assert!(load(&dir, &HooksConfig::new()).unwrap().is_none());
        std::fs::write(dir.join(HOOKS_FILE), "{\"hooks\": {\"pre_tool_use\": [{\"command\": 1}]}}").unwrap();
        let error = load(&dir, &HooksConfig::new()).err().unwrap().to_string();
        assert!(error.starts_with(&format!("{}: invalid type", dir.join(HOOKS_FILE).display())), "{error}");
        assert!(error.contains("line 1"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
