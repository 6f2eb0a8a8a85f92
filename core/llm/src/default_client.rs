//! The module-level default client (spec 2.5): one [`Client`] per thread that code without a
//! client of its own reaches for. The core cannot read an environment (a browser has none), so
//! the host sets it, or names how to make it on first use: natively,
//! `openagent_host::default_client` builds it from the process environment.
//!
//! ```
//! use openagent_llm::{default_client, default_client_or_init, set_default_client, Client};
//!
//! assert!(default_client().is_err(), "none until a host sets one");
//! let lazily = default_client_or_init(Client::new); // made on the first call only
//! set_default_client(Client::new());
//! assert!(!std::rc::Rc::ptr_eq(&lazily, &default_client().unwrap()), "set replaces it");
//! ```

use std::cell::RefCell;
use std::rc::Rc;

use super::error::{ErrorKind, LlmError};
use super::router::Client;

thread_local! {
    // Per thread: clients hold `Rc`s and the browser has one thread.
    static DEFAULT: RefCell<Option<Rc<Client>>> = const { RefCell::new(None) };
}

/// Makes `client` the default, replacing any.
pub fn set_default_client(client: Client) {
    DEFAULT.with(|default| *default.borrow_mut() = Some(Rc::new(client)));
}

/// The default client; a configuration error when none is set.
pub fn default_client() -> Result<Rc<Client>, LlmError> {
    DEFAULT.with(|default| default.borrow().clone()).ok_or_else(|| {
        LlmError::new(ErrorKind::Configuration, "no default client: set one with set_default_client (e.g. Client::from_env)")
    })
}

/// The default client, made by `init` and kept if there is none yet.
pub fn default_client_or_init(init: impl FnOnce() -> Client) -> Rc<Client> {
    DEFAULT.with(|default| default.borrow_mut().get_or_insert_with(|| Rc::new(init())).clone())
}
