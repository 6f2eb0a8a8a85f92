//! `openagent`: the native command line. `openagent run "<task>"` runs one task to the end;
//! `openagent` alone opens an interactive session; `openagent agents list` shows the agent
//! configs of a directory; `openagent sessions` reads the session store; `openagent serve` offers
//! the sessions over HTTP; `openagent sandbox run` runs one task inside the WebAssembly sandbox
//! (feature `sandbox`); `openagent apply-patch` applies a v4a patch with the same tool the agent
//! uses.
//!
//! The binary is thin: `flags` is what the user typed, `options` turns it into the runner's
//! request in one step, and each command is a short file over the crate that does its work (the
//! runner, the TUI, serve, the store, the wasmtime host). It is the top of the native crates:
//! nothing depends on it, and it holds no logic another host could need.

mod agents_list;
mod apply_patch;
mod flags;
mod mcp_list;
mod models_list;
mod options;
mod run;
mod sandbox;
mod serve_web;
mod sessions;
mod trust_command;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use openagent_runner::stdout::Stdout;
use openagent_runner::Request;
use openagent_tui::line_mode;

use flags::{AgentsCommand, Cli, Command, McpCommand, Output, SandboxCommand, TrustCommand, TrustFlags};
use options::{data_dir, interactive_args, run_args};

/// The fixed text for a combination the JSON contract forbids.
const TUI_WITH_JSON: &str =
    "error: --tui cannot be combined with --output json (JSON output is for non-interactive runs; drop one of them)";

fn main() -> ExitCode {
    openagent_host::agent_secrets::keep_from_commands();
    let cli = Cli::parse();
    match cli.command {
        None => ExitCode::from(interactive(interactive_args(cli.session), None)),
        Some(Command::Run(flags)) if flags.tui => {
            if flags.report.output == Output::Json {
                eprintln!("{TUI_WITH_JSON}");
                return ExitCode::from(2);
            }
            ExitCode::from(interactive(interactive_args(flags.session), Some(flags.task)))
        }
        Some(Command::Run(flags)) => {
            let (output, stream) = (flags.report.output.into(), flags.report.stream);
            ExitCode::from(match run_args(flags.task, flags.session, flags.report) {
                Ok(args) => run::run(args),
                Err(message) => openagent_runner::refuse_now(output, stream, message),
            })
        }
        Some(Command::Sandbox { command: SandboxCommand::Run(flags) }) => ExitCode::from(sandbox::sandbox_run(flags)),
        Some(Command::Sessions { command, data_dir: dir }) => match data_dir(dir) {
            Ok(dir) => ExitCode::from(sessions::run(command, &dir)),
            Err(message) => {
                eprintln!("error: {message}");
                ExitCode::from(2)
            }
        },
        Some(Command::Agents(AgentsCommand::List { cwd, json })) => {
            let cwd = match cwd.map_or_else(std::env::current_dir, Ok) {
                Ok(cwd) => cwd,
                Err(e) => {
                    eprintln!("error: cannot read the current directory: {e}");
                    return ExitCode::from(2);
                }
            };
            ExitCode::from(agents_list::run(&cwd, json))
        }
        Some(Command::Models { provider, cwd, json }) => {
            let cwd = match cwd.map_or_else(std::env::current_dir, Ok) {
                Ok(cwd) => cwd,
                Err(e) => {
                    eprintln!("error: cannot read the current directory: {e}");
                    return ExitCode::from(2);
                }
            };
            ExitCode::from(models_list::list(&cwd, provider.as_deref(), json))
        }
        Some(Command::Mcp(McpCommand::List { cwd, agent, json, data_dir: dir })) => match (directory(cwd), data_dir(dir)) {
            (Ok(cwd), Ok(dir)) => ExitCode::from(mcp_list::run(&cwd, agent.as_deref(), json, &dir)),
            (Err(code), _) => code,
            (_, Err(e)) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
        Some(Command::Trust(flags)) => trust(flags),
        Some(Command::Serve(flags)) => serve_web::serve(flags),
        Some(Command::Web { port }) => serve_web::web(port),
        Some(Command::ApplyPatch { patch }) => {
            let patch = match apply_patch::read_patch(patch) {
                Ok(patch) => patch,
                Err(message) => {
                    eprintln!("error: {message}");
                    return ExitCode::from(2);
                }
            };
            match apply_patch::apply_patch(patch) {
                Ok(summary) => {
                    let mut out = Stdout::default();
                    out.write(&(summary + "\n"));
                    ExitCode::from(out.end(0))
                }
                Err(message) => {
                    eprintln!("{message}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// The interactive session: the full screen on a terminal, plain lines otherwise.
fn interactive(args: Result<Request, String>, task: Option<String>) -> u8 {
    let args = match args {
        Ok(args) => args,
        Err(message) => {
            eprintln!("error: {message}");
            return 2;
        }
    };
    match openagent_tui::wanted() {
        true => openagent_tui::run(args, task),
        false => line_mode::run(args, task),
    }
}

fn trust(flags: TrustFlags) -> ExitCode {
    use trust_command as trust;
    let revoke = matches!(flags.command, Some(TrustCommand::Revoke { .. }));
    let (cwd, dir) = match flags.command {
        Some(TrustCommand::List { data_dir: dir }) => (None, dir.or(flags.data_dir)),
        Some(TrustCommand::Revoke { cwd, data_dir: dir }) => (Some(cwd.or(flags.cwd)), dir.or(flags.data_dir)),
        None => (Some(flags.cwd), flags.data_dir),
    };
    let dir = match data_dir(dir) {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let code = match (revoke, cwd.map(directory)) {
        (_, None) => trust::list(&dir),
        (_, Some(Err(code))) => return code,
        (true, Some(Ok(cwd))) => trust::revoke(&cwd, &dir),
        (false, Some(Ok(cwd))) => trust::trust(&cwd, &dir),
    };
    ExitCode::from(code)
}

/// `--cwd`, else the current directory; the exit code when that cannot be read.
fn directory(cwd: Option<PathBuf>) -> Result<PathBuf, ExitCode> {
    cwd.map_or_else(std::env::current_dir, Ok).map_err(|e| {
        eprintln!("error: cannot read the current directory: {e}");
        ExitCode::from(2)
    })
}
