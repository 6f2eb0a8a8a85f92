//! The git snapshot of spec 6.4: the branch, how many files are modified and untracked, and the
//! latest commits. It is orientation; the model runs git itself for more. Without git (not a
//! repository, or an environment without the command, such as the built-in shell) there is no
//! snapshot and the prompt says nothing about git.
//!
//! The root and the branch are read from the repository's files (the `.git` found from the working
//! directory up, and its `HEAD`), and the status and the log are asked of git at once, each as a
//! program of its own rather than through a shell: the snapshot is on the way to every session's
//! first model call, and each process it starts is time that call waits.

use crate::env::{ExecOptions, ExecutionEnvironment};

/// Git answers in milliseconds; a slow or hung command must not hold up the model call.
pub(crate) const TIMEOUT_MS: u64 = 5_000;

#[derive(Debug, PartialEq, Eq)]
pub(crate) struct GitSnapshot {
    /// The top of the work tree: project instructions are looked for from here down.
    pub root: String,
    pub branch: String,
    /// `(modified, untracked)` file counts, when `git status` answered.
    pub changes: Option<(usize, usize)>,
    /// `hash subject`, newest first.
    pub recent_commits: Vec<String>,
}

impl GitSnapshot {
    pub async fn take(env: &dyn ExecutionEnvironment) -> Option<Self> {
        if env.has_command("git") == Some(false) {
            return None;
        }
        let (root, branch) = head(env).await?;
        // Both at once: the slower sets the time, not their sum. `--no-optional-locks`: the
        // status does not refresh the index, so it never holds the lock a git of the user's
        // running at the same moment would fail on.
        let status = run(env, &["--no-optional-locks", "status", "--porcelain"]);
        let (status, log) = futures::join!(status, run(env, &["log", "--oneline", "-5"]));
        let changes = status.map(|status| {
            let lines = status.lines().filter(|line| !line.trim().is_empty());
            lines.fold((0, 0), |(modified, untracked), line| match line.starts_with("??") {
                true => (modified, untracked + 1),
                false => (modified + 1, untracked),
            })
        });
        let log = log.unwrap_or_default();
        let recent_commits = log.lines().map(str::trim).filter(|line| !line.is_empty()).map(str::to_owned).collect();
        Some(Self { root, branch, changes, recent_commits })
    }

    /// The snapshot as a prompt section.
    pub fn block(&self) -> String {
        let mut out = format!("<git>\nRepository root: {}\nBranch: {}\n", self.root, self.branch);
        match self.changes {
            Some((0, 0)) => out.push_str("Status: clean\n"),
            Some((modified, untracked)) => out.push_str(&format!("Status: {modified} modified, {untracked} untracked\n")),
            None => {}
        }
        if !self.recent_commits.is_empty() {
            out.push_str("Recent commits:\n");
            for commit in &self.recent_commits {
                out.push_str(commit);
                out.push('\n');
            }
        }
        out.push_str("</git>");
        out
    }
}

/// The work tree's root and its branch, as `git rev-parse --show-toplevel --abbrev-ref HEAD` gives
/// them: the nearest directory from the working one up holding a `.git` (a directory, or the file
/// of a linked work tree or submodule naming its git directory) whose `HEAD` reads as one; the
/// branch `HEAD` names, or `HEAD` when it is detached.
async fn head(env: &dyn ExecutionEnvironment) -> Option<(String, String)> {
    // The working directory and each one above it, nearest first (the root as "").
    for dir in super::docs::walk(Some("/"), &env.working_directory()).into_iter().rev() {
        let dot_git = format!("{dir}/.git");
        let git_dir = match env.stat(&dot_git).await {
            Ok(info) if info.is_dir => Some(dot_git),
            Ok(_) => gitdir_of(env, &dir, &dot_git).await,
            Err(_) => None,
        };
        if let Some(git_dir) = git_dir {
            if let Some(branch) = branch(env, &git_dir).await {
                return Some((if dir.is_empty() { "/".to_owned() } else { dir }, branch));
            }
        }
    }
    None
}

/// The git directory a `.git` file names (`gitdir: PATH`, relative to the file's directory).
async fn gitdir_of(env: &dyn ExecutionEnvironment, dir: &str, file: &str) -> Option<String> {
    let text = String::from_utf8(env.read_bytes(file).await.ok()?).ok()?;
    let path = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    match path.starts_with('/') {
        true => Some(path.to_owned()),
        false => Some(format!("{dir}/{path}")),
    }
}

/// The branch `HEAD` in `git_dir` names; `HEAD` for a detached one; none when there is no
/// `HEAD` to read (not a git directory after all).
async fn branch(env: &dyn ExecutionEnvironment, git_dir: &str) -> Option<String> {
    let head = String::from_utf8(env.read_bytes(&format!("{git_dir}/HEAD")).await.ok()?).ok()?;
    let head = head.trim();
    match head.strip_prefix("ref:") {
        Some(reference) => {
            let reference = reference.trim();
            Some(reference.strip_prefix("refs/heads/").unwrap_or(reference).to_owned()).filter(|name| !name.is_empty())
        }
        None if head.len() >= 40 && head.bytes().all(|b| b.is_ascii_hexdigit()) => Some("HEAD".to_owned()),
        None => None,
    }
}

/// What `git ARGS` printed, when it ran and succeeded.
async fn run(env: &dyn ExecutionEnvironment, args: &[&str]) -> Option<String> {
    let options = ExecOptions { timeout_ms: TIMEOUT_MS, ..ExecOptions::default() };
    match env.exec_program("git", args, &options).await {
        Ok(result) if result.exit_code == 0 && !result.timed_out => Some(result.stdout),
        _ => None,
    }
}
