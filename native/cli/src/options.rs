//! From flags to the runner's options, in one step: the agent, its limits, the data directory.

use std::path::PathBuf;

use openagent_core::approval::ApprovalMode;
use openagent_runner::{AgentOptions, LimitFlags, Request, RunArgs};

use crate::flags::{OutputFlags, SessionFlags};

/// The request of `openagent run` (and `sandbox run`), from its flags.
pub fn run_args(task: String, session: SessionFlags, report: OutputFlags) -> Result<RunArgs, String> {
    Ok(RunArgs {
        resume: session.resume_from(),
        task,
        agent: agent_options(&session),
        limits: limits(&session),
        output: report.output.into(),
        events: report.events,
        stream: report.stream,
        data_dir: data_dir(session.data_dir)?,
    })
}

fn agent_options(flags: &SessionFlags) -> AgentOptions {
    AgentOptions {
        provider: flags.provider.clone(),
        model: flags.model.clone(),
        base_url: flags.base_url.clone(),
        cwd: flags.cwd.clone(),
        agent: flags.agent.clone(),
        env_pass: flags.env_pass.clone(),
        approval: flags.approval,
        default_approval: ApprovalMode::FullAuto,
        sandbox: flags.sandbox.options(),
        // None (no data directory) trusts nothing; the run itself refuses to start without one.
        data_dir: data_dir(flags.data_dir.clone()).ok(),
    }
}

fn limits(flags: &SessionFlags) -> LimitFlags {
    LimitFlags {
        max_turns: flags.max_turns,
        max_tool_rounds: flags.max_tool_rounds,
        reasoning_effort: flags.reasoning_effort.clone(),
        context_window: flags.context_window.map(|t| t as usize),
        compact_at: flags.compact_at.map(usize::from),
    }
}

/// The interactive session's request: as `run`'s, but auto-edit by default.
pub fn interactive_args(flags: SessionFlags) -> Result<Request, String> {
    Ok(Request {
        resume: flags.resume_from(),
        agent: AgentOptions { default_approval: ApprovalMode::AutoEdit, ..agent_options(&flags) },
        limits: limits(&flags),
        data_dir: data_dir(flags.data_dir)?,
    })
}

/// `--data-dir`, else `$OPENAGENT_DATA_DIR`, else the user's data directory (XDG's); made
/// absolute, so the paths a run reports do not depend on where it was started. Without any of
/// them there is none: the store and the tool output it keeps must not land in the project.
pub fn data_dir(flag: Option<PathBuf>) -> Result<PathBuf, String> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    // XDG's rule: a relative XDG_DATA_HOME is ignored (it would be relative to the project).
    let home = |name: &str| var(name).filter(|dir| dir.is_absolute());
    let dir = flag
        .or_else(|| var("OPENAGENT_DATA_DIR"))
        .or_else(|| home("XDG_DATA_HOME").map(|dir| dir.join("openagent")))
        .or_else(|| home("HOME").map(|home| home.join(".local/share/openagent")))
        .ok_or_else(|| {
            let home = if var("HOME").is_some() { "HOME is not an absolute path" } else { "HOME is not set" };
            format!("no data directory: {home}; set HOME, XDG_DATA_HOME or OPENAGENT_DATA_DIR, or give --data-dir DIR")
        })?;
    Ok(std::path::absolute(&dir).unwrap_or(dir))
}
