//! The layered system prompt of spec 6.1, shared by the profiles of this module: the profile's
//! base instructions, the environment block, the git snapshot, the project instruction files, and
//! the user's instructions last, with the highest priority. Tool descriptions travel with the
//! tool definitions of each request; the base instructions say how to use those tools.

use super::docs::project_docs;
use super::git::GitSnapshot;
use super::profile::environment_block;
use crate::profiles::PromptContext;

/// What a profile brings to its prompt.
pub(crate) struct Layers {
    /// The family's own instructions (`base/*.md`).
    pub base: &'static str,
    /// The instruction files it reads in each directory, `AGENTS.md` first (spec 6.5).
    pub doc_files: &'static [&'static str],
}

/// Said once for every profile, so that each base text need not.
const PRECEDENCE: &str = "The sections after these instructions describe your environment and project. Project \
    instruction files refine these instructions, a file deeper in the directory tree overrides one above it, and \
    the user's instructions, which come last, override everything else.";

pub(crate) async fn build(ctx: &PromptContext<'_>, model: &str, layers: &Layers) -> String {
    let git = GitSnapshot::take(ctx.env).await;
    let docs = project_docs(ctx.env, git.as_ref().map(|git| git.root.as_str()), layers.doc_files).await;
    let user = ctx.user_instructions.map(str::trim).filter(|user| !user.is_empty());
    // The order of precedence matters only when there are instructions to weigh; without them it
    // is tokens every request pays for.
    let base = match docs.is_empty() && user.is_none() {
        true => layers.base.trim_end().to_owned(),
        false => format!("{}\n\n{PRECEDENCE}", layers.base.trim_end()),
    };
    let mut parts = vec![base, environment_block(ctx, model)];
    parts.extend(git.as_ref().map(GitSnapshot::block));
    if !docs.is_empty() {
        parts.push(docs);
    }
    if let Some(user) = user {
        parts.push(format!("<user_instructions>\n{user}\n</user_instructions>"));
    }
    parts.join("\n\n")
}
