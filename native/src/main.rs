//! `openagent`: the native command line. For now one subcommand, `apply-patch`, which applies a
//! v4a patch in the current directory with the same tool the agent uses, so a patch can be
//! tried (or a model's patch replayed) outside a session.

use std::io::Read;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use openagent_core::tools::{ApplyPatchTool, ToolContext, ToolExecutor};
use openagent_native::{LocalEnvironment, NativeRuntime};
use serde_json::json;

#[derive(Parser)]
#[command(name = "openagent", version, about = "OpenAgent, the embeddable coding agent")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Apply a v4a patch (*** Begin Patch ... *** End Patch) in the current directory: all of it or nothing.
    ApplyPatch {
        /// The patch; read from stdin when absent or `-`.
        patch: Option<String>,
    },
    /// Serve the browser playground on 127.0.0.1 and print its URL.
    Web {
        /// The port; 0 picks a free one.
        #[arg(long, default_value_t = 8787)]
        port: u16,
    },
}

fn main() -> ExitCode {
    let patch = match Cli::parse().command {
        Command::ApplyPatch { patch } => patch,
        Command::Web { port } => return web(port),
    };
    match apply_patch(patch) {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn web(port: u16) -> ExitCode {
    match openagent_native::WebServer::start(openagent_native::WebRoots::from_checkout(), port) {
        Ok(server) => {
            println!("OpenAgent playground: {}", server.url());
            loop {
                std::thread::park();
            }
        }
        Err(err) => {
            eprintln!("openagent web: cannot listen on 127.0.0.1:{port}: {err} (try --port 0)");
            ExitCode::FAILURE
        }
    }
}

fn apply_patch(patch: Option<String>) -> Result<String, String> {
    let patch = match patch.filter(|patch| patch != "-") {
        Some(patch) => patch,
        None => {
            let mut patch = String::new();
            std::io::stdin().read_to_string(&mut patch).map_err(|err| format!("could not read the patch from stdin: {err}"))?;
            patch
        }
    };
    let env = LocalEnvironment::new(".").map_err(|err| err.to_string())?;
    // apply_patch runs no commands, so the timeouts are never used.
    let ctx = ToolContext { env: &env, default_command_timeout_ms: 0, max_command_timeout_ms: 0, on_output: None };
    let args = json!({ "patch": patch });
    let output = NativeRuntime::new().block_on(ApplyPatchTool.execute(&args, &ctx)).map_err(|err| err.0)?;
    Ok(output.text)
}
