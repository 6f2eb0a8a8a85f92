//! Why a session could not be set up: what every host's first step can refuse with. Each
//! variant's text says what went wrong and what to do about it; hosts show it as it is (the CLI
//! on stderr or as `run_finished`, serve as a 400 or 409).

use std::path::PathBuf;

use openagent_core::llm::openai_chat::LOCAL_BASE_URL;
use openagent_core::llm::providers::PROVIDERS;
use openagent_core::setup::{ProviderKind, SetupError};
use openagent_store::StoreError;

use crate::agents::AgentError;
use crate::config_error::ConfigError;
use crate::resume;
use crate::trust::TrustError;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// `--cwd` names what is not a usable directory.
    #[error("cannot use --cwd {}: {reason}", dir.display())]
    BadDirectory { dir: PathBuf, reason: String },
    /// The process's own working directory is gone or unreadable.
    #[error("cannot read the current directory: {0}")]
    NoCurrentDirectory(std::io::Error),
    /// The working directory could not be opened as the agent's environment.
    #[error("cannot work in {}: {reason}", dir.display())]
    CannotWorkIn { dir: PathBuf, reason: String },
    /// The agent config named is missing or broken.
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// A file of the directory (`.openagent/mcp.json`, `hooks.json`, `models.json`) is broken,
    /// or names commands it is not trusted to run.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A file of the directory names commands it is not trusted to run.
    #[error(transparent)]
    Trust(#[from] TrustError),
    /// No provider, key or model could be settled on: the text says what to set.
    #[error("{}", explain_setup(.0))]
    Setup(SetupError),
    /// The stored session to resume cannot be taken up.
    #[error("{}", resume::explain(.0))]
    Resume(StoreError),
    /// The resumed session's own directory could not be used.
    #[error("{error} (the directory session {session} worked in; give --cwd to resume it in another)")]
    ResumedDirectory { session: String, error: Box<RunError> },
    /// The session store could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `--events FILE` cannot be written.
    #[error("cannot {action} the events file {}: {reason}", path.display())]
    EventsFile { path: PathBuf, action: &'static str, reason: std::io::Error },
    /// `OPENAGENT_RUN_ID` is not a valid run id.
    #[error("OPENAGENT_RUN_ID {0:?} is not a valid run id: use letters, digits, '-', '_' and '.' (not first)")]
    BadRunId(String),
    /// `OPENAGENT_RUN_ID` names a run the data directory already has.
    #[error(
        "run id {id} (OPENAGENT_RUN_ID) is taken: {} already has a run of that id; give this run an id of its own (or \
         unset OPENAGENT_RUN_ID for a new one), or add --resume {id} to continue that session",
        data_dir.display()
    )]
    RunIdTaken { id: String, data_dir: PathBuf },
    /// A requested output schema does not compile.
    #[error("output_schema: {0}")]
    OutputSchema(String),
    /// The sandbox policy asked for is not one a session can have.
    #[error("the sandbox policy cannot be used: {0}")]
    BadSandbox(String),
    /// This machine cannot enforce the sandbox policy: the run refuses rather than letting
    /// commands run unconfined.
    #[error("{}", cannot_confine(policy, reason))]
    CannotConfine { policy: String, reason: String },
}

/// The refusal of a policy this machine cannot enforce, with the way out where the host's reason
/// does not give it.
fn cannot_confine(policy: &str, reason: &str) -> String {
    let way_out = match reason.contains("full-access") {
        true => "",
        false => "; to run commands with your own rights instead, give --sandbox full-access (`sandbox: full-access` in an agent.yml or a serve request)",
    };
    format!("this machine cannot enforce the sandbox ({policy}): {reason}{way_out}")
}

/// A setup error with what to set here: the variables of the provider table, and the flags.
pub fn explain_setup(error: &SetupError) -> String {
    match error {
        SetupError::NoProvider => {
            let keys: Vec<String> = PROVIDERS
                .iter()
                .filter(|spec| spec.needs_key)
                .map(|spec| format!("{} ({})", spec.key_variables.join(" or "), spec.name))
                .collect();
            let local = ProviderKind::OpenAiCompatible.spec();
            format!(
                "{error}. Set one of {}; or use a local OpenAI-compatible server with `--provider {} --base-url {LOCAL_BASE_URL}` \
                 (or set {})",
                keys.join(", "),
                local.name,
                local.base_url_variable
            )
        }
        SetupError::MissingKey(kind) => format!("{error}: set {}", kind.spec().key_variables.join(" or ")),
        SetupError::MissingBaseUrl => format!(
            "{error}: pass --base-url (e.g. {LOCAL_BASE_URL}) or set {}",
            ProviderKind::OpenAiCompatible.spec().base_url_variable
        ),
        SetupError::NoModel(_) => format!("{error}; pass --model"),
        SetupError::UnknownProvider(_) | SetupError::BadBaseUrl(_) => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_errors_say_which_variable_or_flag_to_set() {
        let text = explain_setup(&SetupError::NoProvider);
        assert!(text.starts_with("no provider is configured. Set one of OPENAI_API_KEY (openai), "), "{text}");
        for needed in ["ANTHROPIC_API_KEY (anthropic)", "GEMINI_API_KEY or GOOGLE_API_KEY (gemini)", "--base-url"] {
            assert!(text.contains(needed), "{text}");
        }
        assert!(text.ends_with("(or set OPENAI_COMPATIBLE_BASE_URL)"), "{text}");
        assert_eq!(
            explain_setup(&SetupError::MissingKey(ProviderKind::Gemini)),
            "the gemini provider needs an API key: set GEMINI_API_KEY or GOOGLE_API_KEY"
        );
        assert_eq!(
            explain_setup(&SetupError::MissingBaseUrl),
            "the openai-compatible provider needs the server's URL: pass --base-url (e.g. http://127.0.0.1:8080/v1) or set \
             OPENAI_COMPATIBLE_BASE_URL"
        );
        assert!(explain_setup(&SetupError::NoModel("it answered 404".into())).ends_with("(it answered 404); pass --model"));
    }
}
