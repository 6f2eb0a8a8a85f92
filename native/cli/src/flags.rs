//! `openagent`'s flags, as clap reads them: what the user typed. `options` turns them into what
//! the runner and the front ends take.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use openagent_core::approval::ApprovalMode;
use openagent_core::env::lexical_path;
use openagent_core::sandbox::{Network, SandboxMode};
use openagent_runner::resume::ResumeFrom;
use openagent_runner::{LimitFlags, OutputMode, SandboxOptions};

use crate::sessions::SessionsCommand;

#[derive(Parser)]
#[command(name = "openagent", version, about = "OpenAgent, the embeddable coding agent")]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// With no subcommand: the interactive session's settings.
    #[command(flatten)]
    pub session: SessionFlags,
}

#[derive(Subcommand)]
pub enum Command {
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
pub enum McpCommand {
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
pub struct TrustFlags {
    #[command(subcommand)]
    pub command: Option<TrustCommand>,
    /// The directory whose .openagent/hooks.json, .openagent/mcp.json and agents are trusted;
    /// default: the current one.
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Where the trust store is; default: as for `run`.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
}

#[derive(Subcommand)]
pub enum TrustCommand {
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
pub enum AgentsCommand {
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
pub struct SessionFlags {
    /// Use the agent config .openagent/agents/<ID>/agent.yml of the working directory; the flags
    /// given here override its provider, model and limits.
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
    /// anthropic, openai, gemini or openai-compatible; default: the first whose key is set.
    #[arg(long)]
    pub provider: Option<String>,
    /// The model; default: the provider's (an OpenAI-compatible server is asked for its first).
    #[arg(long)]
    pub model: Option<String>,
    /// Replaces the provider's base URL (for openai and openai-compatible it ends in /v1).
    #[arg(long)]
    pub base_url: Option<String>,
    /// The directory the agent works in; default: the current one.
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Model responses allowed in the whole run; 0 = no limit (default: the agent's, else none).
    #[arg(long)]
    pub max_turns: Option<usize>,
    /// Tool rounds allowed per input; 0 = no limit (default: the agent's, else none).
    #[arg(long)]
    pub max_tool_rounds: Option<usize>,
    #[arg(long, value_parser = LimitFlags::EFFORTS)]
    pub reasoning_effort: Option<String>,
    /// The model's context window in tokens, for a server whose window the profile cannot know
    /// (a local server's n_ctx); compaction works against it.
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u32).range(1..))]
    pub context_window: Option<u32>,
    /// Compact (summarise older turns) once a request passes this share of the context window,
    /// in percent; 0 = never (default 80).
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(0..=100))]
    pub compact_at: Option<u8>,
    /// Where run artifacts and the session store are kept; default: $OPENAGENT_DATA_DIR, else
    /// $XDG_DATA_HOME/openagent, else ~/.local/share/openagent.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Continue the stored session with this id (or unique id prefix): its history, its
    /// provider, model and directory unless flags say otherwise. `openagent sessions list` shows them.
    #[arg(long, value_name = "ID")]
    pub resume: Option<String>,
    /// Continue the latest session of the working directory (--cwd).
    #[arg(long = "continue", conflicts_with = "resume")]
    pub continue_latest: bool,
    /// A variable of this environment that commands see too (repeatable): a name, or a prefix
    /// ending in `*` (`NPM_*`). Commands otherwise get only PATH, HOME, the locale, temporary
    /// directories and toolchain locations; a secret passes only when named exactly.
    #[arg(long = "env-pass", value_name = "NAME")]
    pub env_pass: Vec<String>,
    /// Which tool calls run without asking: read-only (file edits and commands ask), auto-edit
    /// (commands ask) or full-auto (none ask). Default: the agent config's, else auto-edit in
    /// the interactive session and full-auto for `run`, where `ask` is a deny.
    #[arg(long, value_name = "MODE", value_parser = approval_mode)]
    pub approval: Option<ApprovalMode>,
    #[command(flatten)]
    pub sandbox: SandboxFlags,
}

/// What the agent's commands may reach once they run (the approval mode says whether they run).
#[derive(Args, Clone)]
pub struct SandboxFlags {
    /// What commands may reach: read-only (no writes), workspace-write (writes under the working
    /// directory, the temporary directory and --writable-root only) or full-access (your own
    /// rights, unconfined). Default: the agent config's `sandbox:`, else workspace-write with the
    /// network off; widen it with --sandbox full-access or --sandbox-network on.
    #[arg(long, value_name = "MODE", value_parser = sandbox_mode)]
    pub sandbox: Option<SandboxMode>,
    /// The network confined commands may reach: off (the default), on, or only these hosts,
    /// separated by commas (crates.io,*.npmjs.org).
    #[arg(long, value_name = "off|on|HOSTS", value_parser = sandbox_network)]
    pub sandbox_network: Option<Network>,
    /// A directory commands may write besides the working one, in workspace-write (repeatable;
    /// relative to the current directory).
    #[arg(long = "writable-root", value_name = "DIR")]
    pub writable_roots: Vec<PathBuf>,
}

