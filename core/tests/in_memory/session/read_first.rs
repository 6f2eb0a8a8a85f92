//! The general profile's read-before-write rule (`ProviderProfile::requires_read_before_write`):
//! `write_file` and `edit_file` refuse to change an existing file the model has not read or
//! written in the session. The provider profiles keep spec 3.3's tools as they are.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::rc::Rc;

use futures::executor::block_on;
use serde_json::{json, Value};

use openagent_core::llm::{ScriptStep, ScriptedClient};
use openagent_core::profiles::{AnthropicProfile, GeneralProfile, ProviderProfile};
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::{Session, Turn};
use openagent_memenv::MemoryEnvironment;

use crate::testing::{read, write};

/// Runs one input of `calls` against `files`; the results the model read, and the files after.
fn run(
    profile: impl ProviderProfile + 'static,
    files: &[(&str, &str)],
    calls: Vec<(&str, Value)>,
) -> (Vec<(String, bool)>, Rc<MemoryEnvironment>) {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    for (path, content) in files {
        write(&*env, path, content);
    }
    let mut steps: Vec<_> = calls.into_iter().map(|(tool, args)| ScriptStep::tool_call(tool, args)).collect();
    steps.push(ScriptStep::text("done"));
    let session = Session::builder(Rc::new(profile), env.clone(), Rc::new(ScriptedClient::new(steps)), runtime).build();
    block_on(session.submit("go")).unwrap();
    let results = Turn::tool_results(&session.history()).into_iter().map(|r| (r.content.to_string(), r.is_error)).collect();
    (results, env)
}

const CALC: &str = "def add(a, b):\n    return a + b\n";

#[test]
fn an_unread_file_is_not_overwritten_or_edited_until_the_model_reads_it() {
    let (results, env) = run(
        GeneralProfile::new("local"),
        &[("calc.py", CALC)],
        vec![
            ("write_file", json!({"file_path": "calc.py", "content": "def mul(a, b):\n    return a * b\n"})),
            ("edit_file", json!({"file_path": "calc.py", "old_string": "a + b", "new_string": "a - b"})),
            ("read_file", json!({"file_path": "./calc.py"})),
            ("edit_file", json!({"file_path": "calc.py", "old_string": "a + b", "new_string": "b + a"})),
        ],
    );
    let refused = "Not changed: calc.py already exists and you have not read it yet. Read it with read_file first";
    assert!(results[0].1 && results[0].0.starts_with(&format!("Tool error (write_file): {refused}")), "{results:?}");
    assert!(results[1].1 && results[1].0.starts_with(&format!("Tool error (edit_file): {refused}")), "{results:?}");
    assert!(!results[2].1);
    assert_eq!(results[3], ("Replaced 1 occurrence in calc.py.".to_owned(), false));
    assert_eq!(read(&*env, "calc.py"), "def add(a, b):\n    return b + a\n");
}

#[test]
fn a_file_the_session_wrote_can_be_changed_and_new_files_need_no_read() {
    let (results, env) = run(
        GeneralProfile::new("local"),
        &[],
        vec![
            ("write_file", json!({"file_path": "src/new.py", "content": "x = 1\n"})),
            ("edit_file", json!({"file_path": "/workspace/src/new.py", "old_string": "x = 1", "new_string": "x = 2"})),
            ("write_file", json!({"file_path": "src/new.py", "content": "x = 3\n"})),
        ],
    );
    assert!(results.iter().all(|(_, error)| !error), "{results:?}");
    assert_eq!(read(&*env, "src/new.py"), "x = 3\n");
}

#[test]
fn an_append_needs_no_read_as_it_loses_nothing() {
    let (results, env) = run(
        GeneralProfile::new("local"),
        &[("calc.py", CALC)],
        vec![("write_file", json!({"file_path": "calc.py", "content": "def sub(a, b):\n    return a - b\n", "append": true}))],
    );
    assert_eq!(results[0], ("Wrote 32 bytes to calc.py (added at the end of the existing file).".to_owned(), false));
    assert_eq!(read(&*env, "calc.py"), [CALC, "def sub(a, b):\n    return a - b\n"].concat());
}

const MODULE: &str = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";
const MUL: &str = "def mul(a, b):\n    return a * b\n";

#[test]
fn a_rewrite_that_would_drop_most_of_a_file_is_refused_once_and_append_is_offered() {
    let first = ("read_file", json!({"file_path": "calc.py"}));
    let rewrite = ("write_file", json!({"file_path": "calc.py", "content": MUL}));
    let append = ("write_file", json!({"file_path": "calc.py", "content": MUL, "append": true}));
    let (results, env) = run(GeneralProfile::new("local"), &[("calc.py", MODULE)], vec![first, rewrite, append]);
    let refused = "Tool error (write_file): Not written: calc.py has 4 lines and your content keeps 0 of them, so the \
                   others would be lost. To add your content at the end of the file, call write_file with append set to true";
    assert!(results[1].1 && results[1].0.starts_with(refused), "{results:?}");
    assert!(!results[2].1, "{results:?}");
    assert_eq!(read(&*env, "calc.py"), [MODULE, MUL].concat());
}

#[test]
fn the_same_rewrite_sent_again_goes_through() {
    let first = ("read_file", json!({"file_path": "calc.py"}));
    let rewrite = ("write_file", json!({"file_path": "calc.py", "content": MUL}));
    let (results, env) = run(GeneralProfile::new("local"), &[("calc.py", MODULE)], vec![first, rewrite.clone(), rewrite]);
    assert!(results[1].1 && !results[2].1, "{results:?}");
    assert_eq!(read(&*env, "calc.py"), MUL);
}

#[test]
fn provider_profiles_overwrite_an_unread_file() {
    let call = ("write_file", json!({"file_path": "calc.py", "content": "x = 1\n"}));
    let (results, env) = run(AnthropicProfile::new("claude-sonnet-4-5"), &[("calc.py", CALC)], vec![call]);
    assert_eq!(results, [("Wrote 6 bytes to calc.py (overwrote the existing file).".to_owned(), false)]);
    assert_eq!(read(&*env, "calc.py"), "x = 1\n");
}
