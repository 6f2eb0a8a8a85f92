//! Builtins over files and directories: cat, ls, mkdir, rm, rmdir, mv, cp, touch, tee.

use std::cmp::Ordering;

use crate::fs::{join, parent, Kind, Node, Stamp, Tree};
use openagent_core::env::EnvError;
use openagent_core::llm::sort::sorted_order;
use openagent_core::runtime::{format_rfc3339, EpochMillis};

use super::super::{describe, Files};
use super::{lines, Call, Flags};

/// An operand's absolute path, or the status after reporting why it has none.
fn path_of(c: &mut Call, operand: &str, action: &str) -> Result<String, i32> {
    c.shell.resolve(operand).map_err(|err| c.fail(format!("{action} '{operand}': {}", describe(&err))))
}

pub(super) fn cat(c: &mut Call) -> i32 {
    let Some(flags) = c.flags(c.args, "n", "", &[("number", 'n')]) else { return 1 };
    let (inputs, failed) = c.inputs(&flags.operands);
    let mut number = 0;
    for (_, bytes) in inputs {
        if !flags.has('n') {
            c.out.out(bytes);
            continue;
        }
        let mut numbered = Vec::new();
        for line in lines(&bytes) {
            number += 1;
            numbered.extend(format!("{number:>6}\t").bytes());
            numbered.extend_from_slice(line);
        }
        c.out.out(numbered);
    }
    i32::from(failed)
}

pub(super) fn tee(c: &mut Call) -> i32 {
    let Some(flags) = c.flags(c.args, "a", "", &[("append", 'a')]) else { return 1 };
    let input = std::mem::take(&mut c.stdin);
    let mut status = 0;
    for operand in &flags.operands {
        let now = c.shell.now();
        let written = c.shell.resolve(operand).and_then(|path| {
            let mut tree = c.shell.tree();
            if flags.has('a') {
                tree.append(&path, &input, now)
            } else {
                tree.write(&path, input.clone(), now, false)
            }
        });
        if let Err(err) = written {
            status = c.fail(format!("{operand}: {}", describe(&err)));
        }
    }
    c.out.out(input);
    status
}

/// How `ls` shows one entry.
struct Listed {
    name: String,
    is_dir: bool,
    size: u64,
    stamp: Stamp,
}

impl Listed {
    fn new(name: &str, node: &Node) -> Self {
        Self { name: name.to_owned(), is_dir: node.is_dir(), size: node.size(), stamp: node.stamp }
    }
}

pub(super) fn ls(c: &mut Call) -> i32 {
    let long =
        [("all", 'a'), ("almost-all", 'A'), ("recursive", 'R'), ("human-readable", 'h'), ("directory", 'd'), ("classify", 'F')];
    let Some(flags) = c.flags(c.args, "aAl1RtrhdFS", "", &long) else { return 2 };
    let operands = if flags.operands.is_empty() { vec![".".to_owned()] } else { flags.operands.clone() };
    let (mut files, mut dirs, mut status) = (Vec::new(), Vec::new(), 0);
    {
        let tree = c.shell.tree();
        for operand in &operands {
            match c.shell.resolve(operand).and_then(|path| tree.get(&path).map(|node| (path.clone(), node))) {
                Ok((path, node)) if node.is_dir() && !flags.has('d') => dirs.push((operand.clone(), path)),
                Ok((_, node)) => files.push(Listed::new(operand, node)),
                Err(err) => {
                    c.out.err(format!("ls: cannot access '{operand}': {}\n", describe(&err)));
                    status = 2;
                }
            }
        }
    }
    let headers = flags.has('R') || files.len() + dirs.len() > 1;
    let mut text = listing(files, &flags);
    for (shown, path) in dirs {
        list_directory(&c.shell.tree(), &shown, &path, &flags, headers, &mut text);
    }
    c.out.out(text.trim_start_matches('\n'));
    status
}

