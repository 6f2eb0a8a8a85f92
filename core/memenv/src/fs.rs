//! The in-memory file tree and path resolution.
//!
//! Paths are kept as normalised absolute strings (`/workspace/src/main.rs`): every operation
//! resolves its argument once with [`resolve`] and then walks the tree by components, so `.`,
//! `..` and repeated slashes never reach the tree and nothing can climb above `/`.

use openagent_core::env::EnvError;
use openagent_core::llm::SharedText;
use openagent_core::runtime::EpochMillis;
use openagent_core::sorted_map::SortedMap;

/// When a node last changed: wall-clock time plus a write sequence that breaks ties, so that
/// "newest first" is deterministic even when the clock does not move between writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Stamp {
    pub ms: EpochMillis,
    pub seq: u64,
}

#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub stamp: Stamp,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub(crate) enum Kind {
    File(Content),
    Dir(SortedMap<String, Node>),
}

/// A file's bytes, sorted into text (UTF-8 with no NUL byte) or binary once, when written: every
/// read of a text file (`read_file`, grep, the shell) would otherwise check the whole file again.
#[derive(Debug, Clone)]
pub(crate) enum Content {
    Text(SharedText),
    Binary(Vec<u8>),
}

impl Content {
    pub fn new(bytes: Vec<u8>) -> Self {
        match String::from_utf8(bytes) {
            Ok(text) if memchr::memchr(0, text.as_bytes()).is_none() => Self::Text(text.into()),
            Ok(text) => Self::Binary(text.into_bytes()),
            Err(error) => Self::Binary(error.into_bytes()),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            Self::Text(text) => text.as_bytes(),
            Self::Binary(bytes) => bytes,
        }
    }

    /// The text, or `None` for binary content.
    pub fn text(&self) -> Option<&SharedText> {
        match self {
            Self::Text(text) => Some(text),
            Self::Binary(_) => None,
        }
    }
}

impl Node {
    pub fn is_dir(&self) -> bool {
        matches!(self.kind, Kind::Dir(_))
    }

    /// Size in bytes; 0 for directories.
    pub fn size(&self) -> u64 {
        match &self.kind {
            Kind::File(content) => content.bytes().len() as u64,
            Kind::Dir(_) => 0,
        }
    }

    pub fn children(&self) -> Option<&SortedMap<String, Node>> {
        match &self.kind {
            Kind::Dir(entries) => Some(entries),
            Kind::File(_) => None,
        }
    }

    fn children_mut(&mut self) -> Option<&mut SortedMap<String, Node>> {
        match &mut self.kind {
            Kind::Dir(entries) => Some(entries),
            Kind::File(_) => None,
        }
    }
}

/// The whole filesystem: a root directory and the next write sequence number.
#[derive(Debug, Clone)]
pub(crate) struct Tree {
    root: Node,
    next_seq: u64,
}

impl Tree {
    pub fn new(now: EpochMillis) -> Self {
        Self { root: Node { stamp: Stamp { ms: now, seq: 0 }, kind: Kind::Dir(SortedMap::new()) }, next_seq: 1 }
    }

    /// A fresh stamp for a change made now.
    pub fn stamp(&mut self, now: EpochMillis) -> Stamp {
        let seq = self.next_seq;
        self.next_seq += 1;
        Stamp { ms: now, seq }
    }

    /// The node at an absolute path (normalised, as [`resolve`] makes it).
    pub fn get(&self, path: &str) -> Result<&Node, EnvError> {
        let mut node = &self.root;
        // How much of `path` is walked: the part that names `node`. Kept as a length rather than
        // a path built name by name, which cost every file read an allocation per directory.
        let mut walked = 0;
        for name in path.split('/') {
            if name.is_empty() {
                walked += 1;
                continue;
            }
            let entries =
                node.children().ok_or_else(|| EnvError::NotADirectory(display(path[..walked].trim_end_matches('/'))))?;
            node = entries.get(name).ok_or_else(|| EnvError::NotFound(path.to_owned()))?;
            walked += name.len() + 1;
        }
        Ok(node)
    }

    pub fn exists(&self, path: &str) -> bool {
        self.get(path).is_ok()
    }

    /// The contents of a file.
    pub fn read(&self, path: &str) -> Result<&Content, EnvError> {
        match &self.get(path)?.kind {
            Kind::File(content) => Ok(content),
            Kind::Dir(_) => Err(EnvError::IsADirectory(path.to_owned())),
        }
    }

