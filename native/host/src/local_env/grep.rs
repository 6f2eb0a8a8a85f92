//! `grep` on disk with ripgrep's own crates. The files the walker lists are searched on every
//! core, each read whole into a reused buffer; `grep-searcher` with a `grep-regex` matcher finds
//! the matching lines of a whole file in one pass, where trying the regex on each line in turn
//! took most of the time. The answer is the same as that line-by-line search, file by file in
//! path order.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::sinks::UTF8;
use grep_searcher::{Searcher, SearcherBuilder};
use openagent_core::env::{EnvError, GrepMatch, GrepOptions};
use regex::{Regex, RegexBuilder};
use regex_syntax::hir::Look;

use super::search::{compile_glob, files_under, relative_to};

/// What one search looks for, shared by the workers.
struct Query<'a> {
    cwd: &'a Path,
    /// What a match is: the regex on one line without its ending, as in every environment.
    line_regex: Regex,
    /// Finds the lines `line_regex` may match over a whole file, fast; `None` for the patterns
    /// whose meaning would change over a whole file (see [`whole_file_matcher`]).
    matcher: Option<RegexMatcher>,
    limit: usize,
}

/// Lines matching `pattern` as `path:line:text`, at most `options.max_results`, in path order;
/// binary files (a NUL byte or invalid UTF-8) are skipped. A glob filter matches the path
/// relative to `root` or the file name, as `rg --glob`.
pub(super) fn grep(cwd: &Path, root: &Path, pattern: &str, options: &GrepOptions) -> Result<String, EnvError> {
    let line_regex = RegexBuilder::new(pattern)
        .case_insensitive(options.case_insensitive)
        .build()
        .map_err(|err| EnvError::InvalidPattern { pattern: pattern.to_owned(), reason: err.to_string() })?;
    let filter = match options.glob_filter.as_deref() {
        Some(filter) => Some(compile_glob(filter.strip_prefix("./").unwrap_or(filter))?),
        None => None,
    };
    let files = files_under(root, |rel, path| {
        filter.as_ref().is_none_or(|glob| glob.is_match(rel) || path.file_name().is_some_and(|name| glob.is_match(name)))
    })?;
    let matcher = whole_file_matcher(pattern, options.case_insensitive);
    Ok(search_in_order(&files, &Query { cwd, line_regex, matcher, limit: options.max_results }))
}

/// A matcher for whole files that finds the lines the pattern matches alone, or `None` when
/// there is none: a pattern naming `\n` (which no line holds) or anchored to the text's start
/// or end (`\A`, `\z`, `(?-m)$`, which over a whole file would mean the file's).
fn whole_file_matcher(pattern: &str, case_insensitive: bool) -> Option<RegexMatcher> {
    let looks = regex_syntax::parse(pattern).ok()?.properties().look_set();
    if looks.contains(Look::Start) || looks.contains(Look::End) {
        return None;
    }
    RegexMatcherBuilder::new()
        .case_insensitive(case_insensitive)
        // `^` and `$` at every line's start and end, before `\r\n` too, as on a line alone.
        .multi_line(true)
        .crlf(true)
        // Set after `crlf`, so that `\r` may still be matched inside a line; grep-regex refuses
        // a pattern that would then match across lines.
        .line_terminator(Some(b'\n'))
        .build(pattern)
        .ok()
}

/// The matches of one file: how many, and their lines joined by `\n`.
struct FileMatches {
    index: usize,
    count: usize,
    lines: String,
}

/// The first `query.limit` matches of `files` in their order, searched on every core. Workers
/// take files in order and stop taking them once the files searched hold enough matches; as
/// every file taken is searched to the end, the answer is that of a search file by file.
fn search_in_order(files: &[PathBuf], query: &Query) -> String {
    let next = AtomicUsize::new(0);
    let found = AtomicUsize::new(0);
    let hits: Mutex<Vec<FileMatches>> = Mutex::default();
    let work = || {
        let mut worker = Worker::new(query);
        let mut mine = Vec::new();
        while found.load(Ordering::Relaxed) < query.limit {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(path) = files.get(index) else { break };
            if let Some((count, lines)) = worker.search(path) {
                found.fetch_add(count, Ordering::Relaxed);
                mine.push(FileMatches { index, count, lines });
            }
        }
        // A worker that panicked poisons nothing this one needs: its hits are simply missing,
        // and the scope below re-raises its panic.
        hits.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).append(&mut mine);
    };
    let cores = thread::available_parallelism().map_or(1, usize::from);
    thread::scope(|scope| {
        for _ in 1..cores.min(files.len()) {
            scope.spawn(work);
        }
        work();
    });
    let mut hits = hits.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
    hits.sort_unstable_by_key(|hit| hit.index);
    let (mut out, mut left) = (String::new(), query.limit);
    for hit in &hits {
        if left == 0 {
            break;
        }
        let lines = if hit.count > left {
            // The last file needed: its first `left` lines.
            hit.lines.match_indices('\n').nth(left - 1).map_or(&hit.lines[..], |(end, _)| &hit.lines[..end])
        } else {
            &hit.lines
        };
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(lines);
        left -= hit.count.min(left);
    }
    out
}

