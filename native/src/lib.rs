//! # openagent-native
//!
//! The native host of OpenAgent: what the runtime-agnostic `openagent-core` asks of its host, done
//! with operating-system threads and no async runtime. [`NativeHttpClient`] implements the core's
//! `HttpClient` seam with ureq (a blocking client) on a worker thread per request, streaming the
//! body back through a channel; [`NativeRuntime`] implements the `Runtime` seam with the system
//! clock, `futures-timer`'s sleeps, and a `futures` `LocalPool` that the host drives with
//! [`NativeRuntime::block_on`]. [`LocalEnvironment`] implements the `ExecutionEnvironment` seam
//! over the real filesystem and `/bin/bash`. The one async runtime here is under the HTTP server
//! of `openagent serve` and `openagent web` ([`host::http_server`]): hyper on a tokio thread of
//! its own, which hands each request to a worker thread; none of it reaches the seams.
//!
//! Dependencies run one way: `cli/` (the commands) uses `host/` (the plumbing) and `store/` (the
//! session store), which must not import `cli/`; no crate of the core may depend on this one.
//!
//! ```no_run
//! use std::rc::Rc;
//! use openagent_core::llm::http::{HttpClient, HttpRequest};
//! use openagent_native::{NativeHttpClient, NativeRuntime};
//!
//! let runtime = Rc::new(NativeRuntime::new());
//! let http = NativeHttpClient::new();
//! let request = HttpRequest::post_json("http://127.0.0.1:8080/v1/chat/completions", b"{}".to_vec());
//! let status = runtime.block_on(async { http.send(request).await.map(|r| r.status) });
//! ```

pub mod cli;
mod exit_reason;
pub mod host;
#[cfg(feature = "sandbox")]
pub mod sandbox;
pub mod store;

pub use cli::web::{WebRoots, WebServer};
pub use cli::{agents, resume, run, serve, sessions, tui};
pub use host::agent_secrets;
pub use host::default_client::default_client;
pub use host::http::{NativeHttpClient, NativeHttpConfig};
pub use host::local_env::{secret_values, EnvPass, EnvPolicy, LocalEnvironment, Supervision};
pub use host::runtime::NativeRuntime;