    /// The entries of the directory that holds `path`, and `path`'s last component. With
    /// `create`, missing parents are made (`mkdir -p`); otherwise they are [`EnvError::NotFound`].
    fn parent_entries(&mut self, path: &str, create: Option<Stamp>) -> Result<(&mut SortedMap<String, Node>, String), EnvError> {
        let names: Vec<&str> = components(path).collect();
        let Some((last, parents)) = names.split_last() else {
            return Err(EnvError::InvalidPath { path: "/".into(), reason: "the root has no parent".into() });
        };
        let mut node = &mut self.root;
        let mut walked = String::new();
        for name in parents {
            let here = display(&walked);
            walked = join(&walked, name);
            let entries = node.children_mut().ok_or(EnvError::NotADirectory(here))?;
            if !entries.contains_key(*name) {
                let stamp = create.ok_or_else(|| EnvError::NotFound(display(&walked)))?;
                entries.insert((*name).to_owned(), Node { stamp, kind: Kind::Dir(SortedMap::new()) });
            }
            node = entries.get_mut(*name).ok_or_else(|| EnvError::NotFound(display(&walked)))?;
        }
        let here = display(&walked);
        let entries = node.children_mut().ok_or(EnvError::NotADirectory(here))?;
        Ok((entries, (*last).to_owned()))
    }

    /// Writes a file whole. `parents` creates missing parent directories.
    pub fn write(&mut self, path: &str, bytes: Vec<u8>, now: EpochMillis, parents: bool) -> Result<(), EnvError> {
        let content = Content::new(bytes);
        let stamp = self.stamp(now);
        let (entries, name) = self.parent_entries(path, parents.then_some(stamp))?;
        match entries.get_mut(&name) {
            Some(Node { kind: Kind::Dir(_), .. }) => Err(EnvError::IsADirectory(path.to_owned())),
            Some(node) => {
                *node = Node { stamp, kind: Kind::File(content) };
                Ok(())
            }
            None => {
                entries.insert(name, Node { stamp, kind: Kind::File(content) });
                self.touch_parent(path, stamp);
                Ok(())
            }
        }
    }

    /// Appends to a file, creating it (but not its parents) when missing.
    pub fn append(&mut self, path: &str, bytes: &[u8], now: EpochMillis) -> Result<(), EnvError> {
        let mut content = match self.read(path) {
            Ok(existing) => existing.bytes().to_vec(),
            Err(EnvError::NotFound(_)) => Vec::new(),
            Err(err) => return Err(err),
        };
        content.extend_from_slice(bytes);
        self.write(path, content, now, false)
    }

    /// Creates a directory. With `parents`, missing parents are made and an existing directory
    /// is fine; without, the parent must exist and the directory must not.
    pub fn mkdir(&mut self, path: &str, now: EpochMillis, parents: bool) -> Result<(), EnvError> {
        if components(path).next().is_none() {
            return if parents { Ok(()) } else { Err(EnvError::Io("/ already exists".into())) };
        }
        let stamp = self.stamp(now);
        let (entries, name) = self.parent_entries(path, parents.then_some(stamp))?;
        match entries.get(&name) {
            Some(node) if node.is_dir() && parents => Ok(()),
            Some(node) if node.is_dir() => Err(EnvError::Io(format!("{path} already exists"))),
            Some(_) => Err(EnvError::NotADirectory(path.to_owned())),
            None => {
                entries.insert(name, Node { stamp, kind: Kind::Dir(SortedMap::new()) });
                self.touch_parent(path, stamp);
                Ok(())
            }
        }
    }

    /// Removes a file or directory; a non-empty directory only when `recursive`.
    pub fn remove(&mut self, path: &str, recursive: bool, now: EpochMillis) -> Result<(), EnvError> {
        let node = self.get(path)?;
        if components(path).next().is_none() {
            return Err(EnvError::InvalidPath { path: "/".into(), reason: "the root cannot be removed".into() });
        }
        if !recursive && node.children().is_some_and(|entries| !entries.is_empty()) {
            return Err(EnvError::Io(format!("{path} is a directory that is not empty; remove it recursively")));
        }
        self.take(path, now).map(drop)
    }

    /// Detaches the node at `path` (for moves), keeping its stamp.
    pub fn take(&mut self, path: &str, now: EpochMillis) -> Result<Node, EnvError> {
        let stamp = self.stamp(now);
        let (entries, name) = self.parent_entries(path, None)?;
        let node = entries.remove(&name).ok_or_else(|| EnvError::NotFound(path.to_owned()))?;
        self.touch_parent(path, stamp);
        Ok(node)
    }

    /// Puts a node at `path` (its parent must exist), replacing what was there.
    pub fn insert(&mut self, path: &str, node: Node, now: EpochMillis) -> Result<(), EnvError> {
        let stamp = self.stamp(now);
        let (entries, name) = self.parent_entries(path, None)?;
        entries.insert(name, node);
        self.touch_parent(path, stamp);
        Ok(())
    }