fn list_directory(tree: &Tree, shown: &str, path: &str, flags: &Flags, headers: bool, text: &mut String) {
    let Ok(dir) = tree.get(path) else { return };
    let Some(entries) = dir.children() else { return };
    let mut listed = Vec::new();
    if flags.has('a') {
        listed.push(Listed::new(".", dir));
        listed.push(Listed::new("..", tree.get(parent(path)).unwrap_or(dir)));
    }
    let show_hidden = flags.has('a') || flags.has('A');
    listed.extend(
        entries.iter().filter(|(name, _)| show_hidden || !name.starts_with('.')).map(|(name, node)| Listed::new(name, node)),
    );
    if headers {
        text.push_str(&format!("\n{shown}:\n"));
    }
    let subdirs: Vec<String> = listed
        .iter()
        .filter(|entry| entry.is_dir && entry.name != "." && entry.name != "..")
        .map(|entry| entry.name.clone())
        .collect();
    text.push_str(&listing(listed, flags));
    if flags.has('R') {
        for name in subdirs {
            let shown = if shown.ends_with('/') { format!("{shown}{name}") } else { format!("{shown}/{name}") };
            list_directory(tree, &shown, &join(path, &name), flags, true, text);
        }
    }
}

/// Entries one per line (ls writes one per line when its output is not a terminal).
fn listing(entries: Vec<Listed>, flags: &Flags) -> String {
    let order = sorted_order(entries.len(), &|a, b| {
        let (a, b) = (&entries[a], &entries[b]);
        let order = match (flags.has('t'), flags.has('S')) {
            (true, _) => b.stamp.cmp(&a.stamp),
            (false, true) => b.size.cmp(&a.size),
            (false, false) => Ordering::Equal,
        };
        let order = order.then_with(|| a.name.cmp(&b.name));
        if flags.has('r') {
            order.reverse()
        } else {
            order
        }
    });
    let size = |entry: &Listed| if flags.has('h') { human(entry.size) } else { entry.size.to_string() };
    let width = entries.iter().map(|entry| size(entry).len()).max().unwrap_or(0);
    let mut text = String::new();
    for entry in order.into_iter().map(|i| &entries[i]) {
        if flags.has('l') {
            let mode = if entry.is_dir { "drwxr-xr-x" } else { "-rw-r--r--" };
            let time = format_rfc3339(entry.stamp.ms).replace('T', " ");
            text.push_str(&format!("{mode} 1 agent agent {:>width$} {} ", size(entry), &time[..16]));
        }
        text.push_str(&entry.name);
        if flags.has('F') && entry.is_dir {
            text.push('/');
        }
        text.push('\n');
    }
    text
}

/// Sizes as `ls -h` shows them, rounded up: 512, 1.5K, 20M (integer arithmetic, to keep
/// floating-point formatting out of the bundle).
fn human(bytes: u64) -> String {
    let mut unit_size = 1u64;
    for unit in ["K", "M", "G", "T", "P"] {
        unit_size *= 1024;
        if bytes < unit_size {
            break;
        }
        if bytes < unit_size * 1024 || unit == "P" {
            // Tenths of a unit, rounded up, in parts that cannot overflow.
            let tenths = bytes / unit_size * 10 + (bytes % unit_size * 10).div_ceil(unit_size);
            return match tenths < 100 {
                true => format!("{}.{}{unit}", tenths / 10, tenths % 10),
                false => format!("{}{unit}", bytes.div_ceil(unit_size)),
            };
        }
    }
    bytes.to_string()
}

/// Applies `change` to the absolute path of each operand; a failure is reported as
/// `{action} '{operand}': {reason}` and makes the status 1. (`change` is `dyn` so that mkdir,
/// rm, rmdir and touch share one copy of this loop.)
fn each_operand(
    c: &mut Call,
    operands: &[String],
    action: &str,
    change: &dyn Fn(&mut Files, &str, EpochMillis) -> Result<(), String>,
) -> i32 {
    let mut status = 0;
    for operand in operands {
        let now = c.shell.now();
        let result =
            c.shell.resolve(operand).map_err(|err| describe(&err)).and_then(|path| change(&mut c.shell.tree(), &path, now));
        if let Err(reason) = result {
            status = c.fail(format!("{action} '{operand}': {reason}"));
        }
    }
    status
}

/// Whether a path is a directory, and if so whether it is empty.
fn emptiness(tree: &Tree, path: &str) -> Result<Option<bool>, EnvError> {
    tree.get(path).map(|node| node.children().map(|entries| entries.is_empty()))
}

pub(super) fn mkdir(c: &mut Call) -> i32 {
    let Some(flags) = c.flags(c.args, "pv", "", &[("parents", 'p')]) else { return 1 };
    if flags.operands.is_empty() {
        return c.fail("missing operand");
    }
    let parents = flags.has('p');
    each_operand(c, &flags.operands, "cannot create directory", &|tree, path, now| match tree.get(path).map(Node::is_dir) {
        Ok(true) if parents => Ok(()),
        Ok(_) => Err("File exists".to_owned()),
        Err(_) => tree.mkdir(path, now, parents).map_err(|err| describe(&err)),
    })
}