/// One worker's searcher, regexes and file buffer, reused from file to file. Its own regexes:
/// threads that share one share its scratch space through a lock.
struct Worker<'a> {
    query: &'a Query<'a>,
    searcher: Searcher,
    line_regex: Regex,
    matcher: Option<RegexMatcher>,
    buffer: Vec<u8>,
}

impl<'a> Worker<'a> {
    fn new(query: &'a Query<'a>) -> Self {
        // No BOM sniffing: a UTF-8 BOM stays part of the first line, as when the file is read.
        let searcher = SearcherBuilder::new().line_number(true).bom_sniffing(false).build();
        Self { query, searcher, line_regex: query.line_regex.clone(), matcher: query.matcher.clone(), buffer: Vec::new() }
    }

    /// How many lines of one file match (at most `query.limit`) and those lines, shown as
    /// [`GrepMatch`]es; `None` if none do or the file cannot be read or is binary.
    fn search(&mut self, path: &Path) -> Option<(usize, String)> {
        // Unreadable files are skipped, as `rg` does, rather than failing the whole search.
        let len = File::open(path).and_then(|mut file| read_whole(&mut file, &mut self.buffer)).ok()?;
        let text = super::as_text(&self.buffer[..len])?;
        let mut found = Found { query: self.query, path, shown: None, count: 0, lines: String::new() };
        let line_regex = &self.line_regex;
        match &self.matcher {
            Some(matcher) => {
                let sink = UTF8(|line_number, raw: &str| {
                    let line = strip_line_ending(raw);
                    // The matcher also sees a CRLF line's `\r`, which is no part of the line.
                    let confirmed = memchr::memchr(b'\r', raw.as_bytes()).is_none() || line_regex.is_match(line);
                    Ok(!confirmed || found.push(line_number, line))
                });
                // Searching a slice of valid UTF-8 with this sink cannot fail.
                let _ = self.searcher.search_slice(matcher, text.as_bytes(), sink);
            }
            None => {
                for (number, line) in text.lines().enumerate() {
                    if line_regex.is_match(line) && !found.push(number as u64 + 1, line) {
                        break;
                    }
                }
            }
        }
        (found.count > 0).then_some((found.count, found.lines))
    }
}

/// The matches of the file being searched, as they are found.
struct Found<'a> {
    query: &'a Query<'a>,
    path: &'a Path,
    /// The path as shown, made at the first match.
    shown: Option<String>,
    count: usize,
    lines: String,
}

impl Found<'_> {
    /// Adds a match; returns whether more are wanted.
    fn push(&mut self, line_number: u64, line: &str) -> bool {
        let path = self.shown.get_or_insert_with(|| relative_to(self.query.cwd, self.path));
        if self.count > 0 {
            self.lines.push('\n');
        }
        // Writing to a String cannot fail.
        let _ = write!(self.lines, "{}", GrepMatch { path, line_number, line });
        self.count += 1;
        self.count < self.query.limit
    }
}

/// Reads `file` into the start of `buffer`, growing it as needed, and returns the length read.
/// `read_to_end` would ask the file's size and position first: two more system calls for each
/// of tens of thousands of files.
fn read_whole(file: &mut File, buffer: &mut Vec<u8>) -> io::Result<usize> {
    let mut len = 0;
    loop {
        if len == buffer.len() {
            buffer.resize((buffer.len() * 2).max(64 * 1024), 0);
        }
        match file.read(&mut buffer[len..]) {
            Ok(0) => return Ok(len),
            Ok(read) => len += read,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}

/// A line without its `\n` or `\r\n`, as `str::lines` gives it.
fn strip_line_ending(line: &str) -> &str {
    match line.strip_suffix('\n') {
        Some(line) => line.strip_suffix('\r').unwrap_or(line),
        None => line,
    }
}
