//! The plumbing of the native host: what the core's seams need on a real machine (the local
//! environment of files and processes, the HTTP client, the runtime) and the process-level parts
//! under them (signals, the agent's own secrets, an HTTP/1.1 server on hyper, URLs). It knows
//! nothing of the commands (`crate::cli`) or the store.

pub mod agent_secrets;
pub mod default_client;
pub mod hooks;
pub mod http;
pub mod http_server;
pub mod local_env;
pub mod mcp_stdio;
pub mod regular_file;
pub mod runtime;
pub mod signals;
pub mod url;
