//! The agent a native session runs: the provider resolved from flags, the agent config (`--agent`)
//! and the environment, the model known, the working directory checked. Shared by `openagent run`
//! and the interactive session.

use std::path::PathBuf;
use std::rc::Rc;

use openagent_core::approval::{ApprovalMode, Approver, Policy};
use openagent_core::llm::catalog::Catalog;
use openagent_core::llm::http::HttpClient;
use openagent_core::llm::{ErrorKind, RetryPolicy};
use openagent_core::runtime::Runtime;
use openagent_core::sandbox::SandboxPolicy;
use openagent_core::session::{SessionBuilder, SessionSnapshot};
use openagent_core::setup::{profile, server_models, ProviderKind, ProviderSettings, ServerModel, SetupError};
use openagent_core::{Session, SessionConfig, SessionError};

use crate::agents::{self, AgentConfig};
use crate::approval::CannotAsk;
use crate::error::RunError;
use crate::hooks;
use crate::limits::LimitFlags;
use crate::mcp::{self, McpServer};
use crate::models;
use crate::sandbox::{enforceable, SandboxOptions};
use crate::server_models::ServerModels;
use crate::trust;
use openagent_host::hooks::CommandHooks;
use openagent_host::http::NativeHttpClient;
use openagent_host::local_env::{secret_values, EnvPass, LocalEnvironment};
use openagent_host::runtime::NativeRuntime;
use openagent_host::url::without_password;

/// What the user said about the agent (flags; the environment fills in the rest).
#[derive(Debug, Clone, Default)]
pub struct AgentOptions {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// The working directory; the current one when absent.
    pub cwd: Option<PathBuf>,
    /// An agent config of the working directory (`--agent`): its provider and model stand where
    /// the flags above say nothing.
    pub agent: Option<String>,
    /// Variables of this process commands see beyond the core ones (`--env-pass`).
    pub env_pass: Vec<String>,
    /// `--approval`: the approval mode, over the agent config's.
    pub approval: Option<ApprovalMode>,
    /// The mode when neither the flag nor the agent config gives one: the host's default.
    pub default_approval: ApprovalMode,
    /// `--sandbox` and its companions (serve's `sandbox`): over the agent config's `sandbox:`.
    pub sandbox: SandboxOptions,
    /// The user's data directory, whose trust store says which of the directory's hooks and MCP
    /// servers may run (`openagent trust`); none: none of them.
    pub data_dir: Option<PathBuf>,
}

/// What a run starts its sessions from, once the options are checked: the provider's settings
/// and model, the working directory and its environment, the agent config. Not an agent itself
/// (the browser's `Agent` is the JavaScript API; `AgentConfig` is an agent.yml).
pub struct Launcher {
    pub settings: ProviderSettings,
    pub model: String,
    pub cwd: PathBuf,
    /// The agent config, when the run names one.
    pub config: Option<AgentConfig>,
    /// The MCP servers of the directory and the agent config, connected (or with their error).
    pub mcp: Vec<McpServer>,
    /// The approval policy every session of this run is held to.
    pub policy: Policy,
    /// What the commands of every session of this run may reach, checked enforceable here.
    pub sandbox: SandboxPolicy,
    /// Who is asked when the policy says `ask`: by default no one ([`CannotAsk`]), so `ask` is
    /// a deny that names the flag; the interactive session and `serve` ask a person.
    pub approver: Rc<dyn Approver>,
    /// The hooks of the directory and the agent config; none configured: `None`.
    pub hooks: Option<Rc<CommandHooks>>,
    /// The model catalog with the directory's `.openagent/models.json` over it.
    pub catalog: Catalog,
    /// The window an OpenAI-compatible server serves the model with, where `--context-window`
    /// gives none.
    server_window: Option<u64>,
    env: Rc<LocalEnvironment>,
    http: Rc<NativeHttpClient>,
    runtime: Rc<NativeRuntime>,
}

