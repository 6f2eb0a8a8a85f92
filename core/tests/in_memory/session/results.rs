//! Structured results: the correction loop, runs without a submission, `give_up`, every outcome
//! status, and the `result` event that ends each input.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::rc::Rc;

use futures::executor::block_on;
use serde_json::{json, Value};

use openagent_core::llm::{ErrorKind, ScriptStep, ScriptedClient, ToolResult};
use openagent_core::profiles::CoreProfile;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::*;
use openagent_core::tools::ToolRegistry;
use openagent_memenv::MemoryEnvironment;

use crate::testing::core_session;

/// A review's result: a summary of at least 10 characters, an approval, and issues with a severity.
fn review_schema() -> Value {
    json!({
        "type": "object",
        "required": ["summary", "approved", "issues"],
        "properties": {
            "summary": {"type": "string", "minLength": 10},
            "approved": {"type": "boolean"},
            "issues": {"type": "array", "items": {"$ref": "#/$defs/issue"}}
        },
        "additionalProperties": false,
        "$defs": {
            "issue": {
                "type": "object",
                "required": ["severity", "description"],
                "properties": {"severity": {"enum": ["low", "medium", "high"]}, "description": {"type": "string"}}
            }
        }
    })
}

struct Run {
    session: Session,
    client: Rc<ScriptedClient>,
    stop: Result<StopReason, SessionError>,
    events: Vec<SessionEvent>,
}

fn run(schema: Option<Value>, config: SessionConfig, steps: Vec<ScriptStep>) -> Run {
    let client = Rc::new(ScriptedClient::new(steps));
    let mut builder = core_session(client.clone()).0.config(config);
    if let Some(schema) = schema {
        builder = builder.output_schema(schema).expect("a valid output schema");
    }
    let session = builder.build();
    let mut receiver = session.events();
    let stop = block_on(session.submit("review the change"));
    let events = std::iter::from_fn(|| receiver.try_recv()).collect();
    Run { session, client, stop, events }
}

fn submit(arguments: Value) -> ScriptStep {
    ScriptStep::tool_call(SUBMIT_RESULT, arguments)
}

fn results(session: &Session) -> Vec<ToolResult> {
    Turn::tool_results(&session.history())
}

impl Run {
    fn result(&self) -> RunResult {
        self.session.last_result().expect("every input ends with a result")
    }

    fn kinds(&self) -> Vec<&'static str> {
        self.events.iter().map(SessionEvent::kind).collect()
    }
}

#[test]
fn invalid_invalid_valid_is_corrected_into_a_success() {
    let valid = json!({"summary": "The change is sound.", "approved": true, "issues": []});
    let steps = vec![
        submit(json!({"summary": "ok", "approved": "yes"})),
        submit(json!({"summary": "Looks fine overall.", "approved": true, "issues": [{"severity": "urgent"}], "extra": 1})),
        submit(valid.clone()),
        ScriptStep::text("never asked for"),
    ];
    let r = run(Some(review_schema()), SessionConfig::default(), steps);
    assert_eq!(r.stop, Ok(StopReason::Completed));
    assert_eq!(r.client.calls(), 3, "a valid submission ends the input without another model call");

    let refusals = results(&r.session);
    let first = &refusals[0].content;
    assert!(refusals[0].is_error && first.starts_with("The result does not match the required structure (attempt 1 of 3)"));
    // Every problem, each with its path: the short summary, the wrong type, the missing field.
    for needle in ["/summary", "/approved", "issues"] {
        assert!(first.contains(needle), "{needle} not named in {first}");
    }
    let second = &refusals[1].content;
    assert!(second.contains("attempt 2 of 3"), "{second}");
    for needle in ["/issues/0/severity", "/issues/0", "extra"] {
        assert!(second.contains(needle), "{needle} not named in {second}");
    }
    assert!(!refusals[2].is_error);

    let result = r.result();
    assert_eq!(result.result_data, Some(valid));
    assert_eq!(result.outcome.status, OutcomeStatus::Success);
    assert_eq!((result.outcome.metrics.retries, result.outcome.metrics.turns), (2, 3));
    assert_eq!((result.outcome.metrics.actions_failed, result.outcome.metrics.actions_succeeded), (2, 1));
    let end = &r.kinds()[r.kinds().len() - 2..];
    assert_eq!(end, ["result", "processing_end"]);
}

#[test]
fn the_model_is_told_to_submit_and_sees_the_schema() {
    let r = run(
        Some(review_schema()),
        SessionConfig::default(),
        vec![submit(json!({"summary": "All good here.", "approved": true, "issues": []}))],
    );
    let request = &r.client.requests()[0];
    let tool = request.tools.iter().find(|t| t.name == SUBMIT_RESULT).expect("submit_result offered");
    assert_eq!(tool.parameters, review_schema());
    assert!(request.tools.iter().any(|t| t.name == GIVE_UP));
    assert!(request.messages[0].text().contains("you MUST call `submit_result`"));
}

