//! The stdio transport of MCP (2025-06-18, "Transports"): the server is a child process that
//! reads newline-delimited JSON-RPC on stdin and writes it on stdout; its stderr is kept (the
//! last few KB) to say why it failed. It runs in a process group of its own, which is stopped
//! when the transport is closed or dropped.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use async_trait::async_trait;
use futures::channel::mpsc::{unbounded, UnboundedReceiver};
use futures::StreamExt;
use openagent_core::sandbox::SandboxPolicy;
use openagent_mcp::{jsonrpc, McpError, McpTransport};
use serde_json::Value;

use super::local_env::confined::{self, Prepared};
use super::local_env::exec::{self, namespaces_available, GRACE};
use super::local_env::vars::{command_vars, EnvPass, EnvPolicy};

/// How much of the server's stderr is kept for error messages.
const STDERR_TAIL: usize = 4096;

/// The longest message (one line) a server may send: as much as a command's output the agent
/// keeps. A server that writes on without a newline is cut off here instead of growing the agent.
const MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// A running MCP server on pipes.
pub struct StdioTransport {
    name: String,
    /// Lines for the writer thread, which owns the server's stdin: a server that stops reading
    /// must not block the session's thread (and its timers) on a full pipe.
    stdin: Mutex<Option<std::sync::mpsc::Sender<String>>>,
    lines: futures::lock::Mutex<UnboundedReceiver<String>>,
    stderr: Arc<Mutex<String>>,
    /// Set when the server's stderr reached its end: all of it is in `stderr`.
    stderr_read: Arc<AtomicBool>,
    child: Mutex<Option<Child>>,
    /// Set when the server sent a line past [`MAX_MESSAGE`]: it is stopped, and says why.
    oversized: Arc<AtomicBool>,
}