impl Launcher {
    /// Resolves the provider and model and opens the working directory. The error says what to
    /// change.
    pub fn prepare(options: &AgentOptions, runtime: Rc<NativeRuntime>) -> Result<Self, RunError> {
        let cwd = working_directory(options)?;
        let env = LocalEnvironment::new(&cwd)
            .map_err(|e| RunError::CannotWorkIn { dir: cwd.clone(), reason: e.to_string() })?
            .with_env_pass(EnvPass::new(&options.env_pass));
        let config = options.agent.as_deref().map(|id| agents::load(&cwd, id)).transpose()?;
        let servers = mcp::load(&cwd, &config.as_ref().map(|c| c.mcp_servers.clone()).unwrap_or_default())?;
        let hooks = hooks::load(&cwd, &config.as_ref().map(|c| c.hooks.clone()).unwrap_or_default())?;
        // Checked once both files are loaded (so a broken one is named as broken) and before
        // anything of them starts or a model server is asked anything.
        trust::check(options.data_dir.as_deref(), &cwd, &trust::project_files(&cwd, config.as_ref()))?;
        // Before any model server is asked anything and any MCP server starts: a policy this
        // machine cannot enforce refuses the run instead of running commands unconfined.
        let sandbox = options.sandbox.policy(config.as_ref().and_then(|c| c.sandbox.as_ref()))?;
        enforceable(&sandbox, &cwd, |policy, _| env.check_sandbox(policy))?;
        let http = Rc::new(NativeHttpClient::new());
        let (settings, model, server_window) = resolve_kept(options, config.as_ref(), &runtime, &http)?;
        let catalog = models::load(&cwd)?;
        let mcp = match servers.is_empty() {
            true => Vec::new(),
            false => runtime.block_on(mcp::connect_all(&servers, &cwd, http.clone(), runtime.clone())),
        };
        // A server that fails leaves its tools out; the run goes on and says so.
        for warning in mcp::warnings(&mcp) {
            eprintln!("warning: {warning}");
        }
        let permissions = config.as_ref().and_then(|c| c.permissions.clone()).unwrap_or_default();
        let mode = options.approval.or(permissions.mode).unwrap_or(options.default_approval);
        let policy = Policy { mode, rules: permissions.rules };
        let approver = Rc::new(CannotAsk);
        let env = Rc::new(env);
        Ok(Self {
            settings,
            model,
            cwd,
            config,
            mcp,
            policy,
            sandbox,
            approver,
            hooks,
            catalog,
            server_window,
            env,
            http,
            runtime,
        })
    }

    /// The session's settings: the agent config's limits, or for a session `resumed` the ones
    /// in force when its snapshot was taken; then the flags given on top.
    pub fn session_config(&self, limits: &LimitFlags, resumed: Option<&SessionSnapshot>) -> SessionConfig {
        let mut config = match resumed {
            Some(snapshot) => limits.apply(snapshot.state.config.clone()),
            None => session_config(self.config.as_ref(), limits),
        };
        if config.context_window.is_none() {
            config.context_window = self.server_window.map(|tokens| tokens as usize);
        }
        config
    }

    /// A session on this agent, retrying transient model errors and reporting each retry: a new
    /// one, or one that continues `restore`'s history. With an agent config: its profile and
    /// tools, instructions and output schema.
    pub fn session(&self, id: &str, config: SessionConfig, restore: Option<SessionSnapshot>) -> Session {
        self.build(self.builder(id, config), restore)
    }

    /// The session `builder` (from [`Launcher::builder`], with a host's additions) makes, new or
    /// continuing `restore`, finished as [`Launcher::finish`] says.
    pub fn build(&self, builder: SessionBuilder, restore: Option<SessionSnapshot>) -> Session {
        let session = match restore {
            Some(snapshot) => builder.restore(snapshot),
            None => builder,
        }
        .build();
        self.finish(&session);
        session
    }

