//! `openagent`: the native command line. `openagent run "<task>"` runs one task to the end;
//! `openagent` alone opens an interactive session; `openagent agents list` shows the agent
//! configs of a directory; `openagent sessions` reads the session store; `openagent serve` offers
//! the sessions over HTTP; `openagent sandbox run` runs one task inside the WebAssembly sandbox
//! (feature `sandbox`); `openagent apply-patch` applies a v4a patch with the same tool the agent
//! uses.

mod agents_list;
mod mcp_list;
mod models_list;
mod sessions;
mod trust_command;

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use openagent_core::approval::ApprovalMode;
use openagent_core::tools::{ApplyPatchTool, ToolContext, ToolExecutor};
use openagent_host::{LocalEnvironment, NativeRuntime};
use openagent_runner::resume::ResumeFrom;
use openagent_runner::run::{self, AgentOptions, LimitFlags, OutputMode, RunArgs};
use openagent_runner::stdout::{Stdout, STDOUT_FAILED};
use openagent_serve as serve;
use openagent_tui::line_mode as interactive;
use serde_json::json;
use sessions::SessionsCommand;

#[derive(Parser)]
#[command(name = "openagent", version, about = "OpenAgent, the embeddable coding agent")]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// With no subcommand: the interactive session's settings.
    #[command(flatten)]
    session: SessionFlags,
}

#[derive(Subcommand)]
enum Command {
    /// Run one task to the end, then exit (0 only on success).
    Run(RunFlags),
    /// The agent configs of a directory (.openagent/agents/<id>/agent.yml).
    #[command(subcommand)]
    Agents(AgentsCommand),
    /// The MCP servers of a directory (.openagent/mcp.json, an agent's mcp_servers).
    #[command(subcommand)]
    Mcp(McpCommand),
    /// Trust the hooks and MCP servers a directory's files name, as the files are now (printing what
    /// they run); until then runs refuse them. `list` shows the trusted files, `revoke` forgets a directory's.
    Trust(TrustFlags),
    /// The model catalog, with the directory's .openagent/models.json over it: windows, capabilities, prices.
    Models {
        /// Only this provider's models (openai, anthropic, gemini, or one a models.json adds).
        #[arg(long)]
        provider: Option<String>,
        /// The directory whose .openagent/models.json is read; default: the current one.
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// One JSON object: the prices' date and every model's entry.
        #[arg(long)]
        json: bool,
    },
    /// Apply a v4a patch (*** Begin Patch ... *** End Patch) in the current directory, which no path may
    /// leave: all of it or nothing.
    ApplyPatch {
        /// The file holding the patch; stdin when absent or `-`.
        #[arg(value_name = "FILE")]
        patch: Option<PathBuf>,
    },
    /// What the session store holds: list the sessions, show one, its events or its result.
    Sessions {
        #[command(subcommand)]
        command: SessionsCommand,
        /// Where the session store is; default: as for `run`.
        #[arg(long, global = true)]
        data_dir: Option<PathBuf>,
    },
    /// Run agents inside the WebAssembly sandbox (one directory, no processes, no network but the model).
    Sandbox {
        #[command(subcommand)]
        command: SandboxCommand,
    },
    /// Serve the sessions API on 127.0.0.1 (bearer token required) and print its URL.
    Serve(ServeFlags),
    /// Serve the browser playground on 127.0.0.1 and print its URL.
    Web {
        /// The port; 0 picks a free one.
        #[arg(long, default_value_t = 8787)]
        port: u16,
    },
}