#[test]
fn answers_without_a_submission_are_reminded_then_fail() {
    let steps = vec![ScriptStep::text("Here is my review: fine."), ScriptStep::text("Still fine."), ScriptStep::text("Fine!")];
    let r = run(Some(review_schema()), SessionConfig::default(), steps);
    assert_eq!(r.stop, Ok(StopReason::NoResult));
    let reminders = r.events.iter().filter(|e| e.kind() == "steering_injected").count();
    assert_eq!(reminders, 2, "reminded after the first and second answers, not after the last");
    let result = r.result();
    assert_eq!(result.outcome.status, OutcomeStatus::Failure);
    assert_eq!(result.result_data, None);
    assert_eq!(result.result_text, "Agent did not call submit_result tool with a valid result within 3 attempts.");
    assert_eq!(result.outcome.evidence[0].kind, EvidenceKind::StopReason);
}

#[test]
fn refusals_that_use_up_the_attempts_fail() {
    let config = SessionConfig { max_result_attempts: 2, ..SessionConfig::default() };
    let r =
        run(Some(review_schema()), config, vec![submit(json!({})), submit(json!({"approved": 1})), ScriptStep::text("unused")]);
    assert_eq!(r.stop, Ok(StopReason::NoResult));
    assert!(results(&r.session)[1].content.contains("That was the last attempt."));
    assert_eq!(r.client.calls(), 2);
}

#[test]
fn give_up_ends_the_input_with_or_without_partial_work() {
    let r = run(
        Some(review_schema()),
        SessionConfig::default(),
        vec![ScriptStep::tool_call(GIVE_UP, json!({"reason": "The diff is missing."}))],
    );
    assert_eq!(r.stop, Ok(StopReason::GaveUp));
    let result = r.result();
    assert_eq!((result.outcome.status, result.result_text.as_str()), (OutcomeStatus::GiveUp, "Gave up: The diff is missing."));
    assert_eq!(result.outcome.evidence[0].kind, EvidenceKind::SelfAssessment);

    let partial =
        ScriptStep::tool_call(GIVE_UP, json!({"reason": "Tests cannot run here.", "completed": "Reviewed 3 of 4 files."}));
    let r = run(Some(review_schema()), SessionConfig::default(), vec![partial]);
    assert_eq!(r.result().outcome.status, OutcomeStatus::PartialSuccess);
    assert_eq!(r.result().outcome.evidence[0].data, Some(json!({"completed": "Reviewed 3 of 4 files."})));
    // A give_up without a reason is refused like any invalid call.
    let r = run(
        Some(review_schema()),
        SessionConfig::default(),
        vec![ScriptStep::tool_call(GIVE_UP, json!({})), ScriptStep::text("x")],
    );
    assert!(results(&r.session)[0].is_error);
}

#[test]
fn every_stop_has_its_outcome() {
    // No schema: a plain answer is `done`, and the result carries the text and no data.
    let r = run(None, SessionConfig::default(), vec![ScriptStep::text("Reviewed.")]);
    let result = r.result();
    assert_eq!(
        (result.outcome.status, result.result_text.as_str(), result.result_data),
        (OutcomeStatus::Done, "Reviewed.", None)
    );
    assert!(r.client.requests()[0].tools.iter().all(|t| t.name != SUBMIT_RESULT));

    // A limit: timeout, with the limit as evidence.
    let config = SessionConfig { max_turns: 1, ..SessionConfig::default() };
    let r =
        run(Some(review_schema()), config, vec![ScriptStep::tool_call("glob", json!({"pattern": "*"})), ScriptStep::text("x")]);
    assert_eq!(r.stop, Ok(StopReason::TurnLimit));
    let outcome = r.result().outcome;
    assert_eq!(outcome.status, OutcomeStatus::Timeout);
    assert_eq!(outcome.evidence[0].data.as_ref().unwrap()["limit"], "max_turns");

    // A model error: failure, naming the error.
    let r = run(Some(review_schema()), SessionConfig::default(), vec![ScriptStep::fail(ErrorKind::Authentication, "bad key")]);
    assert!(r.stop.is_err());
    let result = r.result();
    assert_eq!(result.outcome.status, OutcomeStatus::Failure);
    assert!(result.result_text.contains("bad key"), "{}", result.result_text);
    assert_eq!(result.outcome.evidence[0].data, Some(json!({"error_kind": "authentication"})));
    assert!(r.kinds().contains(&"result"));
}

#[test]
fn output_schemas_must_be_object_schemas_that_compile() {
    let builder = || {
        let runtime = Rc::new(VirtualRuntime::new(|_| {}));
        let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
        let profile = Rc::new(CoreProfile::new("m", ToolRegistry::new()));
        Session::builder(profile, env, Rc::new(ScriptedClient::new(vec![])), runtime)
    };
    assert!(builder().output_schema(json!({"type": "array"})).is_err());
    assert!(builder().output_schema(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}})).is_err());
    assert!(builder().output_schema(json!({"type": "object", "properties": {"n": {"minimum": "ten"}}})).is_err());
    assert!(builder().output_schema(review_schema()).is_ok());
}
