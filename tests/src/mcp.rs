//! The real MCP servers the MCP suites talk to: the reference servers from npm
//! (`@modelcontextprotocol/server-everything`, `@modelcontextprotocol/server-filesystem`), which
//! `scripts/test-all` installs pinned into the tools directory, run with Node. Each helper returns
//! `None` after printing why when Node or a package is missing, so a suite skips instead of failing
//! on a machine without them.

use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where `scripts/test-all` installs npm tools: `$OPENAGENT_TOOLS_DIR`, else
/// `~/.cache/openagent/tools`.
pub fn tools_dir() -> PathBuf {
    match std::env::var_os("OPENAGENT_TOOLS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/openagent/tools"),
    }
}

/// `node` on the PATH.
pub fn node() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join("node")).find(|candidate| candidate.is_file())
}

/// Node and the entry script of `@modelcontextprotocol/<package>`, or `None` after printing why
/// the test is skipped.
pub fn server(package: &str) -> Option<(PathBuf, PathBuf)> {
    let Some(node) = node() else {
        eprintln!("skipped: node is not on the PATH (scripts/test-all installs it)");
        return None;
    };
    let script = tools_dir().join("node_modules/@modelcontextprotocol").join(package).join("dist/index.js");
    if !script.is_file() {
        eprintln!("skipped: {} is missing (scripts/test-all installs @modelcontextprotocol/{package})", script.display());
        return None;
    }
    Some((node, script))
}

/// server-everything in its Streamable HTTP mode on a free port of 127.0.0.1, stopped (its
/// process group) when dropped.
pub struct EverythingOverHttp {
    child: Child,
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
}

impl EverythingOverHttp {
    /// `None` (after saying why) when Node or the package is missing.
    pub fn start() -> Option<Self> {
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        Self::start_on(port)
    }

    /// Stops the server and starts a new one on the same port: it knows none of the old one's
    /// sessions, as after a restart.
    pub fn restart(self) -> Self {
        let port: u16 = self.url.trim_end_matches("/mcp").rsplit(':').next().and_then(|p| p.parse().ok()).expect("a port");
        drop(self);
        Self::start_on(port).expect("it started before")
    }

    fn start_on(port: u16) -> Option<Self> {
        let (node, script) = server("server-everything")?;
        // The server listens on every interface; the preload binds it to 127.0.0.1 only.
        let preload = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/bind-local.cjs");
        let mut command = Command::new(node);
        command
            .arg("--require")
            .arg(preload)
            .arg(script)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0);
        let child = command.spawn().expect("node starts");
        let server = Self { child, url: format!("http://127.0.0.1:{port}/mcp") };
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "server-everything did not listen on port {port} within 20 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(server)
    }
}

impl Drop for EverythingOverHttp {
    fn drop(&mut self) {
        // SAFETY: kill has no memory effects; the negative pid is the server's process group.
        unsafe { libc::kill(-(self.child.id() as libc::pid_t), libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// The hostile test server (`tests/mcp/hostile.js`) in `mode`: `crash` (exits during a call),
/// `silent` (never answers), `malformed` (answers with broken JSON-RPC), `bad-schema` (lists a
/// tool whose schema does not compile). `None` without Node.
pub fn hostile(mode: &str) -> Option<(PathBuf, Vec<String>)> {
    let Some(node) = node() else {
        eprintln!("skipped: node is not on the PATH (scripts/test-all installs it)");
        return None;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/hostile.js");
    Some((node, vec![script.display().to_string(), mode.to_owned()]))
}