#[derive(Subcommand)]
enum McpCommand {
    /// Connect to each configured server and show its status and tools (exit 1 if one fails, 2 if the config is broken).
    List {
        /// The directory whose .openagent/mcp.json is read; default: the current one.
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// Add this agent config's mcp_servers.
        #[arg(long)]
        agent: Option<String>,
        /// One JSON array: name, endpoint, status, and the tools or the error of each server.
        #[arg(long)]
        json: bool,
        /// Where the trust store is (`openagent trust`); default: as for `run`.
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
}

/// `openagent trust`: the directory's hooks and MCP servers may run, as its files are now.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
struct TrustFlags {
    #[command(subcommand)]
    command: Option<TrustCommand>,
    /// The directory whose .openagent/hooks.json, .openagent/mcp.json and agents are trusted;
    /// default: the current one.
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// Where the trust store is; default: as for `run`.
    #[arg(long)]
    data_dir: Option<PathBuf>,
}

#[derive(Subcommand)]
enum TrustCommand {
    /// Every trusted file, and whether it is still as it was trusted (trusted, changed, missing).
    List {
        /// Where the trust store is; default: as for `run`.
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Forget the trust of a directory's files: their hooks and MCP servers no longer run.
    Revoke {
        /// The directory; default: the current one.
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// Where the trust store is; default: as for `run`.
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum AgentsCommand {
    /// List the agent configs and check each one (exit 1 if any is broken).
    List {
        /// The directory whose .openagent/agents is listed; default: the current one.
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// One JSON array: id, file, ok, config (as loaded) and problems of each agent.
        #[arg(long)]
        json: bool,
    },
}

/// Which model, where, and with what limits.
#[derive(Args, Clone)]
struct SessionFlags {
    /// Use the agent config .openagent/agents/<ID>/agent.yml of the working directory; the flags
    /// given here override its provider, model and limits.
    #[arg(long, value_name = "ID")]
    agent: Option<String>,
    /// anthropic, openai, gemini or openai-compatible; default: the first whose key is set.
    #[arg(long)]
    provider: Option<String>,
    /// The model; default: the provider's (an OpenAI-compatible server is asked for its first).
    #[arg(long)]
    model: Option<String>,
    /// Replaces the provider's base URL (for openai and openai-compatible it ends in /v1).
    #[arg(long)]
    base_url: Option<String>,
    /// The directory the agent works in; default: the current one.
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// Model responses allowed in the whole run; 0 = no limit (default: the agent's, else none).
    #[arg(long)]
    max_turns: Option<usize>,
    /// Tool rounds allowed per input; 0 = no limit (default: the agent's, else none).
    #[arg(long)]
    max_tool_rounds: Option<usize>,
    #[arg(long, value_parser = ["low", "medium", "high"])]
    reasoning_effort: Option<String>,
    /// The model's context window in tokens, for a server whose window the profile cannot know
    /// (a local server's n_ctx); compaction works against it.
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u32).range(1..))]
    context_window: Option<u32>,
    /// Compact (summarise older turns) once a request passes this share of the context window,
    /// in percent; 0 = never (default 80).
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(0..=100))]
    compact_at: Option<u8>,
    /// Where run artifacts and the session store are kept; default: $OPENAGENT_DATA_DIR, else
    /// $XDG_DATA_HOME/openagent, else ~/.local/share/openagent.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Continue the stored session with this id (or unique id prefix): its history, its
    /// provider, model and directory unless flags say otherwise. `openagent sessions list` shows them.
    #[arg(long, value_name = "ID")]
    resume: Option<String>,
    /// Continue the latest session of the working directory (--cwd).
    #[arg(long = "continue", conflicts_with = "resume")]
    continue_latest: bool,
    /// A variable of this environment that commands see too (repeatable): a name, or a prefix
    /// ending in `*` (`NPM_*`). Commands otherwise get only PATH, HOME, the locale, temporary
    /// directories and toolchain locations; a secret passes only when named exactly.
    #[arg(long = "env-pass", value_name = "NAME")]
    env_pass: Vec<String>,
    /// Which tool calls run without asking: read-only (file edits and commands ask), auto-edit
    /// (commands ask) or full-auto (none ask). Default: the agent config's, else auto-edit in
    /// the interactive session and full-auto for `run`, where `ask` is a deny.
    #[arg(long, value_name = "MODE", value_parser = approval_mode)]
    approval: Option<ApprovalMode>,
}