    /// Marks a node as changed now (`touch`).
    pub fn touch(&mut self, path: &str, now: EpochMillis) -> Result<(), EnvError> {
        let stamp = self.stamp(now);
        self.restamp(path, stamp)
    }

    /// Gives a node a stamp (`cp -p` keeps the source's).
    pub fn restamp(&mut self, path: &str, stamp: Stamp) -> Result<(), EnvError> {
        let (entries, name) = self.parent_entries(path, None)?;
        let node = entries.get_mut(&name).ok_or_else(|| EnvError::NotFound(path.to_owned()))?;
        node.stamp = stamp;
        Ok(())
    }

    /// A directory's modification time changes when an entry is added or removed, as on disk.
    fn touch_parent(&mut self, path: &str, stamp: Stamp) {
        let mut node = &mut self.root;
        for name in components(parent(path)) {
            match node.children_mut().and_then(|entries| entries.get_mut(name)) {
                Some(child) => node = child,
                None => return,
            }
        }
        node.stamp = stamp;
    }

    /// Every node below `path`, depth first in name order, as (path relative to `path`, node,
    /// depth). Depth 1 is a direct child; `max_depth` bounds the walk.
    pub fn walk(&self, path: &str, max_depth: usize) -> Result<Vec<(String, &Node, usize)>, EnvError> {
        fn visit<'a>(node: &'a Node, prefix: &str, depth: usize, max: usize, out: &mut Vec<(String, &'a Node, usize)>) {
            let Some(entries) = node.children() else { return };
            if depth > max {
                return;
            }
            for (name, child) in entries.iter() {
                let rel = join(prefix, name);
                out.push((rel.clone(), child, depth));
                visit(child, &rel, depth + 1, max, out);
            }
        }
        let mut out = Vec::new();
        visit(self.get(path)?, "", 1, max_depth, &mut out);
        Ok(out)
    }
}

/// How deep a path may go; Linux's PATH_MAX allows about this many short names.
const MAX_DEPTH: usize = 1024;

/// Resolves `path` against the absolute directory `cwd` into a normalised absolute path; `..`
/// above `/` is refused. Public so that other environments resolve paths exactly as this one does.
pub fn resolve(cwd: &str, path: &str) -> Result<String, EnvError> {
    let invalid = |reason: &str| EnvError::InvalidPath { path: path.to_owned(), reason: reason.to_owned() };
    if path.is_empty() {
        return Err(invalid("the path is empty; use . for the working directory"));
    }
    if path.contains('\0') {
        return Err(invalid("the path contains a NUL character"));
    }
    // Built in one string, `/name` by `/name` (the root is the empty string until the end).
    let mut resolved = String::with_capacity(cwd.len() + path.len() + 1);
    let mut depth = 0;
    let start = if path.starts_with('/') { "" } else { cwd };
    for name in start.split('/').chain(path.split('/')) {
        match name {
            "" | "." => {}
            ".." => {
                let parent = resolved.rfind('/').ok_or_else(|| invalid("it escapes the environment root"))?;
                resolved.truncate(parent);
                depth -= 1;
            }
            _ => {
                resolved.push('/');
                resolved.push_str(name);
                depth += 1;
            }
        }
    }
    // The tree is walked (and dropped) recursively; a bound keeps that off the edge of the stack.
    if depth > MAX_DEPTH {
        return Err(invalid(&format!("it is nested more than {MAX_DEPTH} directories deep")));
    }
    if resolved.is_empty() {
        resolved.push('/');
    }
    Ok(resolved)
}

/// How a path is shown to the model: relative to `cwd` when under it, else absolute.
pub(crate) fn relative_to(cwd: &str, path: &str) -> String {
    if path == cwd {
        return ".".into();
    }
    let prefix = if cwd == "/" { "/".to_owned() } else { format!("{cwd}/") };
    path.strip_prefix(&prefix).map_or_else(|| path.to_owned(), str::to_owned)
}

/// The names along an absolute path.
pub(crate) fn components(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|name| !name.is_empty())
}

/// `dir/name`, where an empty `dir` gives just `name`.
pub(crate) fn join(dir: &str, name: &str) -> String {
    match dir {
        "" => name.to_owned(),
        "/" => format!("/{name}"),
        _ => format!("{dir}/{name}"),
    }
}

/// The directory holding an absolute path (`/` for `/` itself).
pub(crate) fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

