//! Every problem of a config file at once, not just the first. serde stops at the first wrong
//! value, so the file's tree is read again with each wrong part taken out, until it reads whole
//! or enough problems are found; a problem's line is then found in the text by walking to
//! its path there (the format's reader says where it stopped). What the tree without its wrong
//! parts gives is checked further by the caller, whose problems about a part taken out are
//! dropped (they would only repeat it) and whose list indices are mapped back to the file's.

use std::fmt::{self, Write};

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// The most problems a file's report lists; the rest are counted.
pub const MAX_SHOWN: usize = 20;

/// How many problems are looked for, each costing one read of the tree (and one of the text for
/// its line): fewer in a larger file, down to one more than a report shows, so that a file near
/// the size cap with its problems at the end still takes seconds, not minutes.
const MAX_FOUND: usize = 100;
const FOUND_BUDGET_BYTES: usize = 64 << 20;

/// One step of a path: a key, or an index in a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// Where a value is: `permissions.rules[0].decision`.
pub type Path = Vec<Step>;

/// `permissions.rules[0].decision`, as serde_path_to_error writes it; empty for the whole file.
pub fn show(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) if out.is_empty() => out.push_str(key),
            Step::Key(key) => {
                let _ = write!(out, ".{key}");
            }
            Step::Index(index) => {
                let _ = write!(out, "[{index}]");
            }
        }
    }
    out
}

/// The path `show` wrote (keys with a `.` or `[` in them are not told apart).
fn parse(shown: &str) -> Path {
    let mut path = Path::new();
    for part in shown.split('.').filter(|part| !part.is_empty()) {
        let (key, indices) = part.split_once('[').map_or((part, ""), |(key, rest)| (key, rest));
        if !key.is_empty() {
            path.push(Step::Key(key.to_owned()));
        }
        path.extend(indices.split('[').filter_map(|index| index.trim_end_matches(']').parse().ok()).map(Step::Index));
    }
    path
}

/// A problem serde found: where (in the file's terms) and its message.
#[derive(Debug)]
pub struct Found {
    pub path: Path,
    pub message: String,
}

/// What reading the tree again and again gave.
pub struct Read<T> {
    /// The value the tree gave without its wrong parts; `None` when the file as a whole is wrong.
    pub value: Option<T>,
    pub found: Vec<Found>,
    /// The parts taken out, in the file's terms.
    taken: Vec<Path>,
    /// How many problems were looked for.
    most: usize,
}

impl<T: DeserializeOwned> Read<T> {
    /// Reads `tree` (of a text of `size` bytes) as a `T`, taking out each part serde refuses,
    /// and noting why.
    pub fn from(mut tree: Value, size: usize) -> Self {
        let mut read = Read { value: None, found: Vec::new(), taken: Vec::new(), most: 0 };
        read.most = (FOUND_BUDGET_BYTES / size.max(1)).clamp(MAX_SHOWN + 1, MAX_FOUND);
        // Each read fixes a scalar, takes a part out or finds a problem; scalars are bounded too.
        for _ in 0..read.most * 10 {
            if read.found.len() >= read.most {
                break;
            }
            let error = match serde_path_to_error::deserialize::<_, T>(&tree) {
                Ok(value) => {
                    read.value = Some(value);
                    break;
                }
                Err(error) => error,
            };
            let mut path = Path::new();
            for segment in error.path().iter() {
                match segment {
                    serde_path_to_error::Segment::Map { key } => path.push(Step::Key(key.clone())),
                    serde_path_to_error::Segment::Seq { index } => path.push(Step::Index(*index)),
                    _ => break,
                }
            }
            let message = error.into_inner().to_string();
            // YAML's reader takes any scalar where a string is wanted (`3`, `true`, an empty
            // value); the tree's does not, so it is given the scalar as the text reader would.
            if message.ends_with("expected a string") {
                if let Some(node) = node_mut(&mut tree, &path) {
                    let text = match node {
                        Value::Null => Some(String::new()),
                        Value::Bool(value) => Some(value.to_string()),
                        Value::Number(value) => Some(value.to_string()),
                        _ => None,
                    };
                    if let Some(text) = text {
                        *node = Value::String(text);
                        continue;
                    }
                }
            }
            let missing = message.strip_prefix("missing field `").and_then(|rest| rest.split('`').next()).map(str::to_owned);
            let original = read.original(&path);
            // A field missing from a part something was taken out of (its wrong value, or a
            // misspelt key that was most likely it) is no problem of its own; the part goes too.
            let caused = missing.is_some()
                && read.taken.iter().any(|taken| taken.len() == original.len() + 1 && taken.starts_with(&original));
            if !caused {
                if read.found.iter().any(|found| found.path == original && found.message == message) {
                    break;
                }
                read.found.push(Found { path: original.clone(), message });
            }
            match (&missing, path.is_empty()) {
                // The top level cannot be taken out: a placeholder stands in for its missing key.
                (Some(field), true) => {
                    if let Value::Object(map) = &mut tree {
                        map.insert(field.clone(), Value::String(String::new()));
                    }
                    read.taken.push(vec![Step::Key(field.clone())]);
                }
                (_, true) => break,
                (_, false) => {
                    take_out(&mut tree, &path);
                    read.taken.push(original);
                }
            }
        }
        read
    }

