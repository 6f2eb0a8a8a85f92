//! Garbled tool calls from small models: the general profile reads them as meant and says so in
//! a warning; the provider profiles keep spec 2.8's error for the model to fix.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::rc::Rc;

use futures::executor::block_on;

use openagent_core::llm::{ContentPart, Message, Role, ScriptStep, ScriptedClient, ToolCall};
use openagent_core::profiles::{CoreProfile, GeneralProfile, ProviderProfile};
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::{EventData, Session, SessionEvent};
use openagent_core::tools::ToolRegistry;
use openagent_memenv::MemoryEnvironment;

use crate::testing::{read, write};

/// Runs one input in which the model makes `call`, then answers; the results it read and the events.
fn run(profile: Rc<dyn ProviderProfile>, call: ToolCall) -> (Vec<(String, bool)>, Vec<SessionEvent>) {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    write(&*env, "a.py", "print('hi')\n");
    let ScriptStep::Reply(mut reply) = ScriptStep::text("") else { unreachable!() };
    reply.message = Message::new(Role::Assistant, vec![ContentPart::ToolCall { tool_call: call }]);
    let client = Rc::new(ScriptedClient::new([ScriptStep::Reply(reply), ScriptStep::text("done")]));
    let session = Session::builder(profile, env.clone(), client.clone(), runtime).build();
    let mut events = session.events();
    block_on(session.submit("go")).unwrap();
    let last = client.requests().pop().unwrap();
    let results = last.messages.into_iter().flat_map(|m| m.content).filter_map(|part| match part {
        ContentPart::ToolResult { tool_result } => Some((tool_result.content.to_string(), tool_result.is_error)),
        _ => None,
    });
    let mut seen = Vec::new();
    while let Some(event) = events.try_recv() {
        seen.push(event);
    }
    assert_eq!(read(&*env, "a.py"), "print('hi')\n");
    (results.collect(), seen)
}

fn warnings(events: &[SessionEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.data {
            EventData::Warning { message } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

fn general() -> Rc<dyn ProviderProfile> {
    Rc::new(GeneralProfile::new("local"))
}

#[test]
fn fenced_arguments_run_with_a_warning() {
    let call = ToolCall::from_raw("c1", "read_file", "```json\n{\"file_path\": \"a.py\",}\n```");
    let (results, events) = run(general(), call);
    assert_eq!(results, [("   1 | print('hi')".to_owned(), false)]);
    assert_eq!(warnings(&events), ["Read the read_file call c1 leniently: repaired a code fence, trailing commas."]);
    let started = events.iter().find_map(|e| match &e.data {
        EventData::ToolCallStart { arguments, .. } => Some(arguments.clone()),
        _ => None,
    });
    assert_eq!(started, Some(serde_json::json!({"file_path": "a.py"})), "hosts see the arguments as run");
}

#[test]
fn a_tool_name_with_spaces_runs_the_tool() {
    let call = ToolCall::new("c1", "Read File", serde_json::json!({"file_path": "a.py"}));
    let (results, events) = run(general(), call);
    assert_eq!(results, [("   1 | print('hi')".to_owned(), false)]);
    assert_eq!(warnings(&events), ["Read the read_file call c1 leniently: repaired the tool name."]);
}

#[test]
fn the_provider_profiles_keep_the_error() {
    let mut registry = ToolRegistry::new();
    openagent_core::tools::register_core_tools(&mut registry);
    let core: Rc<dyn ProviderProfile> = Rc::new(CoreProfile::new("m", registry));
    let (results, events) = run(core, ToolCall::from_raw("c1", "read_file", "```json\n{\"file_path\": \"a.py\"}\n```"));
    assert!(results[0].1 && results[0].0.starts_with("Invalid arguments for tool read_file"), "{results:?}");
    assert!(warnings(&events).is_empty());
}

#[test]
fn an_empty_or_unreadable_call_is_a_clear_tool_error() {
    let (results, _) = run(general(), ToolCall::from_raw("c1", "", ""));
    assert_eq!(results.len(), 1);
    assert!(results[0].1 && results[0].0.starts_with("The tool call names no tool. Call one of: read_file,"), "{results:?}");
    let (results, events) = run(general(), ToolCall::from_raw("c1", "read_file", "{\"file_path\": "));
    assert!(results[0].1 && results[0].0.starts_with("Invalid arguments for tool read_file"), "{results:?}");
    assert!(warnings(&events).is_empty());
}
