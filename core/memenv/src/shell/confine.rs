//! The sandbox policy in the built-in shell: every write a command makes goes through [`Files`],
//! which asks the call's [`Confinement`] first. There is no other way to change the tree from
//! the shell (`Files` gives the tree's reads, not its writes), so a new builtin cannot forget it.
//!
//! As under the kernel's sandbox, a refused write fails with the error a real shell prints:
//! `Read-only file system` in `read-only`, `Permission denied` outside the writable roots or on a
//! protected path. The first refusal is kept for `ExecResult::sandbox_denied`.
//!
//! The built-in shell has no command of its own that reaches the network; the host's commands
//! are given the confinement ([`HostCall::confinement`](crate::HostCall::confinement)), its
//! policy to honour and its check for their writes.

use std::cell::{RefCell, RefMut};
use std::ops::Deref;

use crate::fs::{join, resolve, Node, Stamp, Tree};
use crate::MemoryEnvironment;
use openagent_core::env::EnvError;
use openagent_core::runtime::EpochMillis;
use openagent_core::sandbox::{protected, SandboxMode, SandboxPolicy};

/// What one command may write: the session's sandbox policy, its roots made absolute. The shell
/// checks its own writes with it; a host command is given it ([`HostCall::confinement`]) to check
/// what it writes through [`HostCall::files`], so that its refusals are reported as the shell's are.
///
/// [`HostCall::confinement`]: crate::HostCall::confinement
/// [`HostCall::files`]: crate::HostCall::files
pub struct Confinement {
    policy: SandboxPolicy,
    /// Absolute and normalised: the environment's working directory, the temporary directory
    /// and the policy's own.
    roots: Vec<String>,
    /// What the first refused write was, as `sandbox_denied` says it.
    denied: RefCell<Option<String>>,
}

impl Confinement {
    /// The confinement `policy` sets on a command whose environment works in `working_dir`;
    /// `None` when it sets none (no policy, or `full-access`).
    pub(super) fn new(policy: Option<&SandboxPolicy>, working_dir: &str, scratch: &str) -> Option<Self> {
        let policy = policy.filter(|policy| policy.confines())?;
        let mut roots = vec![working_dir.to_owned(), scratch.to_owned()];
        // The roots are absolute (the policy checks it), so resolving only normalises them.
        roots.extend(policy.writable_roots.iter().filter_map(|root| resolve("/", root).ok()));
        Some(Self { policy: policy.clone(), roots, denied: RefCell::default() })
    }

    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// Whether a command may create, change or remove `path` (absolute, or relative to the
    /// working directory of `files`), and for a directory everything in it. A refusal is
    /// [`EnvError::PermissionDenied`] with what a shell prints (`Read-only file system`,
    /// `Permission denied`), and is kept for the command's `sandbox_denied`.
    pub fn check_write(&self, files: &MemoryEnvironment, path: &str) -> Result<(), EnvError> {
        let path = files.resolve(path)?;
        let tree = files.inner.tree.borrow();
        self.allow_all(&path, tree.get(&path).ok())
    }

    /// What the first refused write was, if one was.
    pub(super) fn denied(&self) -> Option<String> {
        self.denied.borrow().clone()
    }

    /// Whether `path` (absolute, normalised) may be written.
    fn allow(&self, path: &str) -> Result<(), EnvError> {
        let (error, why) = if self.policy.mode == SandboxMode::ReadOnly {
            ("Read-only file system", ": the sandbox is read-only".to_owned())
        } else {
            let mut within = self.roots.iter().filter_map(|root| below(root, path)).peekable();
            if within.peek().is_none() {
                ("Permission denied", " outside the writable roots".to_owned())
            } else if let Some(name) = within.find_map(protected) {
                ("Permission denied", [" (`", name, "` stays read-only inside the writable roots)"].concat())
            } else {
                return Ok(());
            }
        };
        self.denied.borrow_mut().get_or_insert_with(|| ["a write to ", path, &why].concat());
        Err(EnvError::PermissionDenied(error.to_owned()))
    }

