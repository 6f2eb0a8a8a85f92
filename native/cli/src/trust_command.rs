//! `openagent trust`: trusts the hooks and MCP servers a directory's files name, as the files are
//! now, printing what each runs; `openagent trust list` and `openagent trust revoke`.

use std::io;
use std::path::{Path, PathBuf};

use openagent_core::runtime::format_rfc3339;

use openagent_host::runtime::system_now_ms;
use openagent_runner::agents;
use openagent_runner::config_error::ConfigError;
use openagent_runner::hooks::{self, HooksConfig, HOOKS_FILE};
use openagent_runner::mcp::{self, McpServerConfig, MCP_FILE};
use openagent_runner::stdout::Stdout;
use openagent_runner::terminal::terminal_text;
use openagent_runner::trust::store::{content_hash, key, read_content, sha256, Entry, Status, TrustStore};
use openagent_runner::trust::{agent_file, open_outside, TrustError};

/// Why nothing was trusted or revoked.
#[derive(Debug, thiserror::Error)]
enum TrustCommandError {
    /// A hooks.json or mcp.json that does not load.
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Store(#[from] TrustError),
    /// The agents directory cannot be listed (the error names it).
    #[error("{0}")]
    Agents(io::Error),
    #[error("{}: cannot be trusted: it is not a regular file of at most 16 MiB that can be read", .0.display())]
    NotRegular(PathBuf),
    #[error("{}: cannot be trusted: it is not UTF-8", .0.display())]
    NotUtf8(PathBuf),
    #[error("cannot use {}: {error}", cwd.display())]
    Cwd { cwd: PathBuf, error: io::Error },
}

/// A file to trust: its path in the directory, its hash, and a line for each thing it runs.
struct Named {
    file: PathBuf,
    sha256: String,
    runs: Vec<String>,
}

/// Trusts `cwd`'s files in the store of `data_dir`, printing each and what it runs; 2 when one
/// cannot be read or checked (and then none is trusted).
pub fn trust(cwd: &Path, data_dir: &Path) -> u8 {
    let result = canonical(cwd).and_then(|cwd| {
        let mut store = open_outside(data_dir, &cwd)?;
        let named = named(&cwd)?;
        let at = format_rfc3339(system_now_ms());
        for one in &named {
            store.files.insert(key(&cwd, &one.file), Entry { sha256: one.sha256.clone(), trusted_at: at.clone() });
        }
        if !named.is_empty() {
            store.save()?;
        }
        Ok((cwd, named))
    });
    let mut out = Stdout::default();
    match result {
        Ok((cwd, named)) if named.is_empty() => {
            let path = cwd.display();
            out.write(&format!(
                "nothing to trust in {path}: it has no {HOOKS_FILE}, no {MCP_FILE} and no agent with hooks or mcp_servers\n"
            ));
            out.end(0)
        }
        Ok((cwd, named)) => {
            for one in named {
                out.write(&format!("trusted {} (sha256 {})\n", key(&cwd, &one.file).display(), &one.sha256[..12]));
                // What the file runs, as text: escapes in it must not hide a command from the user.
                for line in one.runs {
                    out.write(&format!("  {}\n", terminal_text(&line)));
                }
            }
            out.write("These run from now on in this directory; a change to one of the files needs `openagent trust` again.\n");
            out.end(0)
        }
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
    }
}

/// Prints every trusted file and whether it is still as trusted.
pub fn list(data_dir: &Path) -> u8 {
    let store = match TrustStore::open(data_dir) {
        Ok(store) => store,
        Err(message) => {
            eprintln!("error: {message}");
            return 2;
        }
    };
    let mut out = Stdout::default();
    if store.files.is_empty() {
        out.write("nothing is trusted yet: `openagent trust` in a directory trusts its hooks and MCP servers\n");
    }
    for (file, entry) in &store.files {
        let now = match file.exists() {
            false => "missing",
            true => match store.status(file, content_hash(file).as_deref()) {
                Status::Trusted => "trusted",
                _ => "changed",
            },
        };
        out.write(&format!("{now}  {}  (trusted {})\n", terminal_text(&file.display().to_string()), entry.trusted_at));
    }
    out.end(0)
}

/// Forgets every trusted file of `cwd`.
pub fn revoke(cwd: &Path, data_dir: &Path) -> u8 {
    let result = canonical(cwd).and_then(|cwd| {
        let mut store = TrustStore::open(data_dir)?;
        let gone: Vec<PathBuf> = store.files.keys().filter(|file| file.starts_with(&cwd)).cloned().collect();
        for file in &gone {
            store.files.remove(file);
        }
        if !gone.is_empty() {
            store.save()?;
        }
        Ok((cwd, gone))
    });
    let mut out = Stdout::default();
    match result {
        Ok((cwd, gone)) if gone.is_empty() => {
            out.write(&format!("nothing in {} was trusted\n", cwd.display()));
            out.end(0)
        }
        Ok((_, gone)) => {
            for file in gone {
                out.write(&format!("revoked {}\n", terminal_text(&file.display().to_string())));
            }
            out.end(0)
        }
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
    }
}

/// The files of `cwd` that name something to run, each read once: what is hashed is what is
/// checked and printed.
fn named(cwd: &Path) -> Result<Vec<Named>, TrustCommandError> {
    let mut out = Vec::new();
    if let Some((sha256, text)) = read(cwd, HOOKS_FILE)? {
        let config = hooks::parse(&text).map_err(|problem| ConfigError::Hooks { file: cwd.join(HOOKS_FILE), problem })?;
        out.push(Named { file: HOOKS_FILE.into(), sha256, runs: hook_lines(&config) });
    }
    if let Some((sha256, text)) = read(cwd, MCP_FILE)? {
        let servers = mcp::parse(&text).map_err(|problem| ConfigError::Mcp { file: cwd.join(MCP_FILE), problem })?;
        out.push(Named { file: MCP_FILE.into(), sha256, runs: server_lines(&servers) });
    }
    let found = agents::discover(cwd).map_err(TrustCommandError::Agents)?;
    for agent in found {
        let config = match agent.config {
            Ok(config) => config,
            // It cannot run either: `openagent agents list` says what is wrong with it.
            Err(error) => {
                eprintln!("warning: not trusted, as it does not load: {error}");
                continue;
            }
        };
        if config.hooks.is_empty() && config.mcp_servers.is_empty() {
            continue;
        }
        let file = agent_file(&agent.id);
        let Some((sha256, _)) = read(cwd, &file.to_string_lossy())? else { continue };
        let runs = [hook_lines(&config.hooks), server_lines(&config.mcp_servers)].concat();
        out.push(Named { file, sha256, runs });
    }
    Ok(out)
}

/// `name`'s hash and text, `None` when there is no such file.
fn read(cwd: &Path, name: &str) -> Result<Option<(String, String)>, TrustCommandError> {
    let path = cwd.join(name);
    if !path.exists() {
        return Ok(None);
    }
    let Some(content) = read_content(&path) else { return Err(TrustCommandError::NotRegular(path)) };
    let Ok(text) = String::from_utf8(content.clone()) else { return Err(TrustCommandError::NotUtf8(path)) };
    Ok(Some((sha256(&content), text)))
}

fn hook_lines(config: &HooksConfig) -> Vec<String> {
    let mut lines = Vec::new();
    for (point, list) in config {
        for hook in list {
            match &hook.matcher {
                Some(matcher) => lines.push(format!("hook {point} ({matcher}): {}", hook.command)),
                None => lines.push(format!("hook {point}: {}", hook.command)),
            }
        }
    }
    lines
}

fn server_lines(servers: &std::collections::BTreeMap<String, McpServerConfig>) -> Vec<String> {
    servers.iter().map(|(name, server)| format!("MCP server {name}: {}", server.describe())).collect()
}

fn canonical(cwd: &Path) -> Result<PathBuf, TrustCommandError> {
    cwd.canonicalize().map_err(|error| TrustCommandError::Cwd { cwd: cwd.to_owned(), error })
}