    /// What ends a report that shows [`MAX_SHOWN`] of its problems and leaves `hidden` out.
    pub fn and_more(&self, hidden: usize) -> Option<String> {
        // Stopped looking: there may be more than counted.
        let counted = if self.found.len() < self.most { "" } else { "at least " };
        let problems = if hidden == 1 { "problem" } else { "problems" };
        (hidden > 0).then(|| format!("and {counted}{hidden} more {problems}: fix these to see the rest"))
    }

    /// `field` (a further check's, on the value without the wrong parts) in the file's terms;
    /// `None` when it lies in a part taken out or holds one (the check then saw the file
    /// without it, and would only repeat the problem).
    pub fn field(&self, field: &str) -> Option<String> {
        let path = self.original(&parse(field));
        let related = |taken: &Path| path.starts_with(taken) || taken.starts_with(&path);
        (!self.taken.iter().any(related)).then(|| show(&path))
    }

    /// `path` in the tree with parts taken out, as a path in the file: each index moves past
    /// the items taken out before it.
    fn original(&self, path: &[Step]) -> Path {
        let mut out = Path::new();
        for step in path {
            let step = match step {
                Step::Index(index) => {
                    let mut taken: Vec<usize> = (self.taken.iter())
                        .filter(|taken| taken.len() == out.len() + 1 && taken[..out.len()] == out[..])
                        .filter_map(|taken| match taken.last() {
                            Some(Step::Index(index)) => Some(*index),
                            _ => None,
                        })
                        .collect();
                    taken.sort_unstable();
                    Step::Index(taken.into_iter().fold(*index, |at, gone| if gone <= at { at + 1 } else { at }))
                }
                key => key.clone(),
            };
            out.push(step);
        }
        out
    }
}

/// The value at `path` in `tree`.
fn node_mut<'a>(tree: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    let mut node = tree;
    for step in path {
        node = match step {
            Step::Key(key) => node.get_mut(key.as_str())?,
            Step::Index(index) => node.get_mut(*index)?,
        };
    }
    Some(node)
}

/// Removes the value at `path` (not empty) from `tree`.
fn take_out(tree: &mut Value, path: &[Step]) {
    let Some((last, parent)) = path.split_last() else { return };
    match (node_mut(tree, parent), last) {
        (Some(Value::Object(map)), Step::Key(key)) => {
            map.remove(key);
        }
        (Some(Value::Array(items)), Step::Index(index)) if *index < items.len() => {
            items.remove(*index);
        }
        _ => {}
    }
}

/// Walks the format's `deserializer` down `path` and stops there with an error, whose position
/// (the format's, for the caller to read) is the path's key, or its value when it ends in an
/// index. `Ok` when the text has no such path.
pub fn stop_at<'de, D: Deserializer<'de>>(deserializer: D, path: &[Step]) -> Result<(), D::Error> {
    Walk(path).deserialize(deserializer)
}

struct Walk<'a>(&'a [Step]);

/// The error a walk stops with.
fn here<E: de::Error>() -> E {
    E::custom("here")
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    // Through the deserializer even at the path's end: its error then carries the position.
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Walk<'_> {
    /// At the path's end, the walk stops; a scalar before it holds no more path.
    fn scalar<E: de::Error>(&self) -> Result<(), E> {
        match self.0.is_empty() {
            true => Err(here()),
            false => Ok(()),
        }
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the path")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.scalar()?;
        let Some((Step::Key(wanted), rest)) = self.0.split_first() else { return Ok(()) };
        while let Some(key) = map.next_key_seed(Key { wanted, last: rest.is_empty() })? {
            match key {
                true => return map.next_value_seed(Walk(rest)),
                false => map.next_value::<IgnoredAny>().map(drop)?,
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.scalar()?;
        let Some((Step::Index(wanted), rest)) = self.0.split_first() else { return Ok(()) };
        for _ in 0..*wanted {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
        }
        seq.next_element_seed(Walk(rest)).map(drop)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.scalar()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.scalar()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.scalar()
    }
}

/// A map's key: whether it is the one wanted; when it ends the path, the walk stops on it.
struct Key<'a> {
    wanted: &'a str,
    last: bool,
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<bool, E> {
        match key == self.wanted {
            true if self.last => Err(here()),
            found => Ok(found),
        }
    }

    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_back_as_written() {
        for shown in ["", "id", "permissions.rules[2].decision", "hooks.pre_tool_use[0]", "a[1][2].b"] {
            assert_eq!(show(&parse(shown)), shown);
        }
    }

    #[test]
    fn a_walk_stops_on_the_key_or_item_it_names() {
        let text = "{\"a\": 1,\n \"b\": [\n  {\"c\": 2},\n  {\"d\": 3}\n ]}";
        let line = |path: &str| stop_at(&mut serde_json::Deserializer::from_str(text), &parse(path)).err().map(|e| e.line());
        assert_eq!(
            [line("a"), line("b"), line("b[1]"), line("b[1].d"), line("b[5]"), line("z")],
            [Some(1), Some(2), Some(4), Some(4), None, None]
        );
    }
}