    /// [`allow`](Self::allow) for `path` and everything in `node`, which would be put there or
    /// taken from there: moving or removing `.git` moves or removes `.git/config`.
    fn allow_all(&self, path: &str, node: Option<&Node>) -> Result<(), EnvError> {
        self.allow(path)?;
        let Some(entries) = node.and_then(Node::children) else { return Ok(()) };
        entries.iter().try_for_each(|(name, child)| self.allow_all(&join(path, name), Some(child)))
    }
}

/// `path` relative to `root` when it lies in it (`""` for the root itself).
fn below<'a>(root: &str, path: &'a str) -> Option<&'a str> {
    if root == "/" {
        return Some(path.trim_start_matches('/'));
    }
    let rest = path.strip_prefix(root)?;
    match rest.strip_prefix('/') {
        Some(rel) => Some(rel),
        None => rest.is_empty().then_some(""),
    }
}

/// The shell's way to the tree: its reads, and its writes once the confinement allows them.
pub(super) struct Files<'a> {
    tree: RefMut<'a, Tree>,
    confinement: Option<&'a Confinement>,
}

impl Deref for Files<'_> {
    type Target = Tree;

    fn deref(&self) -> &Tree {
        &self.tree
    }
}

impl<'a> Files<'a> {
    pub fn new(tree: RefMut<'a, Tree>, confinement: Option<&'a Confinement>) -> Self {
        Self { tree, confinement }
    }

    /// Whether `path` may be written: opening a file to append to it later, which changes
    /// nothing yet, must fail now as `open(2)` would.
    pub fn allow(&self, path: &str) -> Result<(), EnvError> {
        self.confinement.map_or(Ok(()), |confinement| confinement.allow(path))
    }

    /// [`Confinement::allow_all`] for what is at `path` now.
    fn allow_all(&self, path: &str) -> Result<(), EnvError> {
        self.confinement.map_or(Ok(()), |confinement| confinement.allow_all(path, self.tree.get(path).ok()))
    }

    pub fn write(&mut self, path: &str, bytes: Vec<u8>, now: EpochMillis, parents: bool) -> Result<(), EnvError> {
        self.allow(path)?;
        self.tree.write(path, bytes, now, parents)
    }

    pub fn append(&mut self, path: &str, bytes: &[u8], now: EpochMillis) -> Result<(), EnvError> {
        self.allow(path)?;
        self.tree.append(path, bytes, now)
    }

    /// An existing directory with `parents` writes nothing, so is fine even read-only (`mkdir -p`).
    pub fn mkdir(&mut self, path: &str, now: EpochMillis, parents: bool) -> Result<(), EnvError> {
        if !(parents && self.tree.get(path).is_ok_and(Node::is_dir)) {
            self.allow(path)?;
        }
        self.tree.mkdir(path, now, parents)
    }

    pub fn remove(&mut self, path: &str, recursive: bool, now: EpochMillis) -> Result<(), EnvError> {
        self.allow_all(path)?;
        self.tree.remove(path, recursive, now)
    }

    /// Moves the node at `source` to `target` (whose parent exists), replacing what is there.
    /// Both ends are checked before the source is detached, so a refused move loses nothing.
    pub fn rename(&mut self, source: &str, target: &str, now: EpochMillis) -> Result<(), EnvError> {
        self.allow_all(source)?;
        self.allow_all(target)?;
        if let Some(confinement) = self.confinement {
            confinement.allow_all(target, self.tree.get(source).ok())?;
        }
        let node = self.tree.take(source, now)?;
        self.tree.insert(target, node, now)
    }

    pub fn touch(&mut self, path: &str, now: EpochMillis) -> Result<(), EnvError> {
        self.allow(path)?;
        self.tree.touch(path, now)
    }

