//! `commands`: shell commands written in JS (`node`, say), which the agent's built-in shell runs
//! like its builtins: in pipes, with redirections, `&&`, `$VAR`s and the timeout (the core's
//! `HostCommand` seam). Each is an async function called with `{ argv, stdin, cwd, env,
//! timeoutMs, signal, fs, sandbox }` that answers `{ stdout, stderr, exitCode }`.

use std::rc::Rc;

use async_trait::async_trait;
use js_sys::{Array, Function, Promise, Uint8Array};
use openagent_memenv::{HostCall, HostCommand, HostOutput, MemoryEnvironment};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortController;

use crate::convert::{error, to_js};
use crate::fetch::describe;
use crate::fs::MemoryFs;

// The call's object and the answer's checks are in JS (commands.js), where they cost less.
#[wasm_bindgen(module = "/src/commands.js")]
extern "C" {
    #[wasm_bindgen(js_name = commandList, catch)]
    fn command_list(commands: &JsValue) -> Result<Array, JsValue>;
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(js_name = runCommand)]
    fn run_command(
        name: &str,
        run: &Function,
        argv: Array,
        stdin: &[u8],
        cwd: &str,
        env: Array,
        timeout_ms: f64,
        signal: JsValue,
        fs: JsValue,
        sandbox: JsValue,
    ) -> Promise;
}

/// Reads the `commands` option, `{ name: function }`, and adds each to `env`'s shell.
pub fn add_all(env: &MemoryEnvironment, commands: &JsValue) -> Result<(), JsValue> {
    for entry in command_list(commands)?.iter() {
        let entry: Array = entry.unchecked_into();
        let name = entry.get(0).as_string().unwrap_or_default();
        let command = Rc::new(JsCommand { name: name.clone(), function: entry.get(1).unchecked_into() });
        env.add_host_command(&name, command)
            .map_err(|e| error(&["invalid Agent options: `commands`: ", &e.to_string()].concat()))?;
    }
    Ok(())
}

struct JsCommand {
    name: String,
    function: Function,
}

/// Aborts the call's `signal` when the shell drops the call before it answered (an abort, the
/// timeout); a call that answered is let go without it.
struct AbortOnDrop(Option<AbortController>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(controller) = self.0.take() {
            controller.abort();
        }
    }
}

/// Strings as a JS array.
fn strings<'a>(items: impl Iterator<Item = &'a String>) -> Array {
    let array = Array::new();
    for item in items {
        array.push(&item.into());
    }
    array
}

#[async_trait(?Send)]
impl HostCommand for JsCommand {
    async fn run(&self, call: HostCall<'_>) -> HostOutput {
        let mut abort = AbortOnDrop(AbortController::new().ok());
        let signal = abort.0.as_ref().map_or(JsValue::UNDEFINED, |controller| controller.signal().into());
        let env = strings(call.env.iter().flat_map(|(name, value)| [name, value]));
        let timeout_ms = call.time_left_ms.map_or(-1.0, |ms| ms as f64);
        // The policy as agent.yml writes it; `null` unconfined. A serialisation that fails leaves
        // the command's network to the page's own options, which is all it had before.
        let sandbox = call.confinement.as_ref().and_then(|confinement| to_js(confinement.policy()).ok());
        let fs = MemoryFs::confined(call.files.clone(), call.confinement).into();
        let running = run_command(
            &self.name,
            &self.function,
            strings(call.argv.iter()),
            &call.stdin,
            call.cwd,
            env,
            timeout_ms,
            signal,
            fs,
            sandbox.unwrap_or(JsValue::NULL),
        );
        let answer = JsFuture::from(running).await;
        abort.0 = None;
        let answer: Array = match answer {
            Ok(answer) => answer.unchecked_into(),
            Err(thrown) => {
                let message = [&self.name, ": ", &describe(&thrown), "\n"].concat();
                return HostOutput { stderr: message.into_bytes(), exit_code: 1, ..HostOutput::default() };
            }
        };
        let bytes = |i| Uint8Array::new(&answer.get(i)).to_vec();
        HostOutput { stdout: bytes(0), stderr: bytes(1), exit_code: answer.get(2).as_f64().unwrap_or(1.0) as i32 }
    }
}
