//! `shell` (spec 3.3, 5.4): run a command in the environment and report what it printed, its exit
//! code and how long it took. A failing command is a normal result the model reads; only a
//! command that could not be run at all is a tool error. The executor also takes `workdir`
//! (codex's name), which the OpenAI profile's schema offers.

use async_trait::async_trait;
use serde_json::Value;

use super::args::{optional_str, optional_u64, required_str};
use super::{schema, ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::env::{ExecOptions, ExecResult};
use crate::llm::ToolDefinition;

pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: "shell".into(),
        description: "Run a shell command in the working directory and return its stdout, stderr, exit code \
            and duration. Commands are stopped after a timeout (10 seconds unless the session sets another); \
            pass timeout_ms for longer builds or test runs. Prefer read_file, grep and glob for reading and \
            searching files."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command line to run."},
                "timeout_ms": {"type": "integer", "minimum": 1, "description": "Stop the command after this many milliseconds (capped by the session's maximum)."},
                "description": {"type": "string", "description": "A few words on what the command does, shown to the user."}
            },
            "required": ["command"],
            "additionalProperties": false
        }"#,
        ),
    }
}

pub struct ShellTool;

#[async_trait(?Send)]
impl ToolExecutor for ShellTool {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let command = required_str(args, "command")?;
        let timeout_ms =
            optional_u64(args, "timeout_ms")?.unwrap_or(ctx.default_command_timeout_ms).min(ctx.max_command_timeout_ms);
        let working_dir = optional_str(args, "workdir")?.map(str::to_owned);
        let sandbox = ctx.sandbox.cloned();
        let options = ExecOptions { timeout_ms, working_dir, on_output: ctx.on_output.clone(), sandbox, env_vars: None };
        let result = ctx.env.exec_command(command, &options).await?;
        let mut text = format_result(&result, timeout_ms);
        if let (Some(denied), Some(policy)) = (&result.sandbox_denied, &options.sandbox) {
            text.push_str(&["\n[The sandbox (", &policy.describe(), ") refused ", denied, ".]"].concat());
        }
        Ok(ToolOutput { text, image: None, sandbox_denied: result.sandbox_denied })
    }
}

fn format_result(result: &ExecResult, timeout_ms: u64) -> String {
    let stdout = result.stdout.strip_suffix('\n').unwrap_or(&result.stdout);
    let stderr = result.stderr.strip_suffix('\n').unwrap_or(&result.stderr);
    let mut out = match (stdout.is_empty(), stderr.is_empty()) {
        (true, true) => "(no output)".to_owned(),
        (false, true) => stdout.to_owned(),
        (true, false) => stderr.to_owned(),
        (false, false) => format!("{stdout}\n[stderr]\n{stderr}"),
    };
    out.push_str(&format!("\nExit code: {}\nDuration: {}ms", result.exit_code, result.duration_ms));
    if result.timed_out {
        out.push_str(&format!(
            "\n[ERROR: Command timed out after {timeout_ms}ms. Partial output is shown above.\n\
             You can retry with a longer timeout by setting the timeout_ms parameter.]"
        ));
    }
    out
}