    pub fn restamp(&mut self, path: &str, stamp: Stamp) -> Result<(), EnvError> {
        self.allow(path)?;
        self.tree.restamp(path, stamp)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::cell::RefCell;
    use std::rc::Rc;

    use async_trait::async_trait;
    use futures::executor::block_on;

    use super::super::{env_with, run};
    use crate::{HostCall, HostCommand, HostOutput, MemoryEnvironment};
    use openagent_core::env::{ExecOptions, ExecResult};
    use openagent_core::sandbox::{SandboxMode, SandboxPolicy};

    fn confined(env: &MemoryEnvironment, command: &str, policy: Option<SandboxPolicy>) -> ExecResult {
        let options = ExecOptions { sandbox: policy, ..ExecOptions::default() };
        block_on(run(env, command, &options)).expect("the shell could start")
    }

    fn read_only() -> Option<SandboxPolicy> {
        Some(SandboxPolicy::new(SandboxMode::ReadOnly))
    }

    fn workspace_write() -> Option<SandboxPolicy> {
        let mut policy = SandboxPolicy::default();
        policy.writable_roots.push("/data/".into());
        Some(policy)
    }

    fn files() -> MemoryEnvironment {
        let env = env_with(&[("a.txt", "alpha\n"), (".git/config", "[core]\n"), (".git/HEAD", "ref\n"), ("dir/x", "x\n")]);
        env.mkdir_p("/data").unwrap();
        env.mkdir_p("empty").unwrap();
        env
    }

    #[test]
    fn read_only_refuses_every_write_as_a_read_only_file_system() {
        let env = files();
        for command in [
            "echo x > a.txt",
            "echo x >> a.txt",
            "echo x > /tmp/new",
            "echo x | tee b.txt",
            "touch a.txt",
            "touch b.txt",
            "mkdir new",
            "mkdir -p dir/new",
            "rm a.txt",
            "rm -r dir",
            "rmdir empty",
            "mv a.txt b.txt",
            "cp a.txt b.txt",
            "cp -r dir dir2",
            "sed -i s/alpha/beta/ a.txt",
            "sort -o b.txt a.txt",
        ] {
            let result = confined(&env, command, read_only());
            assert_ne!(result.exit_code, 0, "{command}");
            assert!(result.stderr.contains("Read-only file system"), "{command}: {}", result.stderr);
            let denied = result.sandbox_denied.unwrap_or_default();
            assert!(denied.starts_with("a write to /") && denied.ends_with(": the sandbox is read-only"), "{command}: {denied}");
        }
        assert_eq!(confined(&env, "echo x > a.txt", read_only()).stderr, "sh: a.txt: Read-only file system\n");
        assert_eq!(env.read_bytes_sync("a.txt").unwrap(), b"alpha\n");
        assert_eq!(env.list_all_files().len(), 4, "nothing was written");
        let reads = confined(&env, "cat a.txt; ls dir; grep -r alpha .; mkdir -p dir; echo shown > /dev/null", read_only());
        assert_eq!((result_parts(&reads), reads.sandbox_denied), (("alpha\nx\n./a.txt:alpha\n".into(), 0), None));
    }

    fn result_parts(result: &ExecResult) -> (String, i32) {
        (result.stdout.clone(), result.exit_code)
    }

    #[test]
    fn workspace_write_writes_only_in_the_writable_roots() {
        let env = files();
        let wrote = confined(
            &env,
            "echo 1 > b.txt; echo 2 > /tmp/t; echo 3 > /data/d; mkdir -p dir/sub; mv b.txt dir/",
            workspace_write(),
        );
        assert_eq!((wrote.exit_code, wrote.stderr.as_str(), wrote.sandbox_denied), (0, "", None));
        assert_eq!(env.read_bytes_sync("/data/d").unwrap(), b"3\n");
        env.mkdir_p("/etc").unwrap();
        let outside = confined(&env, "echo x > /etc/x", workspace_write());
        assert_eq!((outside.stderr.as_str(), outside.exit_code), ("sh: /etc/x: Permission denied\n", 1));
        assert_eq!(outside.sandbox_denied.as_deref(), Some("a write to /etc/x outside the writable roots"));
        for command in ["touch /etc/x", "cp a.txt /etc/", "mv a.txt /etc/a.txt", "cd / && echo x > etc/x", "rm -r /data/../etc"] {
            let result = confined(&env, command, workspace_write());
            assert!(result.exit_code != 0 && result.stderr.contains("Permission denied"), "{command}: {}", result.stderr);
            assert!(result.sandbox_denied.unwrap_or_default().ends_with("outside the writable roots"), "{command}");
        }
        assert!(env.read_bytes_sync("a.txt").is_ok() && !env.list_all_files().iter().any(|path| path.starts_with("/etc")));
    }

    #[test]
    fn workspace_write_keeps_protected_paths_read_only_even_moved_or_removed_whole() {
        let env = files();
        env.write_bytes("/tmp/hooks/pre-commit", b"evil").unwrap();
        for command in [
            "echo x >> .git/config",
            "sed -i s/core/x/ .git/config",
            "rm -rf .git",
            "mv .git /tmp/git",
            "mv /tmp/hooks .git/hooks",
            "cp -r /tmp/hooks .git/",
            "mkdir .openagent",
            "echo 'curl x | sh' > .bashrc",
        ] {
            let result = confined(&env, command, workspace_write());
            assert!(result.exit_code != 0 && result.stderr.contains("Permission denied"), "{command}: {}", result.stderr);
            let denied = result.sandbox_denied.unwrap_or_default();
            assert!(denied.contains("stays read-only inside the writable roots"), "{command}: {denied}");
        }
        assert_eq!(env.read_bytes_sync(".git/config").unwrap(), b"[core]\n");
        assert!(env.read_bytes_sync("/tmp/hooks/pre-commit").is_ok(), "a refused move loses nothing");
        let git = confined(&env, "echo other > .git/HEAD; echo y > dir/.git-notes", workspace_write());
        assert_eq!((git.exit_code, git.sandbox_denied), (0, None), "git itself may still commit");
    }

    #[test]
    fn the_working_directory_is_the_environment_s_not_where_a_command_cds() {
        let env = files();
        let view = env.view("dir").unwrap();
        let result = confined(&view, "echo in > here; echo out > ../a.txt", workspace_write());
        assert_eq!(result.sandbox_denied.as_deref(), Some("a write to /workspace/a.txt outside the writable roots"));
        assert_eq!(env.read_bytes_sync("dir/here").unwrap(), b"in\n");
    }

    #[test]
    fn full_access_and_no_policy_write_anywhere() {
        for policy in [None, Some(SandboxPolicy::full_access())] {
            let env = files();
            let result = confined(&env, "mkdir /etc; echo x > /etc/x; echo y >> .git/config; rm -r dir", policy);
            assert_eq!((result.exit_code, result.stderr.as_str(), result.sandbox_denied), (0, "", None));
            assert_eq!(env.read_bytes_sync("/etc/x").unwrap(), b"x\n");
        }
    }

    /// Records the sandbox each call was given, and writes `argv[1]` after asking it.
    #[derive(Default)]
    struct Sees(RefCell<Vec<Option<SandboxPolicy>>>);

    #[async_trait(?Send)]
    impl HostCommand for Sees {
        async fn run(&self, call: HostCall<'_>) -> HostOutput {
            self.0.borrow_mut().push(call.confinement.as_ref().map(|confinement| confinement.policy().clone()));
            let path = call.argv.get(1).cloned().unwrap_or_default();
            let checked = call.confinement.map_or(Ok(()), |confinement| confinement.check_write(call.files, &path));
            match checked.and_then(|()| call.files.write_bytes(&path, b"host")) {
                Ok(()) => HostOutput::default(),
                Err(err) => HostOutput { stderr: err.to_string().into_bytes(), exit_code: 1, ..HostOutput::default() },
            }
        }
    }

    #[test]
    fn host_commands_are_given_the_confinement_and_their_refusals_are_reported() {
        let env = files();
        let sees = Rc::new(Sees::default());
        env.add_host_command("node", sees.clone()).unwrap();
        let refused = confined(&env, "node a.txt", read_only());
        assert_eq!((refused.exit_code, refused.stderr.as_str()), (1, "permission denied: Read-only file system"));
        assert_eq!(refused.sandbox_denied.as_deref(), Some("a write to /workspace/a.txt: the sandbox is read-only"));
        let refused = confined(&env, "node .git", workspace_write());
        assert!(refused.sandbox_denied.unwrap_or_default().contains("`.git/config` stays read-only"));
        assert_eq!(confined(&env, "node b.txt", workspace_write()).exit_code, 0);
        for policy in [Some(SandboxPolicy::full_access()), None] {
            assert_eq!(confined(&env, "node /etc/x", policy).sandbox_denied, None);
        }
        assert_eq!(*sees.0.borrow(), [read_only(), workspace_write(), workspace_write(), None, None]);
        assert_eq!(env.read_bytes_sync("a.txt").unwrap(), b"alpha\n");
        assert_eq!(env.read_bytes_sync("/etc/x").unwrap(), b"host");
    }
}
