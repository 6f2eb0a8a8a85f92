//! The git snapshot of spec 6.4, taken through the environment's shell: the branch, how many files
//! are modified and untracked, and the latest commits. It is orientation; the model runs git itself
//! for more. Without git (not a repository, or an environment without the command, such as the
//! built-in shell) there is no snapshot and the prompt says nothing about git.

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
        // One call gives the root and the branch, and fails outside a repository.
        let head = run(env, "git rev-parse --show-toplevel --abbrev-ref HEAD").await?;
        let mut lines = head.lines().map(str::trim);
        let (root, branch) = (lines.next().filter(|root| !root.is_empty())?, lines.next()?);
        let status = run(env, "git status --porcelain").await;
        let log = run(env, "git log --oneline -5").await;
        let changes = status.map(|status| {
            let lines = status.lines().filter(|line| !line.trim().is_empty());
            lines.fold((0, 0), |(modified, untracked), line| match line.starts_with("??") {
                true => (modified, untracked + 1),
                false => (modified + 1, untracked),
            })
        });
        let log = log.unwrap_or_default();
        let recent_commits = log.lines().map(str::trim).filter(|line| !line.is_empty()).map(str::to_owned).collect();
        Some(Self { root: root.to_owned(), branch: branch.to_owned(), changes, recent_commits })
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

/// What a command printed, when it ran and succeeded.
async fn run(env: &dyn ExecutionEnvironment, command: &str) -> Option<String> {
    let options = ExecOptions { timeout_ms: TIMEOUT_MS, ..ExecOptions::default() };
    match env.exec_command(command, &options).await {
        Ok(result) if result.exit_code == 0 && !result.timed_out => Some(result.stdout),
        _ => None,
    }
}