pub(super) fn rm(c: &mut Call) -> i32 {
    let Some(flags) = c.flags(c.args, "rRfdv", "", &[("recursive", 'r'), ("force", 'f'), ("dir", 'd')]) else { return 1 };
    let (recursive, force, empty_dirs) = (flags.has('r') || flags.has('R'), flags.has('f'), flags.has('d'));
    if flags.operands.is_empty() && !force {
        return c.fail("missing operand");
    }
    let (mut operands, mut status) = (Vec::new(), 0);
    for operand in &flags.operands {
        if matches!(operand.trim_end_matches('/').rsplit('/').next(), Some("." | "..")) {
            status = c.fail(format!("refusing to remove '.' or '..' directory: skipping '{operand}'"));
        } else {
            operands.push(operand.clone());
        }
    }
    let removed = each_operand(c, &operands, "cannot remove", &|tree, path, now| match emptiness(tree, path) {
        Err(EnvError::NotFound(_)) if force => Ok(()),
        Err(err) => Err(describe(&err)),
        Ok(Some(_)) if !recursive && !empty_dirs => Err("Is a directory".to_owned()),
        Ok(Some(false)) if !recursive => Err("Directory not empty".to_owned()),
        Ok(_) => tree.remove(path, true, now).map_err(|err| describe(&err)),
    });
    status.max(removed)
}

pub(super) fn rmdir(c: &mut Call) -> i32 {
    let Some(flags) = c.flags(c.args, "", "", &[]) else { return 1 };
    if flags.operands.is_empty() {
        return c.fail("missing operand");
    }
    each_operand(c, &flags.operands, "failed to remove", &|tree, path, now| match emptiness(tree, path) {
        Err(err) => Err(describe(&err)),
        Ok(None) => Err("Not a directory".to_owned()),
        Ok(Some(false)) => Err("Directory not empty".to_owned()),
        Ok(Some(true)) => tree.remove(path, false, now).map_err(|err| describe(&err)),
    })
}

/// One source of `mv`/`cp` and where it goes, as written and as an absolute path.
struct Transfer {
    source: String,
    source_path: String,
    target: String,
    target_path: String,
}

/// The transfers of `mv`/`cp SOURCE... DEST`: into DEST when it is a directory, else DEST
/// itself (for a single source).
fn transfers(c: &mut Call, operands: &[String]) -> Result<Vec<Transfer>, i32> {
    let Some((dest, sources)) = operands.split_last().filter(|(_, sources)| !sources.is_empty()) else {
        return Err(c.fail(match operands.first() {
            None => "missing file operand".to_owned(),
            Some(only) => format!("missing destination file operand after '{only}'"),
        }));
    };
    let dest_path = path_of(c, dest, "cannot access")?;
    let into = c.shell.tree().get(&dest_path).is_ok_and(Node::is_dir);
    if !into && sources.len() > 1 {
        return Err(c.fail(format!("target '{dest}' is not a directory")));
    }
    let mut transfers = Vec::new();
    for source in sources {
        let source_path = path_of(c, source, "cannot stat")?;
        let (target, target_path) = match source_path.rsplit('/').next().filter(|_| into) {
            Some(name) => (format!("{}/{name}", dest.trim_end_matches('/')), join(&dest_path, name)),
            None => (dest.clone(), dest_path.clone()),
        };
        transfers.push(Transfer { source: source.clone(), source_path, target, target_path });
    }
    Ok(transfers)
}

/// Why a transfer may not happen, if it may not.
fn conflict(tree: &Tree, transfer: &Transfer, verb: &str) -> Option<String> {
    let Transfer { source, source_path, target, target_path } = transfer;
    let source_node = match tree.get(source_path) {
        Ok(node) => node,
        Err(err) => return Some(format!("cannot stat '{source}': {}", describe(&err))),
    };
    if target_path == source_path {
        return Some(format!("'{source}' and '{target}' are the same file"));
    }
    if target_path.starts_with(&format!("{source_path}/")) {
        return Some(format!("cannot {verb} '{source}' to a subdirectory of itself, '{target}'"));
    }
    match tree.get(target_path) {
        Ok(existing) if existing.is_dir() && !source_node.is_dir() => {
            Some(format!("cannot overwrite directory '{target}' with non-directory"))
        }
        Ok(existing) if !existing.is_dir() && source_node.is_dir() => {
            Some(format!("cannot overwrite non-directory '{target}' with directory '{source}'"))
        }
        _ => None,
    }
}

