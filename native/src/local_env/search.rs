//! `grep` and `glob` on disk, walking with ripgrep's `ignore` crate so that `.gitignore`d files
//! (build output, dependencies) stay out of results, as they do with `rg`. Matching uses `regex`
//! and `globset`; `.git` itself is skipped but other hidden files are searched.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkBuilder;
use openagent_core::env::{push_grep_matches, EnvError, GrepOptions};
use regex::RegexBuilder;

use super::{as_text, io_error, show};

fn compile_glob(pattern: &str) -> Result<GlobMatcher, EnvError> {
    GlobBuilder::new(pattern)
        // `*` stays within one directory, as in the in-memory environment and in shells.
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|err| EnvError::InvalidPattern { pattern: pattern.to_owned(), reason: err.to_string() })
}

/// Every file under `root` (or `root` itself if it is a file) in name order, as (path relative
/// to `root`, absolute path), leaving out what `.gitignore` and `.ignore` files exclude.
fn files_under(root: &Path) -> Result<Vec<(String, PathBuf)>, EnvError> {
    let meta = fs::metadata(root).map_err(|err| io_error(err, &show(root)))?;
    if !meta.is_dir() {
        let name = root.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
        return Ok(vec![(name, root.to_path_buf())]);
    }
    let walker = WalkBuilder::new(root)
        .hidden(false)
        // Honour .gitignore in directories that are not (yet) git repositories too.
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| entry.file_name() != ".git")
        .build();
    let mut files = Vec::new();
    // Unreadable entries are skipped, as `rg` does, rather than failing the whole search.
    for entry in walker.flatten() {
        if entry.file_type().is_some_and(|kind| kind.is_file()) {
            let rel = entry.path().strip_prefix(root).map(show).unwrap_or_default();
            files.push((rel, entry.into_path()));
        }
    }
    Ok(files)
}

/// How a path is shown: relative to the working directory when under it, else absolute.
fn relative_to(cwd: &Path, path: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
        Ok(rel) => show(rel),
        Err(_) => show(path),
    }
}

/// Lines matching `pattern` as `path:line:text`, at most `options.max_results`; binary files are
/// skipped. A glob filter matches the path relative to `root` or the file name, as `rg --glob`.
pub(super) fn grep(cwd: &Path, root: &Path, pattern: &str, options: &GrepOptions) -> Result<String, EnvError> {
    let regex = RegexBuilder::new(pattern)
        .case_insensitive(options.case_insensitive)
        .build()
        .map_err(|err| EnvError::InvalidPattern { pattern: pattern.to_owned(), reason: err.to_string() })?;
    let filter = match options.glob_filter.as_deref() {
        Some(filter) => Some(compile_glob(filter.strip_prefix("./").unwrap_or(filter))?),
        None => None,
    };
    let mut found = Vec::new();
    for (rel, abs) in files_under(root)? {
        let name = abs.file_name().map(Path::new).unwrap_or(Path::new(""));
        if filter.as_ref().is_some_and(|glob| !glob.is_match(&rel) && !glob.is_match(name)) {
            continue;
        }
        let Some(text) = fs::read(&abs).ok().and_then(as_text) else { continue };
        if !push_grep_matches(&mut found, &relative_to(cwd, &abs), &text, |line| regex.is_match(line), options.max_results) {
            break;
        }
    }
    Ok(found.join("\n"))
}

/// Files under the directory `base` whose path relative to it (or absolute path, for an
/// absolute pattern) matches `pattern`, newest first, ties by path.
pub(super) fn glob(cwd: &Path, base: &Path, pattern: &str) -> Result<Vec<String>, EnvError> {
    if pattern.is_empty() {
        return Err(EnvError::InvalidPattern { pattern: String::new(), reason: "the pattern is empty".into() });
    }
    if !fs::metadata(base).map_err(|err| io_error(err, &show(base)))?.is_dir() {
        return Err(EnvError::NotADirectory(show(base)));
    }
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    let matcher = compile_glob(pattern)?;
    let absolute = pattern.starts_with('/');
    let mut hits: Vec<(SystemTime, PathBuf)> = files_under(base)?
        .into_iter()
        .filter(|(rel, abs)| if absolute { matcher.is_match(abs) } else { matcher.is_match(rel) })
        .map(|(_, abs)| (fs::metadata(&abs).and_then(|meta| meta.modified()).unwrap_or(SystemTime::UNIX_EPOCH), abs))
        .collect();
    hits.sort_by(|(a, a_path), (b, b_path)| b.cmp(a).then_with(|| a_path.cmp(b_path)));
    Ok(hits.into_iter().map(|(_, abs)| relative_to(cwd, &abs)).collect())
}
