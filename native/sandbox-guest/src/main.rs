//! The guest's entry point: reads its [`GuestConfig`] from its first argument, runs the task on
//! the preopened directory and reports every event and the end through the host imports. Under
//! any target but `wasm32-wasip1` it only says where it belongs.

#[cfg(target_os = "wasi")]
fn main() {
    std::process::exit(wasi::main());
}

#[cfg(not(target_os = "wasi"))]
fn main() {
    eprintln!(
        "openagent-sandbox-guest runs inside `openagent sandbox run`; build it with \
         `cargo build -p openagent-sandbox-guest --release --target wasm32-wasip1`"
    );
    std::process::exit(2);
}

#[cfg(target_os = "wasi")]
mod wasi {
    use std::pin::pin;
    use std::rc::Rc;

    use futures::executor::LocalPool;
    use futures::future::{select, Either};
    use futures::StreamExt;
    use openagent_core::llm::catalog::Catalog;
    use openagent_core::llm::{LlmError, RetryPolicy};
    use openagent_core::setup::{profile, KeySource, ProviderKind, ProviderSettings};
    use openagent_core::{Session, SessionConfig, SessionError};
    use openagent_sandbox_guest::abi::{emit_event, finish, ImportHttpClient};
    use openagent_sandbox_guest::{GuestConfig, GuestEnd, GuestRuntime, WasiEnvironment, WORKSPACE};

    pub fn main() -> i32 {
        let Some(config) = std::env::args().nth(1) else {
            eprintln!("openagent-sandbox-guest: no configuration given");
            return 2;
        };
        let config: GuestConfig = match serde_json::from_str(&config) {
            Ok(config) => config,
            Err(e) => {
                eprintln!("openagent-sandbox-guest: bad configuration: {e}");
                return 2;
            }
        };
        let kind = match ProviderKind::parse(&config.provider) {
            Ok(kind) => kind,
            Err(e) => {
                eprintln!("openagent-sandbox-guest: {e}");
                return 2;
            }
        };
        let mut pool = LocalPool::new();
        let runtime = Rc::new(GuestRuntime::new(pool.spawner()));
        // The key stays with the host, which adds it to every request it forwards.
        let settings = ProviderSettings {
            kind,
            model: Some(config.model.clone()),
            key: KeySource::Host,
            base_url: config.base_url,
            headers: config.headers,
        };
        let session = Session::builder(
            profile(kind, &config.model, Catalog::builtin()),
            Rc::new(WasiEnvironment::new(WORKSPACE, runtime.clone())),
            settings.client(Rc::new(ImportHttpClient), false),
            runtime,
        )
        .id(config.session_id)
        .config(SessionConfig {
            max_turns: config.max_turns,
            max_tool_rounds_per_input: config.max_tool_rounds,
            reasoning_effort: config.reasoning_effort,
            ..SessionConfig::default()
        })
        .retries(RetryPolicy::default())
        .build();
        let result = pool.run_until(drive(&session, config.task));
        let last = session.last_result();
        let (stop, error) = match result {
            Ok(stop) => (Some(stop), None),
            Err(SessionError::Llm(error)) => (None, Some(error)),
            Err(other) => (None, Some(LlmError::new(openagent_core::llm::ErrorKind::Configuration, other.to_string()))),
        };
        finish(&GuestEnd {
            stop,
            error,
            usage: session.total_usage(),
            outcome: last.as_ref().map(|r| r.outcome.clone()),
            result_data: last.and_then(|r| r.result_data),
        });
        0
    }

    /// Submits the task and hands each event to the host as it happens.
    async fn drive(session: &Session, task: String) -> Result<openagent_core::session::StopReason, SessionError> {
        let mut events = session.events();
        let result = {
            let mut submit = pin!(session.submit(task));
            loop {
                match select(submit.as_mut(), events.next()).await {
                    Either::Left((result, _)) => break result,
                    Either::Right((Some(event), _)) => emit_event(&event),
                    Either::Right((None, _)) => break submit.await,
                }
            }
        };
        while let Some(event) = events.try_recv() {
            emit_event(&event);
        }
        result
    }
}
