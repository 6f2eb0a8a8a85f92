//! Trust in what a directory's own files run. `.openagent/hooks.json`, `.openagent/mcp.json` and
//! an agent.yml with `hooks:` or `mcp_servers:` name commands that run as the user, and a model
//! allowed to edit the project could write them. So their hooks and servers run only once the
//! user has trusted each file as it is (`openagent trust`, as Claude Code and codex ask to trust a
//! folder): the store in the user's data directory keeps each file's path with the SHA-256 of its
//! content, and a file rewritten since is untrusted again. Runs, the interactive session and
//! `serve` refuse an untrusted file ([`check`]); `openagent mcp list` leaves its servers unstarted.

mod error;
pub mod store;

use std::path::{Path, PathBuf};

pub use error::TrustError;
pub use store::{content_hash, key, read_content, sha256, Entry, Status, TrustStore, TRUST_FILE};

use crate::agents::{AgentConfig, AGENTS_DIR, CONFIG_FILE};
use crate::config_file;
use crate::hooks::HOOKS_FILE;
use crate::mcp::MCP_FILE;

/// The files of the canonical directory `cwd` that name something to run, relative to it: its
/// hooks.json and mcp.json where they exist, and `agent`'s agent.yml when it has hooks or servers.
pub fn project_files(cwd: &Path, agent: Option<&AgentConfig>) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        [HOOKS_FILE, MCP_FILE].into_iter().map(PathBuf::from).filter(|f| cwd.join(f).exists()).collect();
    if let Some(agent) = agent.filter(|a| !a.hooks.is_empty() || !a.mcp_servers.is_empty()) {
        files.push(agent_file(&agent.id));
    }
    files
}

/// `.openagent/agents/<id>/agent.yml`.
pub fn agent_file(id: &str) -> PathBuf {
    Path::new(AGENTS_DIR).join(id).join(CONFIG_FILE)
}

/// Each of `files` (relative to the canonical `cwd`) with what the store of `data_dir` says of
/// it as it is now; with no data directory, none is trusted. The error: the store cannot be read,
/// or it is inside the project, where the model could write trust for itself.
pub fn statuses(data_dir: Option<&Path>, cwd: &Path, files: &[PathBuf]) -> Result<Vec<(PathBuf, Status)>, TrustError> {
    let store = match data_dir {
        Some(dir) if !files.is_empty() => Some(open_outside(dir, cwd)?),
        _ => None,
    };
    let mut out = Vec::new();
    for file in files {
        let key = key(cwd, file);
        // What was loaded is what must be trusted, not what the file holds by now.
        let hash = config_file::loaded_hash(&key).or_else(|| content_hash(&key));
        let status = store.as_ref().map_or(Status::New, |store| store.status(&key, hash.as_deref()));
        out.push((key, status));
    }
    Ok(out)
}

/// Refuses what `files` would run unless each is trusted: the message names the first that is
/// not and the command that trusts it.
pub fn check(data_dir: Option<&Path>, cwd: &Path, files: &[PathBuf]) -> Result<(), TrustError> {
    match statuses(data_dir, cwd, files)?.into_iter().find(|(_, status)| *status != Status::Trusted) {
        Some((file, status)) => Err(refusal(&file, status, cwd, data_dir)),
        None => Ok(()),
    }
}

/// Why `file` did not run, and how to trust it.
pub fn refusal(file: &Path, status: Status, cwd: &Path, data_dir: Option<&Path>) -> TrustError {
    TrustError::Untrusted { file: file.to_owned(), status, command: trust_command(cwd, data_dir) }
}

/// `openagent trust --cwd DIR [--data-dir DATA]`, ready to paste.
pub fn trust_command(cwd: &Path, data_dir: Option<&Path>) -> String {
    let mut command = format!("openagent trust --cwd {}", shell_word(cwd));
    if let Some(dir) = data_dir {
        command.push_str(" --data-dir ");
        // Resolved, so a relative or `..` path reads as the directory it is.
        command.push_str(&shell_word(&nearest_canonical(dir)));
    }
    command
}

/// `path` as one shell word: as it is when that is safe, else single-quoted.
fn shell_word(path: &Path) -> String {
    let text = path.to_string_lossy();
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:@,=".contains(c)) {
        return text.into_owned();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The store of `data_dir`, refused when it lies inside the project `cwd`.
pub fn open_outside(data_dir: &Path, cwd: &Path) -> Result<TrustStore, TrustError> {
    let resolved = nearest_canonical(data_dir);
    if resolved.starts_with(cwd) {
        return Err(TrustError::StoreInProject { data_dir: data_dir.to_owned(), cwd: cwd.to_owned() });
    }
    TrustStore::open(data_dir)
}

/// `path` with its nearest existing ancestor made canonical (the data directory may not exist
/// yet), so a symlink cannot hide that it is inside the project.
fn nearest_canonical(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut rest = Vec::new();
    let mut at = absolute.as_path();
    loop {
        if let Ok(found) = at.canonicalize() {
            return rest.iter().rev().fold(found, |path, part| path.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                at = parent;
            }
            _ => return absolute,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trust_command_is_quoted_for_a_shell() {
        assert_eq!(
            trust_command(Path::new("/w/my project"), Some(Path::new("/d/it's"))),
            r"openagent trust --cwd '/w/my project' --data-dir '/d/it'\''s'"
        );
        assert_eq!(trust_command(Path::new("/w/p"), None), "openagent trust --cwd /w/p");
    }

    #[test]
    fn a_store_inside_the_project_is_refused() {
        let dir = std::env::temp_dir().join(format!("openagent-trust-inside-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".openagent")).unwrap();
        std::fs::write(dir.join(HOOKS_FILE), "{}").unwrap();
        let cwd = dir.canonicalize().unwrap();
        let files = project_files(&cwd, None);
        assert_eq!(files, [PathBuf::from(HOOKS_FILE)]);
        let error = check(Some(&dir.join(".openagent/data")), &cwd, &files).unwrap_err().to_string();
        assert!(error.contains("is inside the project"), "{error}");
        let error = check(None, &cwd, &files).unwrap_err().to_string();
        assert!(error.contains("it is not trusted yet: nothing of it ran"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file swapped for its trusted text between its loading and the check is judged by what
    /// was loaded: before, the check read the file again and passed the hooks it had not loaded.
    #[test]
    fn what_was_loaded_is_what_is_checked_not_what_the_file_holds_by_then() {
        let dir = std::env::temp_dir().join(format!("openagent-trust-swap-{}", std::process::id()));
        let data = dir.join("data");
        std::fs::create_dir_all(dir.join("work/.openagent")).unwrap();
        let cwd = dir.join("work").canonicalize().unwrap();
        let hooks = cwd.join(HOOKS_FILE);
        std::fs::write(&hooks, "{\"trusted\": true}").unwrap();
        let mut store = TrustStore::open(&data).unwrap();
        let entry = Entry { sha256: content_hash(&hooks).unwrap(), trusted_at: "2026-12-01T00:00:00Z".into() };
        store.files.insert(key(&cwd, Path::new(HOOKS_FILE)), entry);
        store.save().unwrap();
        let files = project_files(&cwd, None);
        check(Some(&data), &cwd, &files).expect("the trusted text passes");

        std::fs::write(&hooks, "{\"swapped\": true}").unwrap();
        config_file::read(&hooks).unwrap();
        std::fs::write(&hooks, "{\"trusted\": true}").unwrap();
        let error = check(Some(&data), &cwd, &files).unwrap_err().to_string();
        assert!(error.contains("changed"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
