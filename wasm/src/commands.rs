//! `commands`: shell commands written in JS (`node`, say), which the agent's built-in shell runs
//! like its builtins: in pipes, with redirections, `&&`, `$VAR`s and the timeout (the core's
//! `HostCommand` seam). Each is an async function called with `{ argv, stdin, cwd, env,
//! timeoutMs, signal, fs }` that answers `{ stdout, stderr, exitCode }`.

use std::rc::Rc;

use async_trait::async_trait;
use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use openagent_memenv::{HostCall, HostCommand, HostOutput, MemoryEnvironment};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortController;

use crate::convert::{error, property};
use crate::fetch::describe;
use crate::fs::MemoryFs;

/// Reads the `commands` option, `{ name: function }`, and adds each to `env`'s shell.
pub fn add_all(env: &MemoryEnvironment, commands: &JsValue) -> Result<(), JsValue> {
    let owner = "invalid Agent options: `commands`";
    if !commands.is_object() {
        return Err(error(&[owner, " must be an object of async functions, e.g. { node: nodeCommand() }"].concat()));
    }
    for entry in Object::entries(commands.unchecked_ref()).iter() {
        let entry: Array = entry.unchecked_into();
        let name = entry.get(0).as_string().unwrap_or_default();
        let function =
            entry.get(1).dyn_into::<Function>().map_err(|_| error(&[owner, ".", &name, " must be a function"].concat()))?;
        let command = Rc::new(JsCommand { name: name.clone(), function });
        env.add_host_command(&name, command).map_err(|e| error(&[owner, ": ", &e.to_string()].concat()))?;
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

#[async_trait(?Send)]
impl HostCommand for JsCommand {
    async fn run(&self, call: HostCall<'_>) -> HostOutput {
        let mut abort = AbortOnDrop(AbortController::new().ok());
        let answer = match self.call(&call, abort.0.as_ref()) {
            Ok(returned) => JsFuture::from(Promise::resolve(&returned)).await,
            Err(thrown) => Err(thrown),
        };
        abort.0 = None;
        match answer {
            Ok(answer) => output(&answer).unwrap_or_else(|what| {
                let message = [&self.name, ": the command answered ", &what, ", not { stdout, stderr, exitCode }\n"].concat();
                HostOutput { stderr: message.into_bytes(), exit_code: 126, ..HostOutput::default() }
            }),
            Err(thrown) => {
                let message = [&self.name, ": ", &describe(&thrown), "\n"].concat();
                HostOutput { stderr: message.into_bytes(), exit_code: 1, ..HostOutput::default() }
            }
        }
    }
}

impl JsCommand {
    /// Calls the function with the call's data; what it returns (a promise, usually).
    fn call(&self, call: &HostCall<'_>, abort: Option<&AbortController>) -> Result<JsValue, JsValue> {
        let env = Object::new();
        for (name, value) in call.env {
            Reflect::set(&env, &name.into(), &value.into())?;
        }
        let timeout_ms = call.time_left_ms.map_or(JsValue::NULL, |ms| (ms as f64).into());
        let signal = abort.map_or(JsValue::UNDEFINED, |controller| controller.signal().into());
        let fields: [(&str, JsValue); 7] = [
            ("argv", call.argv.iter().map(JsValue::from).collect::<Array>().into()),
            ("stdin", Uint8Array::from(call.stdin.as_slice()).into()),
            ("cwd", call.cwd.into()),
            ("env", env.into()),
            ("timeoutMs", timeout_ms),
            ("signal", signal),
            ("fs", MemoryFs::from_env(call.files.clone()).into()),
        ];
        let argument = Object::new();
        for (name, value) in fields {
            Reflect::set(&argument, &name.into(), &value)?;
        }
        self.function.call1(&JsValue::NULL, &argument)
    }
}

/// The command's answer, or what it was instead.
fn output(answer: &JsValue) -> Result<HostOutput, String> {
    if !answer.is_object() {
        return Err(answer.js_typeof().as_string().unwrap_or_default());
    }
    let exit_code = match property(answer, "exitCode") {
        None => 0,
        Some(code) => match code.as_f64() {
            Some(n) if n.fract() == 0.0 && n >= f64::from(i32::MIN) && n <= f64::from(i32::MAX) => n as i32,
            _ => return Err("an `exitCode` that is not a whole number".into()),
        },
    };
    Ok(HostOutput { stdout: bytes(answer, "stdout")?, stderr: bytes(answer, "stderr")?, exit_code })
}

/// `stdout` or `stderr`: text, bytes, or nothing.
fn bytes(answer: &JsValue, name: &str) -> Result<Vec<u8>, String> {
    match property(answer, name) {
        None => Ok(Vec::new()),
        Some(value) => match value.as_string() {
            Some(text) => Ok(text.into_bytes()),
            None if value.is_instance_of::<Uint8Array>() => Ok(Uint8Array::new(&value).to_vec()),
            None => Err(["a `", name, "` that is neither a string nor a Uint8Array"].concat()),
        },
    }
}
