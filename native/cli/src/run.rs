//! `openagent run "<task>"`: one task, start to finish, on the real filesystem, in the runner's
//! three steps. The session's events go to the chosen output (human text, or the
//! `openagent.run_event.v1` JSONL contract), to `--events FILE`, to the run's artifacts and to
//! the session store; the exit code says how it ended.

use std::cell::Cell;
use std::fs::File;
use std::future::Future;
use std::io::BufWriter;
use std::rc::Rc;

use openagent_core::runtime::{format_rfc3339, Runtime};
use openagent_core::session::{StopReason, UserInput};
use openagent_core::{Session, SessionError};
use openagent_host::runtime::NativeRuntime;
use openagent_runner::mentions::with_mentioned_images;
use openagent_runner::report::open_events_file;
use openagent_runner::run_id::untaken;
use openagent_runner::{
    fixed_run_id, new_run_id, pinned_runtime, refuse, signal_wakes, until_abandoned, Launcher, Plan, Report, RunArgs, RunError,
    Wake, COMMANDS_END_WITHIN,
};

/// What a run needs once nothing can refuse it any more.
struct Ready {
    plan: Plan,
    run_id: String,
    input: UserInput,
    events: Option<BufWriter<File>>,
}

/// Runs the task and returns the process exit code.
pub fn run(args: RunArgs) -> u8 {
    let runtime = Rc::new(pinned_runtime());
    // On the runtime's clock, so a pinned clock gives reproducible durations.
    let started = runtime.now_ms();
    let now = || runtime.now_ms();
    let Ready { plan, run_id, input, events } = match resolve(&args, &runtime) {
        Ok(ready) => ready,
        Err(error) => return refuse(args.output, args.stream, now(), started, error.to_string()),
    };
    let config = openagent_runner::RunConfig {
        stream: args.stream,
        events_file: args.events.as_ref().map(|p| p.display().to_string()),
        ..plan.run_config(&args.task, args.output.as_str())
    };
    // A resumed session keeps its id; a new one is named after its first run.
    let id = plan.session_id(&run_id);
    let report = || Report::start(&run_id, &config, args.output, &args.data_dir, events, format_rfc3339(now()));
    let mut running = match plan.start(&id, report, Ok) {
        Ok(running) => running,
        Err(error) => return refuse(args.output, args.stream, now(), started, error.to_string()),
    };

    let mut signals =
        openagent_host::signals::interrupts().map_err(|e| eprintln!("warning: Ctrl-C will not stop the run cleanly: {e}")).ok();
    let mut presses = 0;
    let abandoned = Cell::new(false);
    let on_outside = |session: &Session, _: &Launcher, wake: Wake<()>| {
        if let Wake::Signal = wake {
            presses += 1;
            // The run did not stop on the first signal: leave now, still saying how it ended.
            abandoned.set(presses > 1);
            session.abort();
        }
    };
    let outside = signal_wakes(signals.as_mut());
    let result = running.drive(&runtime, |session| whole_session(session, input, &abandoned), outside, on_outside);
    let end = running.end(&result, now().saturating_sub(started));
    let code = running.report.finish(&format_rfc3339(now()), end);
    // Commands whose calls were cancelled are ending under their supervisors: the process waits
    // for them rather than leave them running on.
    openagent_host::signals::end_commands(COMMANDS_END_WITHIN);
    code
}

/// The run is the session: its one input, then its end, once its `session_end` hooks are done;
/// or an interrupted end at once when `abandoned` is set.
fn whole_session<'a>(
    session: &'a Session,
    input: UserInput,
    abandoned: &'a Cell<bool>,
) -> impl Future<Output = Result<StopReason, SessionError>> + 'a {
    let whole = async move {
        let result = session.submit(input).await;
        session.close();
        session.ended().await;
        result
    };
    until_abandoned(whole, abandoned)
}

/// Everything that can refuse the run, checked before anything is written, so that a bad
/// invocation never truncates an events file from an earlier run.
fn resolve(args: &RunArgs, runtime: &Rc<NativeRuntime>) -> Result<Ready, RunError> {
    let fixed = fixed_run_id()?;
    let request = args.request();
    let resumed = match &request.resume {
        Some(from) => Some(openagent_runner::plan::load_resumed(from, &args.data_dir, &args.agent)?),
        None => None,
    };
    if let Some(id) = &fixed {
        untaken(id, &args.data_dir, resumed.as_ref())?;
    }
    let plan = Plan::continuing(&request, resumed, runtime)?;
    let input = with_mentioned_images(&args.task, &plan.launcher.cwd)?;
    let events = args.events.as_ref().map(open_events_file).transpose()?;
    Ok(Ready { plan, run_id: fixed.unwrap_or_else(|| new_run_id(runtime.now_ms())), input, events })
}
