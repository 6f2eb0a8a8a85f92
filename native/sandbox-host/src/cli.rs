//! `openagent sandbox run --dir DIR "<task>"`: `openagent run`, with the agent inside the
//! sandbox. Same flags (but `--agent`), same human output, same `openagent.run_event.v1` JSON,
//! same artifacts and session store (the run's `Report`); only the driving differs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use openagent_core::runtime::{format_rfc3339, Runtime};
use openagent_core::session::{AgentOutcome, EvidenceKind, OutcomeStatus, StopReason};
use openagent_core::setup::ProviderSettings;
use openagent_core::SessionError;
use openagent_sandbox_guest::GuestEnd;

use crate::{Sandbox, SandboxEnd, SandboxError, SandboxLimits, SandboxRun};
use openagent_host::http::NativeHttpClient;
use openagent_runner::hooks::HOOKS_FILE;
use openagent_runner::launcher::{explain, resolve_provider, session_config};
use openagent_runner::report::open_events_file;
use openagent_runner::{fixed_run_id, new_run_id, pinned_runtime, refuse, ExitReason, Report, RunArgs, RunConfig, RunEnd};

/// The guest's file name, as cargo builds it.
const GUEST_FILE: &str = "openagent-sandbox-guest.wasm";

/// Everything `openagent sandbox run` was given.
#[derive(Debug, Clone)]
pub struct SandboxArgs {
    /// What `openagent run` takes; `run.agent.cwd` is the directory, the only one the agent can use.
    pub run: RunArgs,
    /// The guest module; found beside the executable (or in cargo's target directory) when absent.
    pub guest: Option<PathBuf>,
    pub limits: SandboxLimits,
}

/// Runs the task in the sandbox and returns the process exit code.
pub fn run_cli(sandbox: SandboxArgs) -> u8 {
    let args = &sandbox.run;
    let runtime = pinned_runtime();
    let started = runtime.now_ms();
    let now = || runtime.now_ms();
    let prepared = fixed_run_id().map_err(|e| e.to_string()).and_then(|run_id| {
        let given = args.agent.cwd.as_deref().unwrap_or(Path::new("."));
        let dir = given.canonicalize().map_err(|e| format!("cannot use --dir {}: {e}", given.display()))?;
        if !dir.is_dir() {
            return Err(format!("cannot use --dir {}: not a directory", dir.display()));
        }
        if let Some(id) = &args.agent.agent {
            return Err(format!(
                "the sandbox does not run agent configs yet (--agent {id}): their profile, tools and output schema are \
                 the native host's; drop --agent"
            ));
        }
        // Hooks a user set up to block calls must not be skipped without a word.
        if dir.join(HOOKS_FILE).exists() {
            return Err(format!(
                "the sandbox does not run hooks yet ({}): they are commands, and the guest has no processes; move the \
                 file away to run sandboxed without them",
                dir.join(HOOKS_FILE).display()
            ));
        }
        let (settings, model, _) =
            resolve_provider(&args.agent, None, &runtime, &NativeHttpClient::new()).map_err(|e| e.to_string())?;
        let guest = find_guest(sandbox.guest.as_deref()).and_then(|path| Sandbox::load(&path)).map_err(|e| e.to_string())?;
        let events = args.events.as_ref().map(open_events_file).transpose().map_err(|e| e.to_string())?;
        Ok((run_id, dir, settings, model, guest, events))
    });
    let (run_id, dir, settings, model, guest, events_file) = match prepared {
        Ok(prepared) => prepared,
        Err(message) => return refuse(args.output, args.stream, now(), started, message),
    };
    let run_id = run_id.unwrap_or_else(|| new_run_id(now()));

    let session_config = session_config(None, &args.limits);
    let config = RunConfig {
        stream: args.stream,
        events_file: args.events.as_ref().map(|p| p.display().to_string()),
        ..RunConfig::without_agent(&args.task, &settings, &model, &dir, &session_config, args.output.as_str())
    };
    let mut report = Report::start(&run_id, &config, args.output, &args.data_dir, events_file, format_rfc3339(now()));
    let mut run = SandboxRun::new(&dir, &args.task, settings.clone(), &model);
    run.config.session_id.clone_from(&run_id);
    run.config.max_turns = session_config.max_turns;
    run.config.max_tool_rounds = session_config.max_tool_rounds_per_input;
    run.config.reasoning_effort = session_config.reasoning_effort;
    // Ctrl-C or SIGTERM stops the guest; the run still ends with its one `run_finished`. A
    // second signal leaves at once.
    let mut signals =
        openagent_host::signals::interrupts().map_err(|e| eprintln!("warning: Ctrl-C will not stop the run cleanly: {e}")).ok();
    let stop = run.stop.clone();
    let ended = guest.run(&run, &sandbox.limits, |wake| {
        if let Some(Ok(_)) = signals.as_mut().map(|rx| rx.try_recv()) {
            if stop.swap(true, std::sync::atomic::Ordering::Relaxed) {
                std::process::exit(i32::from(ExitReason::Interrupted.code()));
            }
        }
        report.wake(&wake)
    });

    let duration_ms = now().saturating_sub(started);
    let ts = format_rfc3339(now());
    let end = match ended {
        SandboxEnd::Finished(guest) => finished(&report, guest, &settings, &model, duration_ms),
        SandboxEnd::TimedOut(cap) => {
            let message = format!("the sandbox's time cap of {} was reached; raise --timeout", seconds(cap));
            capped(&report, ExitReason::Timeout, OutcomeStatus::Timeout, message, duration_ms, &ts)
        }
        SandboxEnd::OutOfMemory(cap) => {
            let message =
                format!("the sandboxed agent asked for more than its memory cap of {} MB; raise --memory-mb", cap >> 20);
            capped(&report, ExitReason::SandboxError, OutcomeStatus::Failure, message, duration_ms, &ts)
        }
        SandboxEnd::Stopped => {
            let message = "the run was stopped (Ctrl-C or SIGTERM)".to_owned();
            capped(&report, ExitReason::Interrupted, OutcomeStatus::Failure, message, duration_ms, &ts)
        }
        SandboxEnd::Failed(message) => {
            capped(&report, ExitReason::SandboxError, OutcomeStatus::Failure, message, duration_ms, &ts)
        }
    };
    report.finish(&ts, end)
}