/// A path for a message: `walked` with the root shown as `/`.
fn display(walked: &str) -> String {
    format!("/{}", walked.trim_start_matches('/'))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn resolves_relative_and_absolute_paths() {
        assert_eq!(resolve("/workspace", "src/main.rs").unwrap(), "/workspace/src/main.rs");
        assert_eq!(resolve("/workspace", "./a//b/../c").unwrap(), "/workspace/a/c");
        assert_eq!(resolve("/workspace", "/etc/./x").unwrap(), "/etc/x");
        assert_eq!(resolve("/workspace", "..").unwrap(), "/");
        assert_eq!(resolve("/", ".").unwrap(), "/");
        assert_eq!(resolve("/workspace", "a/").unwrap(), "/workspace/a");
    }

    #[test]
    fn refuses_paths_that_escape_the_root() {
        for path in ["../..", "/..", "/../etc", "a/../../../x", "../../../../etc/passwd"] {
            let err = resolve("/workspace", path).unwrap_err();
            assert!(
                matches!(&err, EnvError::InvalidPath { reason, .. } if reason.contains("escapes the environment root")),
                "{path}: {err}"
            );
        }
        assert!(matches!(resolve("/w", ""), Err(EnvError::InvalidPath { .. })));
        assert!(matches!(resolve("/w", "a\0b"), Err(EnvError::InvalidPath { .. })));
        assert!(resolve("/", &"d/".repeat(1024)).is_ok());
        assert!(resolve("/", &"d/".repeat(1025)).unwrap_err().to_string().contains("more than 1024 directories deep"));
    }

    #[test]
    fn shows_paths_relative_to_the_working_directory() {
        assert_eq!(relative_to("/workspace", "/workspace/a/b"), "a/b");
        assert_eq!(relative_to("/workspace", "/workspace"), ".");
        assert_eq!(relative_to("/workspace", "/workspace2/x"), "/workspace2/x");
        assert_eq!(relative_to("/", "/a"), "a");
        assert_eq!(parent("/a/b"), "/a");
        assert_eq!(parent("/a"), "/");
    }

    #[test]
    fn writes_create_parents_and_stamp_in_order() {
        let mut tree = Tree::new(5);
        tree.write("/a/b/c.txt", b"x".to_vec(), 10, true).unwrap();
        tree.write("/a/d.txt", b"y".to_vec(), 10, true).unwrap();
        let (c, d) = (tree.get("/a/b/c.txt").unwrap().stamp, tree.get("/a/d.txt").unwrap().stamp);
        assert!(d > c && d.ms == c.ms);
        assert_eq!(tree.get("/a").unwrap().stamp, d, "adding an entry changes the directory");
        assert!(matches!(tree.write("/a/b/c.txt/x", vec![], 10, true), Err(EnvError::NotADirectory(p)) if p == "/a/b/c.txt"));
        assert!(matches!(tree.write("/a/b", vec![], 10, true), Err(EnvError::IsADirectory(_))));
        assert!(matches!(tree.write("/new/x", vec![], 10, false), Err(EnvError::NotFound(p)) if p == "/new"));
    }

    #[test]
    fn removes_moves_and_walks() {
        let mut tree = Tree::new(0);
        tree.write("/d/x", b"1".to_vec(), 1, true).unwrap();
        tree.mkdir("/d/e/f", 1, true).unwrap();
        let names: Vec<String> = tree.walk("/", usize::MAX).unwrap().into_iter().map(|(rel, _, _)| rel).collect();
        assert_eq!(names, ["d", "d/e", "d/e/f", "d/x"]);
        assert_eq!(tree.walk("/", 1).unwrap().len(), 1);
        assert!(tree.remove("/d", false, 2).is_err());
        let node = tree.take("/d/x", 2).unwrap();
        tree.insert("/d/e/y", node, 2).unwrap();
        assert_eq!(tree.read("/d/e/y").unwrap().bytes(), b"1");
        tree.remove("/d", true, 3).unwrap();
        assert!(!tree.exists("/d"));
        assert!(tree.remove("/", true, 3).is_err());
        assert!(matches!(tree.mkdir("/z", 1, false), Ok(())));
        assert!(tree.mkdir("/z", 1, false).is_err());
    }

    #[test]
    fn detects_binary_content() {
        assert_eq!(Content::new(b"plain\n".to_vec()).text().map(|text| text.as_str()), Some("plain\n"));
        for binary in [&b"nul\0byte"[..], &[0xff, 0xfe], &[b'a'; 100].iter().chain(&[0]).copied().collect::<Vec<u8>>()] {
            let content = Content::new(binary.to_vec());
            assert_eq!((content.text().map(|text| text.as_str()), content.bytes()), (None, binary));
        }
    }
}