pub(super) fn mv(c: &mut Call) -> i32 {
    let Some(flags) = c.flags(c.args, "fnv", "", &[("force", 'f'), ("no-clobber", 'n')]) else { return 1 };
    let Ok(transfers) = transfers(c, &flags.operands) else { return 1 };
    let mut status = 0;
    for transfer in transfers {
        let now = c.shell.now();
        let problem = conflict(&c.shell.tree(), &transfer, "move");
        if let Some(problem) = problem {
            status = c.fail(problem);
            continue;
        }
        let Transfer { source, source_path, target, target_path } = transfer;
        let mut tree = c.shell.tree();
        if flags.has('n') && tree.exists(&target_path) {
            continue;
        }
        let replaces_full_dir =
            tree.get(&target_path).ok().and_then(|node| node.children()).is_some_and(|entries| !entries.is_empty());
        // Checked before the source is detached, so that a failed move loses nothing.
        let parent_is_dir = tree.get(parent(&target_path)).is_ok_and(Node::is_dir);
        let moved = if replaces_full_dir {
            Err("Directory not empty".to_owned())
        } else if !parent_is_dir {
            Err("No such file or directory".to_owned())
        } else {
            tree.rename(&source_path, &target_path, now).map_err(|err| describe(&err))
        };
        drop(tree);
        if let Err(reason) = moved {
            status = c.fail(format!("cannot move '{source}' to '{target}': {reason}"));
        }
    }
    status
}

pub(super) fn cp(c: &mut Call) -> i32 {
    let long = [("recursive", 'r'), ("archive", 'a'), ("force", 'f'), ("no-clobber", 'n'), ("preserve", 'p')];
    let Some(flags) = c.flags(c.args, "rRapfnv", "", &long) else { return 1 };
    let recursive = flags.has('r') || flags.has('R') || flags.has('a');
    let keep_times = flags.has('p') || flags.has('a');
    let Ok(transfers) = transfers(c, &flags.operands) else { return 1 };
    let mut status = 0;
    for transfer in transfers {
        let problem = conflict(&c.shell.tree(), &transfer, "copy");
        let is_dir = c.shell.tree().get(&transfer.source_path).ok().map(Node::is_dir);
        let Transfer { source, source_path, target, target_path } = transfer;
        let result = match (problem, is_dir) {
            (Some(problem), _) => Err(problem),
            (None, Some(true)) if !recursive => Err(format!("-r not specified; omitting directory '{source}'")),
            (None, Some(_)) if flags.has('n') && c.shell.tree().exists(&target_path) => Ok(()),
            (None, Some(_)) => {
                let now = c.shell.now();
                copy(&mut c.shell.tree(), &source_path, &target_path, now, keep_times)
                    .map_err(|err| format!("cannot create '{target}': {}", describe(&err)))
            }
            (None, None) => Err(format!("cannot stat '{source}': No such file or directory")),
        };
        if let Err(message) = result {
            status = c.fail(message);
        }
    }
    status
}

/// Copies `source` to `target`, merging into an existing directory as `cp -r` does.
fn copy(tree: &mut Files, source: &str, target: &str, now: u64, keep_times: bool) -> Result<(), EnvError> {
    // Everything to copy, depth first, taken before anything is written: (path below
    // `source`, the bytes of a file or `None` for a directory, stamp).
    let content = |node: &Node| match &node.kind {
        Kind::File(content) => Some(content.bytes().to_vec()),
        Kind::Dir(_) => None,
    };
    let root = tree.get(source)?;
    let mut items = vec![(String::new(), content(root), root.stamp)];
    items.extend(tree.walk(source, usize::MAX)?.into_iter().map(|(rel, node, _)| (rel, content(node), node.stamp)));
    for (rel, bytes, stamp) in items {
        let path = if rel.is_empty() { target.to_owned() } else { join(target, &rel) };
        match bytes {
            Some(bytes) => {
                tree.write(&path, bytes, now, false)?;
                if keep_times {
                    tree.restamp(&path, stamp)?;
                }
            }
            None if tree.exists(&path) => {}
            None => tree.mkdir(&path, now, false)?,
        }
    }
    Ok(())
}

