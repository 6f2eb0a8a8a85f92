//! # openagent-native
//!
//! The native host of OpenAgent: what the runtime-agnostic `openagent-core` asks of its host, done
//! with operating-system threads and no async runtime. [`NativeHttpClient`] implements the core's
//! `HttpClient` seam with ureq (a blocking client) on a worker thread per request, streaming the
//! body back through a channel; [`NativeRuntime`] implements the `Runtime` seam with the system
//! clock, `futures-timer`'s sleeps, and a `futures` `LocalPool` that the host drives with
//! [`NativeRuntime::block_on`]. [`LocalEnvironment`] implements the `ExecutionEnvironment` seam
//! over the real filesystem and `/bin/bash`.
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

pub mod agent_secrets;
pub mod agents;
mod exit_reason;
mod http;
mod http_server;
mod local_env;
pub mod resume;
pub mod run;
mod runtime;
#[cfg(feature = "sandbox")]
pub mod sandbox;
pub mod serve;
pub mod sessions;
mod signals;
pub mod store;
mod url;
mod web;

pub use http::{NativeHttpClient, NativeHttpConfig};
pub use local_env::{secret_values, EnvPass, EnvPolicy, LocalEnvironment};
pub use runtime::NativeRuntime;
pub use web::{WebRoots, WebServer};
