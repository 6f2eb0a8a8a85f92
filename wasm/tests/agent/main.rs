//! The JavaScript API under Node, run by wasm-bindgen-test-runner: `Agent` driven as a page
//! would drive it, with a scripted `fetch` in place of a model server. One test binary, so that
//! the helpers in `support` serve every module (a crash is tested on the built package: web/tests/crash.test.mjs).
#![cfg(target_arch = "wasm32")]

mod bindings;
mod catalog;
mod commands;
mod fetch_body;
mod governance;
mod images;
mod read_timeout;
mod sandbox;
mod snapshot;
mod support;