pub(super) fn touch(c: &mut Call) -> i32 {
    let Some(flags) = c.flags(c.args, "acm", "", &[("no-create", 'c')]) else { return 1 };
    if flags.operands.is_empty() {
        return c.fail("missing file operand");
    }
    let no_create = flags.has('c');
    each_operand(c, &flags.operands, "cannot touch", &|tree, path, now| {
        let touched = match tree.exists(path) {
            true => tree.touch(path, now),
            false if no_create => Ok(()),
            false => tree.write(path, Vec::new(), now, false),
        };
        touched.map_err(|err| describe(&err))
    })
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::super::{env_with, sh};

    #[test]
    fn cat_concatenates_files_and_stdin_and_numbers_lines() {
        let env = env_with(&[("a.txt", "one\ntwo\n"), ("b.txt", "three")]);
        assert_eq!(sh(&env, "cat a.txt b.txt").0, "one\ntwo\nthree");
        assert_eq!(sh(&env, "echo in | cat a.txt - b.txt").0, "one\ntwo\nin\nthree");
        assert_eq!(sh(&env, "cat -n a.txt b.txt").0, "     1\tone\n     2\ttwo\n     3\tthree");
        assert_eq!(sh(&env, "cat a.txt nope"), ("one\ntwo\n".into(), "cat: nope: No such file or directory\n".into(), 1));
        assert_eq!(sh(&env, "cat .").1, "cat: .: Is a directory\n");
        assert_eq!(sh(&env, "cat -z a.txt"), (String::new(), "cat: invalid option -- 'z'\n".into(), 1));
    }

    #[test]
    fn ls_lists_one_name_per_line() {
        let env = env_with(&[("src/main.rs", "fn main() {}\n"), ("src/lib/mod.rs", ""), ("README.md", "hi"), (".env", "")]);
        assert_eq!(sh(&env, "ls").0, "README.md\nsrc\n");
        assert_eq!(sh(&env, "ls -1a").0, ".\n..\n.env\nREADME.md\nsrc\n");
        assert_eq!(sh(&env, "ls -A").0, ".env\nREADME.md\nsrc\n");
        assert_eq!(sh(&env, "ls -F src").0, "lib/\nmain.rs\n");
        assert_eq!(sh(&env, "ls README.md src").0, "README.md\n\nsrc:\nlib\nmain.rs\n");
        assert_eq!(sh(&env, "ls -R src").0, "src:\nlib\nmain.rs\n\nsrc/lib:\nmod.rs\n");
        assert_eq!(sh(&env, "ls -d src").0, "src\n");
        assert_eq!(sh(&env, "ls -t src").0, "lib\nmain.rs\n", "lib was made after main.rs");
        assert_eq!(sh(&env, "ls -r").0, "src\nREADME.md\n");
        assert_eq!(
            sh(&env, "ls nope src/main.rs"),
            ("src/main.rs\n".into(), "ls: cannot access 'nope': No such file or directory\n".into(), 2)
        );
    }

    #[test]
    fn ls_long_format_shows_type_size_and_time() {
        let env = env_with(&[("big.bin", &"x".repeat(1536)), ("dir/f", "")]);
        let (out, _, _) = sh(&env, "ls -l");
        assert_eq!(
            out,
            "-rw-r--r-- 1 agent agent 1536 2025-01-01 00:00 big.bin\ndrwxr-xr-x 1 agent agent    0 2025-01-01 00:00 dir\n"
        );
        assert!(sh(&env, "ls -lh big.bin").0.contains(" 1.5K "));
        for (bytes, shown) in
            [(0, "0"), (1023, "1023"), (1025, "1.1K"), (10_240, "10K"), (10_241, "11K"), (5 << 20, "5.0M"), (3 << 40, "3.0T")]
        {
            assert_eq!(super::human(bytes), shown);
        }
        assert!(sh(&env, "ls -la").0.contains(" .\n"));
    }

    #[test]
    fn mkdir_rm_and_rmdir() {
        let env = env_with(&[("f.txt", "")]);
        assert_eq!(sh(&env, "mkdir -p a/b/c && mkdir -p a/b && ls a/b").0, "c\n");
        assert_eq!(sh(&env, "mkdir a").1, "mkdir: cannot create directory 'a': File exists\n");
        assert_eq!(sh(&env, "mkdir x/y").1, "mkdir: cannot create directory 'x/y': No such file or directory\n");
        assert_eq!(sh(&env, "mkdir f.txt").1, "mkdir: cannot create directory 'f.txt': File exists\n");
        assert_eq!(sh(&env, "rm a").1, "rm: cannot remove 'a': Is a directory\n");
        assert_eq!(sh(&env, "rmdir a").1, "rmdir: failed to remove 'a': Directory not empty\n");
        assert_eq!(sh(&env, "rmdir a/b/c && ls a/b").0, "");
        assert_eq!(sh(&env, "rm -r a && ls").0, "f.txt\n");
        assert_eq!(sh(&env, "rm nope").1, "rm: cannot remove 'nope': No such file or directory\n");
        assert_eq!(sh(&env, "rm -f nope f.txt; ls"), (String::new(), String::new(), 0));
        assert_eq!(sh(&env, "rm -rf /").1, "rm: cannot remove '/': the root cannot be removed\n");
        assert_eq!(sh(&env, "rm -rf .").1, "rm: refusing to remove '.' or '..' directory: skipping '.'\n");
        assert_eq!(sh(&env, "rm").1, "rm: missing operand\n");
    }

    #[test]
    fn mv_renames_and_moves_into_directories() {
        let env = env_with(&[("a.txt", "A"), ("b.txt", "B"), ("dir/keep", "")]);
        assert_eq!(sh(&env, "mv a.txt c.txt && cat c.txt").0, "A");
        assert_eq!(sh(&env, "mv c.txt b.txt dir && ls dir").0, "b.txt\nc.txt\nkeep\n");
        assert_eq!(sh(&env, "mv dir moved && ls moved | wc -l").0, "3\n");
        assert_eq!(sh(&env, "mv moved moved/inner").1, "mv: cannot move 'moved' to a subdirectory of itself, 'moved/inner'\n");
        assert_eq!(sh(&env, "mv nope x").1, "mv: cannot stat 'nope': No such file or directory\n");
        assert_eq!(
            sh(&env, "mv moved/keep no/such/place").1,
            "mv: cannot move 'moved/keep' to 'no/such/place': No such file or directory\n"
        );
        assert_eq!(sh(&env, "mv moved/keep moved/b.txt other").1, "mv: target 'other' is not a directory\n");
        assert!(sh(&env, "ls moved/keep").2 == 0, "a failed move keeps the source");
    }

    #[test]
    fn cp_copies_files_and_trees() {
        let env = env_with(&[("a.txt", "A"), ("src/x/y.txt", "Y")]);
        assert_eq!(sh(&env, "cp a.txt b.txt && cat b.txt").0, "A");
        assert_eq!(sh(&env, "cp src dst").1, "cp: -r not specified; omitting directory 'src'\n");
        assert_eq!(sh(&env, "cp -r src dst && cat dst/x/y.txt").0, "Y");
        assert_eq!(sh(&env, "cp -r src dst && ls dst").0, "src\nx\n", "an existing target directory receives a copy");
        assert_eq!(sh(&env, "mkdir d && cp a.txt b.txt d && ls d").0, "a.txt\nb.txt\n");
        assert_eq!(sh(&env, "cp -r src src/x").1, "cp: cannot copy 'src' to a subdirectory of itself, 'src/x/src'\n");
        assert_eq!(sh(&env, "cp a.txt a.txt").1, "cp: 'a.txt' and 'a.txt' are the same file\n");
    }

    #[test]
    fn touch_creates_files_and_makes_them_newest() {
        let env = env_with(&[("old.txt", "keep"), ("new.txt", "")]);
        assert_eq!(sh(&env, "ls -t").0, "new.txt\nold.txt\n");
        assert_eq!(sh(&env, "touch old.txt fresh.txt && ls -t && cat old.txt").0, "fresh.txt\nold.txt\nnew.txt\nkeep");
        assert_eq!(sh(&env, "touch -c ghost; ls ghost").2, 2);
        assert_eq!(sh(&env, "touch no/dir/f").1, "touch: cannot touch 'no/dir/f': No such file or directory\n");
    }

    #[test]
    fn tee_copies_standard_input_to_files() {
        let env = env_with(&[]);
        assert_eq!(sh(&env, "echo hi | tee a.txt b.txt").0, "hi\n");
        assert_eq!(sh(&env, "echo more | tee -a a.txt >/dev/null; cat a.txt b.txt").0, "hi\nmore\nhi\n");
    }
}
