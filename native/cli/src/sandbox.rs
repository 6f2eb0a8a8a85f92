//! `openagent sandbox run`: the flags the sandbox does not take yet are refused here, the rest
//! go to the wasmtime host as for `openagent run`.

use crate::flags::SandboxRunFlags;
#[cfg(feature = "sandbox")]
use crate::options::run_args;
#[cfg(feature = "sandbox")]
use openagent_core::approval::ApprovalMode;

/// Why the sandbox does not take `--resume`/`--continue` (native/README.md says more).
#[cfg(feature = "sandbox")]
const SANDBOX_RESUME: &str = "error: `openagent sandbox run` cannot resume a session yet (the guest has no way to receive \
                              or return a snapshot); resume it natively with `openagent run --resume ID` in the same directory";

#[cfg(feature = "sandbox")]
pub fn sandbox_run(flags: SandboxRunFlags) -> u8 {
    use openagent_sandbox_host::{run_cli, SandboxArgs, SandboxLimits};
    if flags.session.cwd.is_some() {
        eprintln!("error: `openagent sandbox run` works in --dir; drop --cwd");
        return 2;
    }
    if flags.session.resume_from().is_some() {
        eprintln!("{SANDBOX_RESUME}");
        return 2;
    }
    if flags.session.context_window.is_some() || flags.session.compact_at.is_some() {
        eprintln!(
            "error: `openagent sandbox run` does not take --context-window or --compact-at yet (the guest's session \
             keeps the defaults); leave them out"
        );
        return 2;
    }
    if !flags.session.env_pass.is_empty() {
        eprintln!("error: `openagent sandbox run` runs no commands (the guest has no processes), so --env-pass has nothing to pass to; leave it out");
        return 2;
    }
    if flags.session.approval.is_some_and(|mode| mode != ApprovalMode::FullAuto) {
        eprintln!(
            "error: `openagent sandbox run` does not take --approval yet (the guest's session runs full-auto: its \
             commands are the built-in shell's, inside --dir); leave it out"
        );
        return 2;
    }
    if flags.session.sandbox.options() != openagent_runner::SandboxOptions::default() {
        eprintln!(
            "error: `openagent sandbox run` holds the agent in WebAssembly (one directory, the built-in shell, no network \
             but the model), so --sandbox, --sandbox-network and --writable-root do not apply; leave them out"
        );
        return 2;
    }
    if !(flags.timeout.is_finite() && flags.timeout > 0.0) {
        eprintln!("error: --timeout must be a positive number of seconds");
        return 2;
    }
    let (output, stream) = (flags.report.output.into(), flags.report.stream);
    let mut run = match run_args(flags.task, flags.session, flags.report) {
        Ok(run) => run,
        Err(message) => return openagent_runner::refuse_now(output, stream, message),
    };
    run.agent.cwd = Some(flags.dir);
    run_cli(SandboxArgs {
        run,
        guest: flags.guest,
        limits: SandboxLimits {
            memory_bytes: flags.memory_mb.saturating_mul(1024 * 1024),
            timeout: std::time::Duration::from_secs_f64(flags.timeout),
        },
    })
}

/// Without the `sandbox` feature, the command says how to get it rather than vanishing.
#[cfg(not(feature = "sandbox"))]
pub fn sandbox_run(_: SandboxRunFlags) -> u8 {
    eprintln!(
        "error: this openagent was built without the sandbox (wasmtime is kept out of everyday builds); rebuild with \
         `cargo build --release -p openagent-cli --features sandbox` and build the guest with \
         `cargo build -p openagent-sandbox-guest --release --target wasm32-wasip1`"
    );
    2
}
