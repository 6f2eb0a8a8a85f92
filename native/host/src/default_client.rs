//! The LLM layer's module-level default client (spec 2.5), made lazily from this process's
//! environment: the core cannot read one, so the native host does it on first use.

use std::rc::Rc;

use openagent_core::llm::{default_client_or_init, Client};
use openagent_core::setup::SetupError;

use super::http::NativeHttpClient;

/// The thread's default client: the one a host set with `set_default_client`, else one made now
/// by `Client::from_env` from the process environment and kept. The error is a variable that
/// cannot be used (a base URL that is not http(s)); it is not kept, so a fixed one is read again.
pub fn default_client() -> Result<Rc<Client>, SetupError> {
    if let Ok(client) = openagent_core::llm::default_client() {
        return Ok(client);
    }
    let client = Client::from_env(|name| std::env::var(name).ok(), Rc::new(NativeHttpClient::new()))?;
    Ok(default_client_or_init(|| client))
}

#[cfg(test)]
mod tests {
    use openagent_core::llm::set_default_client;

    use super::*;

    #[test]
    fn made_once_from_the_environment_unless_a_host_set_one() {
        // A thread of its own: the default is per thread, and other tests may set theirs.
        std::thread::spawn(|| {
            let first = default_client().unwrap();
            let from_env = Client::from_env(|name| std::env::var(name).ok(), Rc::new(NativeHttpClient::new())).unwrap();
            assert_eq!(first.provider_names(), from_env.provider_names());
            assert!(Rc::ptr_eq(&first, &default_client().unwrap()), "kept, not made again");
            set_default_client(Client::new());
            assert!(!Rc::ptr_eq(&first, &default_client().unwrap()), "a host's own replaces it");
        })
        .join()
        .unwrap();
    }
}
