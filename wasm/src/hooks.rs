//! `hooks`: async functions of the page, called at the core's hook points with the hook input
//! (`{ hook_event_name, session_id, cwd, ... }`, as a command hook reads it on stdin). Each may
//! return (or resolve to) nothing, or `{ block }` (a reason), `{ toolInput }` (`preToolUse`: the
//! arguments to run the call with) or `{ context }` (`userPromptSubmit`: text the model reads
//! after the prompt). A throw, a rejection or another answer is reported as a `warning` event and
//! changes nothing.

use async_trait::async_trait;
use js_sys::Function;
use openagent_core::hooks::{HookInput, HookOutcome, Hooks};
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};

use crate::convert::{error, function_property, property, to_json};
use crate::fetch::describe;

/// The functions of the `hooks` option, in the order of the core's `HOOK_POINTS`.
pub struct JsHooks([Option<Function>; 4]);

/// The `hooks` option's fields, in the order of [`JsHooks`].
pub(crate) const HOOK_FIELDS: [&str; 4] = ["preToolUse", "postToolUse", "userPromptSubmit", "sessionEnd"];

impl JsHooks {
    /// Reads the `hooks` option: an object of functions, each optional.
    pub fn from_js(hooks: &JsValue) -> Result<Self, JsValue> {
        let owner = "Agent options: hooks";
        if !hooks.is_object() {
            return Err(error(&[owner, " must be an object of functions: ", &HOOK_FIELDS.join(", ")].concat()));
        }
        for key in js_sys::Object::keys(hooks.unchecked_ref::<js_sys::Object>()).iter() {
            let key = key.as_string().unwrap_or_default();
            if !HOOK_FIELDS.contains(&key.as_str()) {
                return Err(error(&[owner, ": unknown hook `", &key, "`; the hooks are ", &HOOK_FIELDS.join(", ")].concat()));
            }
        }
        let mut functions: [Option<Function>; 4] = Default::default();
        for (slot, name) in functions.iter_mut().zip(HOOK_FIELDS) {
            *slot = function_property(hooks, name, owner)?;
        }
        Ok(Self(functions))
    }
}

#[async_trait(?Send)]
impl Hooks for JsHooks {
    async fn run(&self, input: &HookInput) -> HookOutcome {
        let index = input.event.index();
        let mut outcome = HookOutcome::default();
        let Some(function) = &self.0[index] else { return outcome };
        let named = |problem: &str| ["the ", HOOK_FIELDS[index], " hook ", problem].concat();
        let answer = match serde_json::to_value(input) {
            Ok(argument) => crate::tools::call(function, &argument).await,
            Err(e) => Err(error(&e.to_string())),
        };
        let answer = match answer {
            Ok(answer) => answer,
            Err(e) => {
                outcome.failures.push(named(&["failed: ", &describe(&e)].concat()));
                return outcome;
            }
        };
        if answer.is_undefined() || answer.is_null() {
            return outcome;
        }
        let text = |name| property(&answer, name).map(|value| value.as_string().ok_or(name));
        let read = || -> Result<HookOutcome, &str> {
            Ok(HookOutcome {
                block: text("block").transpose()?,
                context: text("context").transpose()?,
                tool_input: match property(&answer, "toolInput") {
                    None => None,
                    Some(value) => Some(to_json(&value, "toolInput").ok().filter(Value::is_object).ok_or("toolInput")?),
                },
                failures: Vec::new(),
            })
        };
        read().unwrap_or_else(|field| {
            let wrong = ["answered a `", field, "` that is not ", if field == "toolInput" { "an object" } else { "a string" }];
            HookOutcome { failures: vec![named(&wrong.concat())], ..HookOutcome::default() }
        })
    }
}
