//! Word expansion: parameters, command substitution, field splitting and pathname expansion.

use openagent_core::glob::FileGlob;

use super::parse::{Part, Word};
use super::{Output, Shell};
use crate::fs::{join, parent};

/// One field being built: its text, and the same text as a glob pattern in which only unquoted
/// `*` and `?` are live.
#[derive(Default)]
struct Field {
    text: String,
    pattern: String,
    glob: bool,
}

#[derive(Default)]
struct Fields {
    done: Vec<Field>,
    current: Field,
    /// A quoted empty string still makes a field; an unquoted empty expansion does not.
    started: bool,
}

impl Fields {
    fn quoted(&mut self, text: &str) {
        self.started = true;
        for c in text.chars() {
            self.current.text.push(c);
            escape_into(&mut self.current.pattern, c);
        }
    }

    fn unquoted(&mut self, c: char) {
        self.started = true;
        self.current.text.push(c);
        if matches!(c, '*' | '?') {
            self.current.pattern.push(c);
            self.current.glob = true;
        } else {
            escape_into(&mut self.current.pattern, c);
        }
    }

    /// An unquoted expansion is split into fields at blanks.
    fn split(&mut self, text: &str) {
        for c in text.chars() {
            if matches!(c, ' ' | '\t' | '\n') {
                self.end_field();
            } else {
                self.unquoted(c);
            }
        }
    }

    fn end_field(&mut self) {
        if std::mem::take(&mut self.started) {
            self.done.push(std::mem::take(&mut self.current));
        }
    }
}

fn escape_into(pattern: &mut String, c: char) {
    if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '!' | '\\') {
        pattern.push('\\');
    }
    pattern.push(c);
}

fn has_wildcard(segment: &str) -> bool {
    let mut escaped = false;
    for c in segment.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '*' | '?' => return true,
            _ => {}
        }
    }
    false
}

fn unescape_glob(segment: &str) -> String {
    let mut text = String::new();
    let mut chars = segment.chars();
    while let Some(c) = chars.next() {
        text.extend(if c == '\\' { chars.next() } else { Some(c) });
    }
    text
}

impl Shell {
    /// Expands a command word into fields.
    pub(super) async fn expand(&mut self, word: &Word, output: &mut Output) -> Vec<String> {
        let mut fields = Fields::default();
        for part in &word.0 {
            let (value, quoted) = match part {
                Part::Text { text, quoted: true } => {
                    fields.quoted(text);
                    continue;
                }
                Part::Text { text, quoted: false } => {
                    text.chars().for_each(|c| fields.unquoted(c));
                    continue;
                }
                Part::Param { name, quoted } => (self.param(name), *quoted),
                Part::Substitution { list, quoted } => (self.substitute(list, output).await, *quoted),
            };
            if quoted {
                fields.quoted(&value);
            } else {
                fields.split(&value);
            }
        }
        fields.end_field();
        let mut expanded = Vec::new();
        for field in fields.done {
            let matches = if field.glob { self.pathnames(&field.pattern) } else { Vec::new() };
            // A pattern that matches nothing stays as written, as in sh.
            if matches.is_empty() {
                expanded.push(field.text);
            } else {
                expanded.extend(matches);
            }
        }
        expanded
    }

    /// Expands a word into one string, without splitting or pathname expansion (assignments,
    /// here-documents).
    pub(super) async fn expand_joined(&mut self, word: &Word, output: &mut Output) -> String {
        let mut text = String::new();
        for part in &word.0 {
            match part {
                Part::Text { text: piece, .. } => text.push_str(piece),
                Part::Param { name, .. } => text.push_str(&self.param(name)),
                Part::Substitution { list, .. } => text.push_str(&self.substitute(list, output).await),
            }
        }
        text
    }

    fn param(&self, name: &str) -> String {
        match name {
            "?" => self.status.to_string(),
            "$" => "1".into(),
            "#" => "0".into(),
            "0" => "sh".into(),
            _ => self.var(name),
        }
    }

    /// The paths matching a pattern, in the form it was written (relative or absolute), sorted.
    /// Wildcards do not match a leading dot, and a trailing `/` keeps only directories.
    fn pathnames(&self, pattern: &str) -> Vec<String> {
        let tree = self.env.inner.tree.borrow();
        let (mut found, rest) = match pattern.strip_prefix('/') {
            Some(rest) => (vec![("/".to_owned(), "/".to_owned())], rest),
            None => (vec![(String::new(), self.cwd.clone())], pattern),
        };
        let dirs_only = rest.ends_with('/');
        let segments: Vec<&str> = rest.split('/').filter(|segment| !segment.is_empty()).collect();
        for (i, segment) in segments.iter().enumerate() {
            let want_dir = dirs_only || i + 1 < segments.len();
            let glob = FileGlob::new(segment);
            let mut next = Vec::new();
            for (shown, abs) in &found {
                let Some(entries) = tree.get(abs).ok().and_then(|dir| dir.children()) else { continue };
                if !has_wildcard(segment) {
                    let name = unescape_glob(segment);
                    let path = match name.as_str() {
                        "." => abs.clone(),
                        ".." => parent(abs).to_owned(),
                        _ if entries.contains_key(&name) => join(abs, &name),
                        _ => continue,
                    };
                    next.push((join(shown, &name), path));
                    continue;
                }
                for (name, node) in entries.iter() {
                    let hidden = name.starts_with('.') && !segment.starts_with('.');
                    if !hidden && (node.is_dir() || !want_dir) && glob.is_match(name) {
                        next.push((join(shown, name), join(abs, name)));
                    }
                }
            }
            found = next;
        }
        found.into_iter().map(|(shown, _)| if dirs_only { format!("{shown}/") } else { shown }).collect()
    }
}