fn approval_mode(name: &str) -> Result<ApprovalMode, String> {
    ApprovalMode::parse(name)
}

impl SessionFlags {
    fn resume_from(&self) -> Option<ResumeFrom> {
        match (&self.resume, self.continue_latest) {
            (Some(id), _) => Some(ResumeFrom::Id(id.clone())),
            (None, true) => Some(ResumeFrom::Latest),
            (None, false) => None,
        }
    }
}

#[derive(Args)]
struct ServeFlags {
    /// The port; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// The bearer token requests must carry; default: $OPENAGENT_SERVE_TOKEN, else a new random one, printed.
    #[arg(long)]
    token: Option<String>,
    /// Where the session store is; default: as for `run`.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// The directory the sessions work in; default: the current one.
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// A base URL that requests may name in `base_url` (repeatable). Any other is refused with
    /// 403: the server would send its own provider key there.
    #[arg(long = "allow-base-url", value_name = "URL")]
    allow_base_url: Vec<String>,
    /// A variable of this environment that the sessions' commands see too (repeatable), as for `run`.
    #[arg(long = "env-pass", value_name = "NAME")]
    env_pass: Vec<String>,
    /// The requests answered at once, a worker thread each (at least 2); as many more connections
    /// may wait, and beyond that a connection is answered 503. An event stream holds its worker
    /// while it streams.
    #[arg(long, value_name = "N", default_value_t = serve::DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    /// Close an open session after this many seconds with no request for it and no input running
    /// (it stays in the store; a message takes it up again); 0: never.
    #[arg(long, value_name = "SECS", default_value_t = serve::DEFAULT_SESSION_IDLE_SECS)]
    session_idle_timeout: u64,
    /// How long a request's whole head may take to arrive, in milliseconds (408 after it;
    /// default 10 s); for tests.
    #[arg(long, value_name = "MS", hide = true)]
    header_deadline_ms: Option<u64>,
    /// The sessions' approval mode where a request's `approval` and the agent config say nothing
    /// (default full-auto). Calls that ask wait for POST /sessions/{id}/approvals/{call_id}.
    #[arg(long, value_name = "MODE", value_parser = approval_mode)]
    approval: Option<ApprovalMode>,
}

/// `--output`: the runner's [`OutputMode`], as clap lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Output {
    /// Streamed text on stdout; tool lines, spinner and summary on stderr.
    Human,
    /// `openagent.run_event.v1` JSONL on stdout, nothing else.
    Json,
}

impl From<Output> for OutputMode {
    fn from(output: Output) -> Self {
        match output {
            Output::Human => Self::Human,
            Output::Json => Self::Json,
        }
    }
}

/// How a one-task run reports (`run` and `sandbox run`).
#[derive(Args)]
struct OutputFlags {
    /// human: streamed text and tool lines; json: openagent.run_event.v1 JSONL on stdout.
    #[arg(long, value_enum, default_value = "human")]
    output: Output,
    /// Also write every internal event to FILE as JSONL, whatever the output.
    #[arg(long, value_name = "FILE")]
    events: Option<PathBuf>,
    /// With --output json, also emit the model's text as `text_delta` records.
    #[arg(long)]
    stream: bool,
}

#[derive(Args)]
struct RunFlags {
    /// What the agent should do.
    task: String,
    #[command(flatten)]
    session: SessionFlags,
    #[command(flatten)]
    report: OutputFlags,
    /// Open the interactive session with this task as its first input.
    #[arg(long)]
    tui: bool,
}

#[derive(Subcommand)]
enum SandboxCommand {
    /// Run one task in the sandbox, on DIR only; the output is that of `openagent run`.
    Run(SandboxRunFlags),
}