    /// What a session built from [`Launcher::builder`] still needs: the MCP servers' tools, and
    /// the agent config's restrictions.
    pub fn finish(&self, session: &Session) {
        mcp::register(session, &self.mcp);
        if let Some(agent) = &self.config {
            agent.restrict(session);
        }
    }

    /// What [`Launcher::session`] builds, for a host that adds to it (an output schema).
    pub fn builder(&self, id: &str, config: SessionConfig) -> SessionBuilder {
        let http: Rc<dyn HttpClient> = self.http.clone();
        let client = self.settings.client(http, false);
        let profile = match &self.config {
            Some(agent) => agent.profile(self.settings.kind, &self.model, &self.catalog),
            None => profile(self.settings.kind, &self.model, &self.catalog),
        };
        let mut builder = Session::builder(profile, self.env.clone(), client, self.runtime.clone())
            .id(id)
            .config(config)
            .retries(RetryPolicy::default())
            .redact(self.secrets())
            .approval(self.policy.clone())
            .sandbox(self.sandbox.clone())
            .approver(self.approver.clone());
        if let Some(hooks) = &self.hooks {
            builder = builder.hooks(hooks.clone());
        }
        match &self.config {
            Some(agent) => agent.configure(builder),
            None => builder,
        }
    }

    /// The values no tool output may carry into the record or the model: the provider key and
    /// every secret variable of this process (native/README.md, "What a command can see").
    fn secrets(&self) -> Vec<String> {
        let mut secrets = secret_values(std::env::vars_os());
        secrets.extend(self.settings.key.key().map(|key| key.expose().to_owned()));
        secrets
    }

    /// Puts the sessions built from now on under `policy`, if it can be used and this machine
    /// can enforce it (the interactive session's `/sandbox`); the error says why not.
    pub fn set_sandbox(&mut self, policy: SandboxPolicy) -> Result<(), RunError> {
        policy.check().map_err(RunError::BadSandbox)?;
        enforceable(&policy, &self.cwd, |policy, _| self.env.check_sandbox(policy))?;
        self.sandbox = policy;
        Ok(())
    }

    /// The error as the user should read it: what went wrong and what to do.
    pub fn explain(&self, error: &SessionError) -> String {
        explain(&self.settings, &self.model, error)
    }
}

impl Drop for Launcher {
    fn drop(&mut self) {
        mcp::release(&self.mcp);
    }
}

/// A session's settings: the agent config's limits (when there is one), then the flags given on
/// top. Shared with the sandboxed run, which has no `Launcher`.
pub fn session_config(agent: Option<&AgentConfig>, limits: &LimitFlags) -> SessionConfig {
    let base = match agent {
        Some(agent) => agent.apply_limits(SessionConfig::default()),
        None => SessionConfig::default(),
    };
    limits.apply(base)
}

/// The directory `options` name (`--cwd`, else the current one), canonical; the error says what
/// to change.
pub fn working_directory(options: &AgentOptions) -> Result<PathBuf, RunError> {
    let cwd = match &options.cwd {
        Some(dir) => dir.canonicalize().map_err(|e| RunError::BadDirectory { dir: dir.clone(), reason: e.to_string() })?,
        None => std::env::current_dir().map_err(RunError::NoCurrentDirectory)?,
    };
    if !cwd.is_dir() {
        return Err(RunError::BadDirectory { dir: cwd, reason: "not a directory".into() });
    }
    Ok(cwd)
}

/// The provider from `options`, the agent config's provider and model where the flags say
/// nothing, and the environment; the model: the given one, the provider's default, or the first
/// an OpenAI-compatible server lists; and the window such a server says it serves the model with.
pub fn resolve_provider(
    options: &AgentOptions,
    agent: Option<&AgentConfig>,
    runtime: &NativeRuntime,
    http: &dyn HttpClient,
) -> Result<(ProviderSettings, String, Option<u64>), RunError> {
    resolve_with(options, agent, |settings| runtime.block_on(server_models(settings, http)))
}