pub fn sandbox_mode(name: &str) -> Result<SandboxMode, String> {
    SandboxMode::parse(name)
}

pub fn sandbox_network(text: &str) -> Result<Network, String> {
    Network::parse(text)
}

impl SandboxFlags {
    /// The runner's options: each root made absolute against the current directory, as the
    /// policy takes it, with `.` and `..` folded (the host then refuses one that is a symlink).
    pub fn options(&self) -> SandboxOptions {
        let here = std::env::current_dir().map(|dir| dir.display().to_string()).unwrap_or_else(|_| "/".into());
        SandboxOptions {
            mode: self.sandbox,
            network: self.sandbox_network.clone(),
            writable_roots: self.writable_roots.iter().map(|dir| lexical_path(&here, &dir.display().to_string())).collect(),
        }
    }
}

pub fn approval_mode(name: &str) -> Result<ApprovalMode, String> {
    ApprovalMode::parse(name)
}

impl SessionFlags {
    pub fn resume_from(&self) -> Option<ResumeFrom> {
        match (&self.resume, self.continue_latest) {
            (Some(id), _) => Some(ResumeFrom::Id(id.clone())),
            (None, true) => Some(ResumeFrom::Latest),
            (None, false) => None,
        }
    }
}

#[derive(Args)]
pub struct ServeFlags {
    /// The port; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// The bearer token requests must carry; default: $OPENAGENT_SERVE_TOKEN, else a new random one, printed.
    #[arg(long)]
    pub token: Option<String>,
    /// Where the session store is; default: as for `run`.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// The directory the sessions work in; default: the current one.
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// A base URL that requests may name in `base_url` (repeatable). Any other is refused with
    /// 403: the server would send its own provider key there.
    #[arg(long = "allow-base-url", value_name = "URL")]
    pub allow_base_url: Vec<String>,
    /// A variable of this environment that the sessions' commands see too (repeatable), as for `run`.
    #[arg(long = "env-pass", value_name = "NAME")]
    pub env_pass: Vec<String>,
    /// The requests answered at once, a worker thread each (at least 2); as many more connections
    /// may wait, and beyond that a connection is answered 503. An event stream holds its worker
    /// while it streams.
    #[arg(long, value_name = "N", default_value_t = openagent_serve::DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Close an open session after this many seconds with no request for it and no input running
    /// (it stays in the store; a message takes it up again); 0: never.
    #[arg(long, value_name = "SECS", default_value_t = openagent_serve::DEFAULT_SESSION_IDLE_SECS)]
    pub session_idle_timeout: u64,
    /// How long a request's whole head may take to arrive, in milliseconds (408 after it;
    /// default 10 s); for tests.
    #[arg(long, value_name = "MS", hide = true)]
    pub header_deadline_ms: Option<u64>,
    /// The sessions' approval mode where a request's `approval` and the agent config say nothing
    /// (default full-auto). Calls that ask wait for POST /sessions/{id}/approvals/{call_id}.
    #[arg(long, value_name = "MODE", value_parser = approval_mode)]
    pub approval: Option<ApprovalMode>,
    /// The sessions' sandbox where a request's `sandbox` and the agent config say nothing.
    #[command(flatten)]
    pub sandbox: SandboxFlags,
}

/// `--output`: the runner's [`OutputMode`], as clap lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
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
pub struct OutputFlags {
    /// human: streamed text and tool lines; json: openagent.run_event.v1 JSONL on stdout.
    #[arg(long, value_enum, default_value = "human")]
    pub output: Output,
    /// Also write every internal event to FILE as JSONL, whatever the output.
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,
    /// With --output json, also emit the model's text as `text_delta` records.
    #[arg(long)]
    pub stream: bool,
}

#[derive(Args)]
pub struct RunFlags {
    /// What the agent should do.
    pub task: String,
    #[command(flatten)]
    pub session: SessionFlags,
    #[command(flatten)]
    pub report: OutputFlags,
    /// Open the interactive session with this task as its first input.
    #[arg(long)]
    pub tui: bool,
}

#[derive(Subcommand)]
pub enum SandboxCommand {
    /// Run one task in the sandbox, on DIR only; the output is that of `openagent run`.
    Run(SandboxRunFlags),
}

#[derive(Args)]
pub struct SandboxRunFlags {
    /// What the agent should do.
    pub task: String,
    /// The only directory the agent can read and write (it sees it as /workspace).
    #[arg(long)]
    pub dir: PathBuf,
    #[command(flatten)]
    pub session: SessionFlags,
    #[command(flatten)]
    pub report: OutputFlags,
    /// Stop the run after this many seconds, model calls included.
    #[arg(long, default_value_t = 600.0, value_name = "SECONDS")]
    pub timeout: f64,
    /// The agent's memory cap, in MB.
    #[arg(long, default_value_t = 256)]
    pub memory_mb: usize,
    /// The guest module (openagent-sandbox-guest.wasm); default: $OPENAGENT_SANDBOX_GUEST, else
    /// beside this executable, else cargo's wasm32-wasip1/release directory.
    #[arg(long, value_name = "FILE")]
    pub guest: Option<PathBuf>,
}