impl StdioTransport {
    /// Starts `command` with `args` in `cwd`. It sees the host's variables but its secrets (a
    /// command's under `EnvPolicy::InheritAll`), then `env`, which the configuration gives on
    /// purpose. Between SIGTERM and SIGKILL when it is stopped: a command's [`GRACE`].
    /// With a confining `sandbox` policy the server is held to it as the model's commands are
    /// (its own namespaces, Landlock, seccomp); it refuses to start where that cannot be done.
    pub fn spawn(
        name: &str,
        command: &str,
        args: &[String],
        env: &BTreeMap<String, String>,
        cwd: &Path,
        sandbox: Option<&SandboxPolicy>,
    ) -> Result<Self, McpError> {
        let mut vars = command_vars(EnvPolicy::InheritAll, &EnvPass::default(), std::env::vars_os(), env);
        let confined = match sandbox.filter(|policy| policy.confines()) {
            Some(policy) => {
                let confined = Prepared::default()
                    .get(policy, cwd, None, namespaces_available())
                    .map_err(|e| McpError::Transport(format!("MCP server {name}: cannot be confined: {e}")))?;
                vars.extend(confined::vars(&confined));
                Some(Arc::new(confined))
            }
            None => None,
        };
        let mut process = Command::new(command);
        process
            .args(args)
            .current_dir(cwd)
            .env_clear()
            .envs(vars)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = exec::start(&mut process, confined)
            .map_err(|e| McpError::Transport(format!("MCP server {name}: cannot start `{command}`: {e}")))?;
        let (stdout, stderr_pipe) = (child.stdout.take(), child.stderr.take());
        let (tx, rx) = unbounded();
        let oversized = Arc::new(AtomicBool::new(false));
        if let Some(stdout) = stdout {
            let too_long = oversized.clone();
            thread::Builder::new()
                .name("openagent-mcp-stdout".into())
                .spawn(move || {
                    let mut reader = BufReader::new(stdout);
                    let mut line = Vec::new();
                    loop {
                        line.clear();
                        // One byte past the limit tells a line that is too long from one that fits.
                        match (&mut reader).take(MAX_MESSAGE as u64 + 1).read_until(b'\n', &mut line) {
                            Ok(0) | Err(_) => break,
                            Ok(_) if line.len() > MAX_MESSAGE => {
                                too_long.store(true, Ordering::SeqCst);
                                break;
                            }
                            // Not UTF-8: read as it comes, and refused as JSON-RPC by the client.
                            Ok(_) => {
                                let text = String::from_utf8_lossy(&line);
                                if tx.unbounded_send(text.trim_end_matches(['\n', '\r']).to_owned()).is_err() {
                                    break;
                                }
                            }
                        }
                    }
                })
                .map_err(|e| McpError::Transport(format!("MCP server {name}: {e}")))?;
        }
        let stderr = Arc::new(Mutex::new(String::new()));
        let stderr_read = Arc::new(AtomicBool::new(stderr_pipe.is_none()));
        if let Some(mut pipe) = stderr_pipe {
            let tail = stderr.clone();
            let read = stderr_read.clone();
            let _ = thread::Builder::new().name("openagent-mcp-stderr".into()).spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n @ 1..) = pipe.read(&mut buf) {
                    let Ok(mut tail) = tail.lock() else { break };
                    tail.push_str(&String::from_utf8_lossy(&buf[..n]));
                    if tail.len() > STDERR_TAIL {
                        let cut = tail.len() - STDERR_TAIL;
                        let cut = (cut..tail.len()).find(|&i| tail.is_char_boundary(i)).unwrap_or(tail.len());
                        tail.drain(..cut);
                    }
                }
                read.store(true, Ordering::SeqCst);
            });
        }
        let stdin = child.stdin.take().map(|pipe| writer(pipe, name)).transpose()?;
        Ok(Self {
            name: name.to_owned(),
            stdin: Mutex::new(stdin),
            lines: futures::lock::Mutex::new(rx),
            stderr,
            stderr_read,
            child: Mutex::new(Some(child)),
            oversized,
        })
    }

    /// The end of what the server wrote on stderr.
    pub fn stderr_tail(&self) -> String {
        self.stderr.lock().map(|s| s.trim().to_owned()).unwrap_or_default()
    }

    /// Why the server is gone: its exit status and the end of its stderr.
    fn gone(&self) -> McpError {
        if self.oversized.load(Ordering::SeqCst) {
            self.stop();
            let mib = MAX_MESSAGE >> 20;
            return McpError::Transport(format!("MCP server {} sent a message longer than {mib} MiB; it was stopped", self.name));
        }
        let mut status = None;
        if let Ok(mut child) = self.child.lock() {
            if let Some(child) = child.as_mut() {
                // Its stdout closed; give it a moment to finish exiting.
                for _ in 0..20 {
                    if let Ok(Some(s)) = child.try_wait() {
                        status = Some(s);
                        break;
                    }
                    thread::sleep(Duration::from_millis(10));
                }
            }
        }
        let how = match status {
            Some(status) => format!("exited ({status})"),
            None => "closed its output".to_owned(),
        };
        // Its last words may still be in the pipe: the reader thread has the moment it needs to
        // reach their end (not longer: a process it left behind may hold stderr open).
        for _ in 0..20 {
            if self.stderr_read.load(Ordering::SeqCst) {
                break;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let stderr = self.stderr_tail();
        let stderr = if stderr.is_empty() { String::new() } else { format!("; its stderr ends with: {stderr}") };
        McpError::Transport(format!("MCP server {} {how}{stderr}", self.name))
    }

    /// SIGTERM to the server's process group now, SIGKILL after a grace period (on a thread that
    /// then reaps it).
    fn stop(&self) {
        let child = self.child.lock().ok().and_then(|mut c| c.take());
        self.stdin.lock().ok().and_then(|mut s| s.take());
        let Some(mut child) = child else { return };
        let pgid = child.id() as libc::pid_t;
        if let Ok(Some(_)) = child.try_wait() {
            // SAFETY: kill has no memory effects; a negative pid addresses the process group.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
            return;
        }
        // SAFETY: as above.
        unsafe { libc::kill(-pgid, libc::SIGTERM) };
        let _ = thread::Builder::new().name("openagent-mcp-stop".into()).spawn(move || {
            let deadline = std::time::Instant::now() + GRACE;
            while std::time::Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    break;
                }
                thread::sleep(Duration::from_millis(20));
            }
            // SAFETY: as above; the group may hold children that outlived their leader.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
            let _ = child.wait();
        });
    }
}

/// The thread that writes lines to the server's stdin, in order, until a write fails or the
/// sender is dropped (which closes the pipe).
fn writer(mut pipe: ChildStdin, name: &str) -> Result<std::sync::mpsc::Sender<String>, McpError> {
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    thread::Builder::new()
        .name("openagent-mcp-stdin".into())
        .spawn(move || {
            for line in rx {
                if pipe.write_all(line.as_bytes()).and_then(|()| pipe.flush()).is_err() {
                    break;
                }
            }
        })
        .map_err(|e| McpError::Transport(format!("MCP server {name}: {e}")))?;
    Ok(tx)
}

#[async_trait(?Send)]
impl McpTransport for StdioTransport {
    async fn send(&self, message: Value) -> Result<(), McpError> {
        let mut line = message.to_string();
        line.push('\n');
        let sent = match self.stdin.lock().ok().as_deref() {
            Some(Some(lines)) => lines.send(line).is_ok(),
            _ => return Err(McpError::Transport(format!("MCP server {} was stopped", self.name))),
        };
        // The writer ends when a write fails: the server is gone.
        if sent {
            Ok(())
        } else {
            Err(self.gone())
        }
    }

    async fn receive(&self) -> Result<Value, McpError> {
        let mut lines = self.lines.lock().await;
        loop {
            match lines.next().await {
                Some(line) if line.trim().is_empty() => {}
                Some(line) => return jsonrpc::parse(&line),
                None => return Err(self.gone()),
            }
        }
    }

    async fn close(&self) {
        self.stop();
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.stop();
    }
}