#[derive(Args)]
struct SandboxRunFlags {
    /// What the agent should do.
    task: String,
    /// The only directory the agent can read and write (it sees it as /workspace).
    #[arg(long)]
    dir: PathBuf,
    #[command(flatten)]
    session: SessionFlags,
    #[command(flatten)]
    report: OutputFlags,
    /// Stop the run after this many seconds, model calls included.
    #[arg(long, default_value_t = 600.0, value_name = "SECONDS")]
    timeout: f64,
    /// The agent's memory cap, in MB.
    #[arg(long, default_value_t = 256)]
    memory_mb: usize,
    /// The guest module (openagent-sandbox-guest.wasm); default: $OPENAGENT_SANDBOX_GUEST, else
    /// beside this executable, else cargo's wasm32-wasip1/release directory.
    #[arg(long, value_name = "FILE")]
    guest: Option<PathBuf>,
}

/// Why the sandbox does not take `--resume`/`--continue` (native/README.md says more).
#[cfg(feature = "sandbox")]
const SANDBOX_RESUME: &str = "error: `openagent sandbox run` cannot resume a session yet (the guest has no way to receive \
                              or return a snapshot); resume it natively with `openagent run --resume ID` in the same directory";

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
                Err(message) => run::refuse_now(output, stream, message),
            })
        }
        Some(Command::Sandbox { command: SandboxCommand::Run(flags) }) => ExitCode::from(sandbox_run(flags)),
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
        Some(Command::Serve(flags)) => serve(flags),
        Some(Command::Web { port }) => web(port),
        Some(Command::ApplyPatch { patch }) => {
            let patch = match read_patch(patch) {
                Ok(patch) => patch,
                Err(message) => {
                    eprintln!("error: {message}");
                    return ExitCode::from(2);
                }
            };
            match apply_patch(patch) {
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

#[cfg(feature = "sandbox")]
fn sandbox_run(flags: SandboxRunFlags) -> u8 {
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
    if !(flags.timeout.is_finite() && flags.timeout > 0.0) {
        eprintln!("error: --timeout must be a positive number of seconds");
        return 2;
    }
    let (output, stream) = (flags.report.output.into(), flags.report.stream);
    let mut run = match run_args(flags.task, flags.session, flags.report) {
        Ok(run) => run,
        Err(message) => return run::refuse_now(output, stream, message),
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
fn sandbox_run(_: SandboxRunFlags) -> u8 {
    eprintln!(
        "error: this openagent was built without the sandbox (wasmtime is kept out of everyday builds); rebuild with \
         `cargo build --release -p openagent-cli --features sandbox` and build the guest with \
         `cargo build -p openagent-sandbox-guest --release --target wasm32-wasip1`"
    );
    2
}

fn run_args(task: String, session: SessionFlags, report: OutputFlags) -> Result<RunArgs, String> {
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

/// The interactive session: the full screen on a terminal, plain lines otherwise.
fn interactive(args: Result<interactive::InteractiveArgs, String>, task: Option<String>) -> u8 {
    let args = match args {
        Ok(args) => args,
        Err(message) => {
            eprintln!("error: {message}");
            return 2;
        }
    };
    match openagent_tui::wanted() {
        true => openagent_tui::run(args, task),
        false => interactive::run(args, task),
    }
}

fn interactive_args(flags: SessionFlags) -> Result<interactive::InteractiveArgs, String> {
    Ok(interactive::InteractiveArgs {
        resume: flags.resume_from(),
        agent: AgentOptions { default_approval: ApprovalMode::AutoEdit, ..agent_options(&flags) },
        limits: limits(&flags),
        data_dir: data_dir(flags.data_dir)?,
    })
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

/// `--data-dir`, else `$OPENAGENT_DATA_DIR`, else the user's data directory (XDG's); made
/// absolute, so the paths a run reports do not depend on where it was started. Without any of
/// them there is none: the store and the tool output it keeps must not land in the project.
fn data_dir(flag: Option<PathBuf>) -> Result<PathBuf, String> {
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

fn web(port: u16) -> ExitCode {
    match serve::WebServer::start(serve::WebRoots::from_checkout(), port) {
        Ok(server) => {
            let mut out = Stdout::default();
            out.write(&format!("OpenAgent playground: {}\n", server.url()));
            if out.end(0) != 0 {
                return ExitCode::from(STDOUT_FAILED);
            }
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

fn serve(flags: ServeFlags) -> ExitCode {
    let given = flags.token.or_else(|| std::env::var("OPENAGENT_SERVE_TOKEN").ok().filter(|t| !t.is_empty()));
    let (token, generated) = match given {
        Some(token) => (token, false),
        None => match serve::generate_token() {
            Ok(token) => (token, true),
            Err(e) => {
                eprintln!("openagent serve: cannot generate a token ({e}); give one with --token or OPENAGENT_SERVE_TOKEN");
                return ExitCode::FAILURE;
            }
        },
    };
    let options = serve::ServeOptions {
        port: flags.port,
        token: token.clone(),
        data_dir: match data_dir(flags.data_dir) {
            Ok(dir) => dir,
            Err(message) => {
                eprintln!("openagent serve: {message}");
                return ExitCode::from(2);
            }
        },
        cwd: flags.cwd,
        allowed_base_urls: flags.allow_base_url,
        env_pass: flags.env_pass,
        max_connections: flags.max_connections,
        head_within: flags.header_deadline_ms.map(std::time::Duration::from_millis),
        approval: flags.approval,
        session_idle: (flags.session_idle_timeout > 0).then(|| std::time::Duration::from_secs(flags.session_idle_timeout)),
    };
    match serve::Server::start(options) {
        Ok(server) => {
            let mut out = Stdout::default();
            out.write(&format!("OpenAgent API: {}\n", server.url()));
            if generated {
                out.write(&format!("token: {token}\n"));
            }
            out.write("Send \"Authorization: Bearer <token>\" with every request; GET /openapi.json describes the API.\n");
            // Without its URL and token nobody can use the server.
            if out.end(0) != 0 {
                return ExitCode::from(STDOUT_FAILED);
            }
            ExitCode::from(server.serve_until_signalled())
        }
        Err(message) => {
            eprintln!("openagent serve: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The patch text of `openagent apply-patch [FILE]`: the file's, or stdin's for none or `-`.
fn read_patch(file: Option<PathBuf>) -> Result<String, String> {
    let Some(file) = file.filter(|file| file.as_os_str() != "-") else {
        let mut patch = String::new();
        std::io::stdin().read_to_string(&mut patch).map_err(|err| format!("could not read the patch from stdin: {err}"))?;
        return Ok(patch);
    };
    let shown = file.display();
    match std::fs::read_to_string(&file) {
        Ok(patch) => Ok(patch),
        // The text itself given as the argument, as `apply-patch` once took it.
        Err(_) if file.to_string_lossy().starts_with("*** Begin Patch") => {
            Err("apply-patch takes the file holding the patch, not its text: give the patch on stdin, or save it to a file"
                .into())
        }
        Err(err) if err.kind() == std::io::ErrorKind::IsADirectory => {
            Err(format!("cannot read the patch file {shown}: it is a directory; name the file holding the patch"))
        }
        Err(err) => Err(format!("cannot read the patch file {shown}: {err}")),
    }
}

fn apply_patch(patch: String) -> Result<String, String> {
    let env = LocalEnvironment::new(".").map_err(|err| err.to_string())?;
    // apply_patch runs no commands, so the timeouts are never used.
    let ctx = ToolContext::new(&env, 0, 0);
    let args = json!({ "patch": patch });
    let output = NativeRuntime::new().block_on(ApplyPatchTool.execute(&args, &ctx)).map_err(|err| err.0)?;
    Ok(output.text)
}
