//! Compaction over real HTTP: a provider's `context_length` error (the mock server's 400 with
//! each API's own error body) makes the session summarise its older turns and send the call
//! again, once, for every wire format. What the mock recorded shows what each request carried.

use std::rc::Rc;

use futures::executor::block_on;
use openagent_core::llm::LlmClient;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::{CompactionReason, EventData, StopReason};
use openagent_core::tools::{register_core_tools, ToolRegistry};
use openagent_core::{CoreProfile, Session, SessionConfig};
use openagent_memenv::MemoryEnvironment;
use openagent_tests::{Action, Reply, Step};

use openagent_tests::over_http::{assert_no_key_in, drain, model, serve, APIS};

fn session_over(client: Rc<dyn LlmClient>) -> Session {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let mut registry = ToolRegistry::new();
    register_core_tools(&mut registry);
    let profile = Rc::new(CoreProfile::new("mock-model", registry));
    // Keep only the newest input whole, so the first one is what gets summarised.
    let config = SessionConfig { compaction_keep_recent_tokens: Some(1), ..SessionConfig::default() };
    Session::builder(profile, Rc::new(MemoryEnvironment::new(runtime.clone())), client, runtime).config(config).build()
}

fn too_long() -> Step {
    let message = Some("This model's maximum context length is 32768 tokens; the prompt is too long.".to_owned());
    Step { expect: None, action: Action::Error { status: 400, retry_after: None, message } }
}

#[test]
fn a_context_length_error_compacts_and_retries_once() {
    for api in APIS {
        let server = serve([
            Step::reply(Reply::text("The capital of France is Paris.")),
            too_long(),
            Step::reply(Reply::text("SUMMARY: the user asked for the capital of France; it is Paris.")),
            Step::reply(Reply::text("Berlin.")),
        ]);
        let session = session_over(model(api, &server));
        let mut receiver = session.events();
        block_on(session.submit("What is the capital of France?")).unwrap();
        let stop = block_on(session.submit("And of Germany?")).expect("compacted and retried");
        assert_eq!(stop, StopReason::Completed, "{api}");

        let requests = server.requests();
        assert_eq!(requests.len(), 4, "{api}: the first answer, the refused call, the summary, the retry");
        let body = |i: usize| requests[i].body.to_string();
        assert!(body(1).contains("capital of France") && body(1).contains("And of Germany"), "{api}");
        assert!(body(2).contains("What is the capital of France?"), "{api}: the summary request reads the old turns");
        assert!(!body(2).contains("\"tools\""), "{api}: the summary request offers no tools");
        assert!(body(3).contains("SUMMARY: the user asked"), "{api}: the retry carries the summary");
        assert!(!body(3).contains("The capital of France is Paris."), "{api}: and not the summarised turns");
        assert!(body(3).contains("And of Germany?"), "{api}: the current input stays");

        let events = drain(&mut receiver);
        let ends: Vec<_> = events
            .iter()
            .filter_map(|e| match &e.data {
                EventData::CompactionEnd { reason, summarized_turns, error, .. } => {
                    Some((*reason, *summarized_turns, error.clone()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(ends, [(CompactionReason::Overflow, 2, None)], "{api}");
        assert!(!events.iter().any(|e| matches!(e.data, EventData::Error { .. })), "{api}: no error reached the host");
        assert_no_key_in(&events);
    }
}
