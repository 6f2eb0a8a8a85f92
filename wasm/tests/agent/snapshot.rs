//! Sessions that outlive the agent (issue 12, the browser's part): `agent.snapshot()`,
//! `new Agent({ snapshot })`, `Agent.checkSnapshot`, `agent.compact()` and the compaction
//! options, under Node with a scripted `fetch`.

use crate::support::*;
use js_sys::Reflect;
use openagent_wasm::Agent;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test as test;

fn restored(snapshot: &JsValue, replies: Value, extra: Value) -> Result<(Agent, js_sys::Function), JsValue> {
    let fetch = scripted_fetch(js(replies));
    let options = options(&fetch, extra);
    Reflect::set(&options, &"snapshot".into(), snapshot).unwrap();
    Agent::new(options).map(|agent| (agent, fetch))
}

#[test]
async fn a_snapshot_brings_back_the_conversation_and_the_files() {
    let write = json!({"name": "write_file", "arguments": {"file_path": "notes.md", "content": "# Notes\n"}});
    let (agent, _) = agent_with(json!([{"toolCalls": [write]}, {"text": "Wrote notes.md."}]), json!({"limits": {"maxTurns": 9}}));
    submit(&agent, "write the notes").await.unwrap();
    let snapshot = agent.snapshot().unwrap();
    let saved = data(&snapshot);
    assert_eq!(saved["schema"], "openagent.session/1");
    assert_eq!(saved["session_id"], agent.session_id());
    assert_eq!(saved["state"]["history"].as_array().unwrap().len(), 4, "{saved}");
    assert!(saved["environment"]["files"].to_string().contains("/workspace/notes.md"), "{saved}");

    // As the object, and as its JSON text: the same session, files and settings, and the next
    // request carries the earlier turns.
    let text = JsValue::from(js_sys::JSON::stringify(&snapshot).unwrap());
    for given in [snapshot, text] {
        let (again, fetch) = restored(&given, json!([{"text": "It has one heading."}]), json!({})).unwrap();
        assert_eq!(again.session_id(), agent.session_id());
        assert_eq!(again.fs().read_text("notes.md").unwrap(), "# Notes\n");
        assert_eq!(data(&again.snapshot().unwrap())["state"]["config"]["max_turns"], 9, "unset limits keep the snapshot's");
        assert_eq!(data(&submit(&again, "what is in it?").await.unwrap())["text"], "It has one heading.");
        let messages = requests(&fetch)[0]["body"]["messages"].to_string();
        for earlier in ["write the notes", "notes.md", "Wrote notes.md.", "what is in it?"] {
            assert!(messages.contains(earlier), "{earlier} in {messages}");
        }
    }
}

#[test]
fn a_bad_snapshot_is_refused_with_an_error_that_names_what_is_wrong() {
    let (agent, _) = agent_with(json!([]), json!({}));
    let good = data(&agent.snapshot().unwrap());
    let mut newer = good.clone();
    newer["schema"] = json!("openagent.session/2");
    let mut damaged = good.clone();
    damaged["state"]["history"] = json!([{"type": "user", "content": 7, "timestamp": 1}]);
    let mut bad_files = good.clone();
    bad_files["environment"] = json!({"files": []});
    let cases = [
        (JsValue::from("{\"schema\": \"openagent.session/1\", \"state\""), "truncated"),
        (JsValue::from("hello"), "not valid JSON"),
        (js(json!({"files": []})), "no \"schema\" field"),
        (js(newer), "newer than this build reads"),
        (js(damaged), "state.history[0]"),
        (js(bad_files), "files (`environment`)"),
    ];
    for (snapshot, expected) in cases {
        let checked = error_message(&Agent::check_snapshot(snapshot.clone()).unwrap_err());
        assert!(checked.contains(expected), "{expected}: {checked}");
        let refused = error_message(&restored(&snapshot, json!([]), json!({})).err().expect("refused"));
        assert!(refused.starts_with("invalid Agent options: snapshot:") && refused.contains(expected), "{refused}");
    }
    Agent::check_snapshot(js(good.clone())).unwrap();
    let both = restored(&js(good), json!([]), json!({"files": {"a.txt": "a"}})).err().expect("refused");
    assert!(error_message(&both).contains("leave `files` out"), "{}", error_message(&both));
}

#[test]
async fn compact_summarises_the_older_turns_and_reports_both_events() {
    let replies = json!([{"text": "First answer."}, {"text": "Second answer."}, {"text": "SUMMARY: the user asked twice."}, {"text": "Third."}]);
    let on_event = recorder();
    let fetch = scripted_fetch(js(replies));
    let options = options(&fetch, json!({"contextWindow": 100000, "compaction": {"thresholdPercent": 0, "keepRecentTokens": 1}}));
    Reflect::set(&options, &"onEvent".into(), &on_event).unwrap();
    let agent = Agent::new(options).unwrap();
    submit(&agent, "first question").await.unwrap();
    submit(&agent, "second question").await.unwrap();
    let compacted = JsFuture::from(agent.compact()).await.unwrap_or_else(|e| panic!("{}", error_message(&e)));
    assert!(compacted.is_undefined());

    let events = data(&get(&on_event, "events"));
    let of = |kind: &str| events.as_array().unwrap().iter().find(|e| e["kind"] == kind).cloned().expect(kind);
    assert_eq!(of("compaction_start")["data"]["reason"], "manual");
    assert_eq!(of("compaction_start")["data"]["context_window"], 100000);
    let end = of("compaction_end")["data"].clone();
    assert!(end["summarized_turns"].as_u64().unwrap() > 0 && end["error"].is_null(), "{end}");

    let state = data(&agent.snapshot().unwrap())["state"].clone();
    assert_eq!(state["history"][0]["type"], "summary", "{state}");
    assert_eq!(state["config"]["compaction_threshold_percent"], 0);
    assert_eq!(state["config"]["compaction_keep_recent_tokens"], 1);
    submit(&agent, "third question").await.unwrap();
    let last = requests(&fetch)[3]["body"]["messages"].to_string();
    assert!(last.contains("SUMMARY: the user asked twice.") && !last.contains("first question"), "{last}");
}

#[test]
fn compaction_options_are_checked() {
    let fetch = scripted_fetch(js(json!([])));
    let refused = |extra: Value| error_message(&Agent::new(options(&fetch, extra)).err().expect("refused"));
    assert!(refused(json!({"compaction": {"threshold": 50}})).contains("unknown field `threshold`"));
    assert!(refused(json!({"compaction": {"thresholdPercent": 150}})).contains("from 1 to 100"));
    assert!(refused(json!({"contextWindow": "big"})).contains("`contextWindow` must be a whole number"));
}
