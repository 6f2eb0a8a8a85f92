//! Why a directory's configuration cannot be used: a config file that cannot be read or is
//! broken (each naming the file), a file that would run commands and is not trusted, an image the
//! task mentions that is not there. Each says what to do next; a host prints it as it is.

use std::path::PathBuf;

use crate::config_file::FileError;
use crate::hooks::HooksError;
use crate::mcp::McpConfigError;
use crate::trust::TrustError;

/// What stops a directory's configuration from loading.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A config file is there but cannot be read as one.
    #[error("{}: {problem}", file.display())]
    Unreadable { file: PathBuf, problem: FileError },
    /// A hooks.json that is not one.
    #[error("{}: {problem}", file.display())]
    Hooks { file: PathBuf, problem: HooksError },
    /// An mcp.json that is not one.
    #[error("{}: {problem}", file.display())]
    Mcp { file: PathBuf, problem: McpConfigError },
    /// A models.json with wrong entries: each problem is `LINE: KEY: MESSAGE` (or how many more
    /// there are), in the order of the file; one line each.
    #[error("{}", models_lines(file, problems))]
    Models { file: PathBuf, problems: Vec<String> },
    /// A models.json whose entries read but do not lay over the catalog (the catalog's words).
    #[error("{}: {problem}", file.display())]
    Catalog { file: PathBuf, problem: String },
    /// A file that names commands to run is not trusted, or trust cannot be told.
    #[error(transparent)]
    Trust(#[from] TrustError),
    /// The task mentions an image (`@shot.png`) that is not there.
    #[error("the task mentions {mention}, but there is no such file in {}", cwd.display())]
    MissingImage { mention: String, cwd: PathBuf },
}

/// `FILE:PROBLEM` for each problem, a line each.
fn models_lines(file: &std::path::Path, problems: &[String]) -> String {
    let lines: Vec<String> = problems.iter().map(|problem| format!("{}:{problem}", file.display())).collect();
    lines.join("\n")
}