/// [`resolve_provider`] with what the server's listing was when this data directory last asked
/// (`server-models.json`): a server found there is asked again beside the run, not before it.
fn resolve_kept(
    options: &AgentOptions,
    agent: Option<&AgentConfig>,
    runtime: &Rc<NativeRuntime>,
    http: &Rc<NativeHttpClient>,
) -> Result<(ProviderSettings, String, Option<u64>), RunError> {
    let Some(kept) = options.data_dir.as_deref().map(ServerModels::in_dir) else {
        return resolve_provider(options, agent, runtime, &**http);
    };
    resolve_with(options, agent, |settings| {
        let ask = {
            let (settings, http, kept) = (settings.clone(), http.clone(), kept.clone());
            async move {
                let listed = server_models(&settings, &*http).await;
                if let Ok(models) = &listed {
                    kept.put(&settings.base_url, models);
                }
                listed
            }
        };
        let model = settings.model.as_deref();
        // A listing without the model asked for (or without any) is asked again now.
        let usable = |models: &Vec<ServerModel>| match model {
            Some(model) => models.iter().any(|m| m.id == model),
            None => !models.is_empty(),
        };
        match kept.get(&settings.base_url).filter(usable) {
            Some(models) => {
                // Whatever it answers is for the next run; one that ends first does not wait for it.
                runtime.spawn_local(Box::pin(async move { drop(ask.await) }));
                Ok(models)
            }
            None => runtime.block_on(ask),
        }
    })
}

/// The provider, model and server window, with `list` giving an OpenAI-compatible server's models.
fn resolve_with(
    options: &AgentOptions,
    agent: Option<&AgentConfig>,
    list: impl FnOnce(&ProviderSettings) -> Result<Vec<ServerModel>, SetupError>,
) -> Result<(ProviderSettings, String, Option<u64>), RunError> {
    let settings = ProviderSettings::resolve(
        options.provider.as_deref().or(agent.and_then(|c| c.provider.as_deref())),
        options.model.as_deref().or(agent.and_then(|c| c.model.as_deref())),
        options.base_url.as_deref(),
        |name| std::env::var(name).ok(),
    )
    .map_err(RunError::Setup)?;
    if settings.kind != ProviderKind::OpenAiCompatible {
        let model = settings.model.clone().expect("every other provider has a default model");
        return Ok((settings, model, None));
    }
    let listed = list(&settings);
    let model = match (&settings.model, &listed) {
        (Some(model), _) => model.clone(),
        (None, Ok(models)) => models
            .first()
            .map(|m| m.id.clone())
            .ok_or_else(|| RunError::Setup(SetupError::NoModel(format!("{}/models listed none", settings.base_url))))?,
        (None, Err(e)) => return Err(RunError::Setup(e.clone())),
    };
    // A server that cannot list its models still serves them: the window is then the profile's.
    let window = listed.ok().and_then(|models| models.into_iter().find(|m| m.id == model)?.context_window);
    Ok((settings, model, window))
}

/// `error` as the user should read it, for a run of `model` on the provider of `settings`: what
/// went wrong and what to do. Shared with the sandboxed run, which has no `Launcher`.
pub fn explain(settings: &ProviderSettings, model: &str, error: &SessionError) -> String {
    let SessionError::Llm(llm) = error else { return error.to_string() };
    let hint = match llm.kind {
        ErrorKind::Authentication | ErrorKind::AccessDenied => {
            let variables = settings.kind.spec().key_variables.join(" or ");
            format!("the {} provider refused the API key; check {variables}", settings.kind)
        }
        ErrorKind::NotFound => format!(
            "the {} provider at {} does not know the model `{model}`, or that URL is not its API root; pass --model (and --base-url)",
            settings.kind,
            without_password(&settings.base_url)
        ),
        ErrorKind::Network | ErrorKind::RequestTimeout => {
            format!("could not reach {}; check the network or --base-url", without_password(&settings.base_url))
        }
        _ => return llm.to_string(),
    };
    format!("{llm} ({hint})")
}
