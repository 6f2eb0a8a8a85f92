//! The repeat guard (`SessionConfig::enable_repeat_guard`): a scripted model that makes the same
//! call again and again, as small local models do, is told nothing changed, then refused and
//! asked for its answer, well before loop detection's window of 10.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde_json::json;

use openagent_core::llm::{ContentPart, Role, ScriptStep, ToolChoice};
use openagent_core::session::{EventData, SessionConfig, StopReason};

use super::Harness;
use crate::testing::read;

const NOTE: &str = "[This exact call already ran in this task and gave this same result";

fn write_call() -> ScriptStep {
    ScriptStep::tool_call("write_file", json!({"file_path": "notes.txt", "content": "hello\n"}))
}

/// The result the model read for each of its calls, in order.
fn tool_results(h: &Harness) -> Vec<String> {
    let last = h.client.requests().pop().expect("a request");
    let parts = last.messages.into_iter().filter(|m| m.role == Role::Tool).flat_map(|m| m.content);
    parts
        .filter_map(|part| match part {
            ContentPart::ToolResult { tool_result } => Some(tool_result.content.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_same_write_is_noted_then_refused_and_the_model_asked_to_answer() {
    let mut steps: Vec<_> = (0..4).map(|_| write_call()).collect();
    steps.push(ScriptStep::text("Wrote notes.txt."));
    // One step after the answer that the session must never ask for.
    steps.push(ScriptStep::text("unused"));
    let h = Harness::new(steps);
    h.submit("write hello to notes.txt").unwrap();

    let results = tool_results(&h);
    assert_eq!(results.len(), 4, "{results:?}");
    assert_eq!(results[0], "Wrote 6 bytes to notes.txt (new file).");
    let unchanged = "notes.txt already holds exactly this content (6 bytes); nothing was written.";
    assert_eq!(results[1], unchanged);
    assert!(results[2].starts_with(&format!("{unchanged}\n\n{NOTE}")), "{results:?}");
    assert!(results[3].starts_with("Not run: you already made this exact write_file call twice"), "{results:?}");
    let refused =
        h.drain().into_iter().filter(|e| matches!(&e.data, EventData::ToolDecision { source, .. } if source == "repeat"));
    assert_eq!(refused.count(), 1);

    let requests = h.client.requests();
    let choices: Vec<_> = requests.iter().map(|r| r.tool_choice.clone()).collect();
    assert_eq!(choices.last(), Some(&Some(ToolChoice::None)), "the request after the refusal asks for an answer");
    assert!(choices[..choices.len() - 1].iter().all(|c| *c == Some(ToolChoice::Auto)), "{choices:?}");
    assert_eq!(h.session.last_result().unwrap().result_text, "Wrote notes.txt.");
    assert_eq!(read(&*h.env, "notes.txt"), "hello\n");
}

#[test]
fn a_call_whose_result_changed_is_no_repeat() {
    // A test run, a fix, the same test run: the second run prints something else.
    let run = || ScriptStep::tool_call("shell", json!({"command": "cat status"}));
    let fix = |text: &str| ScriptStep::tool_call("write_file", json!({"file_path": "status", "content": text}));
    let steps = vec![fix("failing\n"), run(), fix("passing\n"), run(), ScriptStep::text("fixed")];
    let h = Harness::new(steps);
    assert_eq!(h.submit("fix it").unwrap(), StopReason::Completed);
    let results = tool_results(&h);
    assert!(results.iter().all(|r| !r.contains(NOTE) && !r.starts_with("Not run")), "{results:?}");
    assert!(h.client.requests().iter().all(|r| r.tool_choice == Some(ToolChoice::Auto)));
}

#[test]
fn each_input_starts_afresh() {
    let echo = || ScriptStep::tool_call("echo", json!({"text": "same"}));
    let h = Harness::new(vec![echo(), echo(), ScriptStep::text("one"), echo(), ScriptStep::text("two")]);
    h.submit("first").unwrap();
    h.submit("second").unwrap();
    let results = tool_results(&h);
    assert_eq!(results.len(), 3);
    assert!(results[1].contains(NOTE), "{results:?}");
    assert!(!results[2].contains(NOTE), "a new input is not a repeat of the last one: {results:?}");
}

#[test]
fn the_guard_can_be_turned_off() {
    let config = SessionConfig { enable_repeat_guard: false, ..SessionConfig::default() };
    let echo = || ScriptStep::tool_call("echo", json!({"text": "same"}));
    let h = Harness::with(vec![echo(), echo(), echo(), echo(), ScriptStep::text("done")], config, |p| p);
    h.submit("loop").unwrap();
    let results = tool_results(&h);
    assert_eq!(results, ["same"; 4]);
    assert!(h.client.requests().iter().all(|r| r.tool_choice == Some(ToolChoice::Auto)));
}

#[test]
fn the_same_failure_is_noted_then_refused_and_the_model_keeps_its_tools() {
    let edit = || ScriptStep::tool_call("edit_file", json!({"file_path": "a.txt", "old_string": "nope", "new_string": "x"}));
    let h = Harness::new(vec![edit(), edit(), edit(), ScriptStep::text("giving up")]);
    crate::testing::write(&*h.env, "a.txt", "hello\n");
    h.submit("edit a.txt").unwrap();
    let results = tool_results(&h);
    assert_eq!(results.len(), 3);
    assert!(results[1].ends_with("[This exact call already failed in this task with this same error. Do not send it again: read the file or change the arguments.]"), "{results:?}");
    assert!(
        results[2].starts_with(
            "Not run: you already made this exact edit_file call twice in this task, and it failed the same way both times:"
        ),
        "{results:?}"
    );
    assert!(h.client.requests().iter().all(|r| r.tool_choice == Some(ToolChoice::Auto)), "a failure is no sign the work is done");
}
