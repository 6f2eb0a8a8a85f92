//! A whole agent run with no network and no API key: a scripted model works on the in-memory
//! environment with the shared core tools, and every event is printed as one JSON line.
//!
//! ```text
//! cargo run -p openagent-core --example scripted_session
//! ```

use std::rc::Rc;

use futures::executor::block_on;
use futures::StreamExt;
use openagent_core::llm::{ScriptStep, ScriptedClient};
use openagent_core::runtime::VirtualRuntime;
use openagent_core::tools::{register_core_tools, ToolRegistry};
use openagent_core::{CoreProfile, ExecutionEnvironment, Session};
use openagent_memenv::MemoryEnvironment;
use serde_json::json;

fn main() {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    block_on(env.write_file("src/greet.py", "def greet(name):\n    print('Hello ' + name)\n")).expect("seed file");

    // What a model would do: look, edit, check, answer.
    let client = Rc::new(ScriptedClient::new([
        ScriptStep::tool_call("glob", json!({"pattern": "**/*.py"})),
        ScriptStep::tool_call("read_file", json!({"file_path": "src/greet.py"})),
        ScriptStep::tool_call(
            "edit_file",
            json!({"file_path": "src/greet.py", "old_string": "'Hello ' + name", "new_string": "f'Hello, {name}!'"}),
        ),
        ScriptStep::tool_call("shell", json!({"command": "grep -n Hello src/greet.py && wc -l src/greet.py"})),
        ScriptStep::text("I switched greet() to an f-string that adds a comma and an exclamation mark."),
    ]));

    let mut registry = ToolRegistry::new();
    register_core_tools(&mut registry);
    let profile = Rc::new(CoreProfile::new("scripted-model", registry));
    let session = Session::builder(profile, env.clone(), client, runtime).build();

    let mut events = session.events();
    let outcome = block_on(session.submit("Make greet() print 'Hello, NAME!'"));
    session.close();
    drop(session);
    block_on(async {
        while let Some(event) = events.next().await {
            println!("{}", serde_json::to_string(&event).expect("events serialise"));
        }
    });
    eprintln!("stopped: {outcome:?}");
    eprintln!("src/greet.py is now:\n{}", block_on(env.read_file("src/greet.py", None, None)).unwrap_or_default());
}
