//! # openagent-host
//!
//! What the runtime-agnostic `openagent-core` asks of its host on a real machine, done with
//! operating-system threads and no async runtime. [`NativeHttpClient`] implements the core's
//! `HttpClient` seam with ureq (a blocking client) on a worker thread per request, streaming the
//! body back through a channel; [`NativeRuntime`] implements the `Runtime` seam with the system
//! clock, `futures-timer`'s sleeps, and a `futures` `LocalPool` that the host drives with
//! [`NativeRuntime::block_on`]. [`LocalEnvironment`] implements the `ExecutionEnvironment` seam
//! over the real filesystem and `/bin/bash`, each command supervised so that none outlives its
//! call and, under a sandbox policy below full access, confined by the kernel (openagent-confine:
//! Landlock, seccomp, mounts in the command's namespace); [`local_env::check_sandbox`] says before
//! a run whether this machine can. Under them are the process-level parts: signals, the agent's own secrets, hooks run as
//! commands, the MCP stdio transport, URLs and bounded reads of regular files.
//!
//! It depends on the core crates (and openagent-confine) only: it knows nothing of sessions being run (the runner), the
//! store or the commands, and must not import them.
//!
//! ```no_run
//! use std::rc::Rc;
//! use openagent_core::llm::http::{HttpClient, HttpRequest};
//! use openagent_host::{NativeHttpClient, NativeRuntime};
//!
//! let runtime = Rc::new(NativeRuntime::new());
//! let http = NativeHttpClient::new();
//! let request = HttpRequest::post_json("http://127.0.0.1:8080/v1/chat/completions", b"{}".to_vec());
//! let status = runtime.block_on(async { http.send(request).await.map(|r| r.status) });
//! ```

pub mod agent_secrets;
pub mod default_client;
pub mod hooks;
pub mod http;
pub mod local_env;
pub mod mcp_stdio;
pub mod regular_file;
pub mod runtime;
pub mod signals;
pub mod url;

pub use default_client::default_client;
pub use http::{NativeHttpClient, NativeHttpConfig};
pub use local_env::{secret_values, EnvPass, EnvPolicy, LocalEnvironment, Supervision};
pub use runtime::NativeRuntime;
