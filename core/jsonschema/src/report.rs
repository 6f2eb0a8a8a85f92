//! Where violations go, and where in the instance they are. Both are built so that nothing is
//! allocated until a violation is actually reported.

use super::uri::escape_token;
use super::ValidationError;

/// Where the instance being checked sits, as a chain on the stack; rendered only for messages.
#[derive(Clone, Copy)]
pub(super) enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    /// The JSON Pointer of this location, `""` for the root.
    pub fn pointer(&self) -> String {
        match self {
            Path::Root => String::new(),
            Path::Key(parent, key) => format!("{}/{}", parent.pointer(), escape_token(key)),
            Path::Index(parent, index) => format!("{}/{index}", parent.pointer()),
        }
    }
}

/// Where violations go: a list when collecting, nowhere when only checking (for `is_valid`, and
/// for subschemas whose failure is not itself a violation, like the branches of `anyOf`).
pub(super) struct Sink<'a>(Option<&'a mut Vec<ValidationError>>);

impl<'a> Sink<'a> {
    pub fn collect(errors: &'a mut Vec<ValidationError>) -> Self {
        Self(Some(errors))
    }

    pub fn check() -> Self {
        Self(None)
    }

    pub fn collecting(&self) -> bool {
        self.0.is_some()
    }

    pub fn reborrow(&mut self) -> Sink<'_> {
        Sink(self.0.as_deref_mut())
    }

    /// Records a violation (building its message only when collecting) and returns `false`.
    pub fn fail(&mut self, path: &Path<'_>, message: impl FnOnce() -> String) -> bool {
        if let Some(errors) = &mut self.0 {
            errors.push(ValidationError { instance_path: path.pointer(), message: message() });
        }
        false
    }

    /// Runs `check` on each entry and tells whether all passed. A collecting sink sees them all;
    /// a checking one stops at the first failure, as the answer is known.
    pub fn every<T>(&mut self, entries: impl IntoIterator<Item = T>, mut check: impl FnMut(&mut Sink<'_>, T) -> bool) -> bool {
        let mut valid = true;
        for entry in entries {
            if !check(self, entry) {
                valid = false;
                if !self.collecting() {
                    return false;
                }
            }
        }
        valid
    }
}

/// `1 item`, `2 items`.
pub(super) fn plural(count: u64, one: &str, many: &str) -> String {
    match count {
        1 => format!("1 {one}"),
        _ => format!("{count} {many}"),
    }
}