fn seconds(duration: Duration) -> String {
    format!("{}s", duration.as_secs_f64())
}

/// The end of a run the guest reported, read as `openagent run` reads a session's.
fn finished(report: &Report, guest: GuestEnd, settings: &ProviderSettings, model: &str, duration_ms: u64) -> RunEnd {
    let result: Result<StopReason, SessionError> = match (guest.stop, guest.error) {
        (Some(stop), _) => Ok(stop),
        (None, Some(error)) => Err(SessionError::Llm(error)),
        (None, None) => Ok(StopReason::Error),
    };
    let error = result.as_ref().err().map(|error| explain(settings, model, error));
    report.tally().run_end(ExitReason::of(&result), error, guest.usage, duration_ms, guest.outcome, guest.result_data)
}

/// The end of a run the host stopped (a cap) or that failed without reporting.
fn capped(report: &Report, reason: ExitReason, status: OutcomeStatus, message: String, duration_ms: u64, ts: &str) -> RunEnd {
    let mut outcome = AgentOutcome::new(status, message.clone()).with_evidence(
        EvidenceKind::StopReason,
        "the sandbox host stopped the run",
        None,
    );
    outcome.timestamp = ts.to_owned();
    report.tally().run_end(reason, Some(message), report.tally().usage(), duration_ms, Some(outcome), None)
}

/// `--guest`, else `$OPENAGENT_SANDBOX_GUEST`, else beside the executable, else where cargo
/// builds it next to the executable's target directory.
fn find_guest(flag: Option<&Path>) -> Result<PathBuf, SandboxError> {
    if let Some(path) = flag {
        return Ok(path.to_owned());
    }
    if let Some(path) = std::env::var_os("OPENAGENT_SANDBOX_GUEST").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(SandboxError::NoExecutable)?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    // target/<profile>/openagent (or target/<profile>/deps/<test>) -> target/wasm32-wasip1/release/
    let candidates: Vec<PathBuf> = [dir.join(GUEST_FILE)]
        .into_iter()
        .chain(dir.ancestors().skip(1).take(2).map(|target| target.join("wasm32-wasip1/release").join(GUEST_FILE)))
        .collect();
    match candidates.iter().find(|path| path.is_file()) {
        Some(path) => Ok(path.clone()),
        None => Err(SandboxError::NotBuilt { looked: candidates }),
    }
}
