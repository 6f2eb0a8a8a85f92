//! `onApproval`: the page answers when the approval policy asks about a call. It gets
//! `{ call_id, tool_name, arguments, reason, always }` (the `approval_requested` event's words)
//! and returns (or resolves to) `"allow"`, `"always"`, `"deny"`, or `{ decision, reason }`.
//! Anything else, a throw or a rejection is a deny that says so, so a broken callback never
//! runs a call unasked.

use async_trait::async_trait;
use js_sys::Function;
use openagent_core::approval::{Approval, ApprovalRequest, Approver};
use serde_json::{Map, Value};
use wasm_bindgen::JsValue;

use crate::convert::property;
use crate::fetch::describe;

pub struct JsApprover {
    pub callback: Function,
}

#[async_trait(?Send)]
impl Approver for JsApprover {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        let mut asked = Map::new();
        for (name, text) in [
            ("call_id", &request.call_id),
            ("tool_name", &request.tool_name),
            ("reason", &request.reason),
            ("always", &request.always.describe()),
        ] {
            asked.insert(name.into(), text.clone().into());
        }
        asked.insert("arguments".into(), request.arguments.clone());
        // Called as a registered tool's `execute` is: one JSON argument, a value or a promise back.
        match crate::tools::call(&self.callback, &Value::Object(asked)).await {
            Ok(answer) => read(&answer),
            Err(e) => Approval::Deny(Some(["onApproval failed: ", &describe(&e)].concat())),
        }
    }
}

/// The page's answer; anything but the documented shapes is a deny that says so.
fn read(answer: &JsValue) -> Approval {
    let field = |name| property(answer, name).and_then(|value| value.as_string());
    let decision = answer.as_string().or_else(|| field("decision")).unwrap_or_default();
    match decision.as_str() {
        "allow" => Approval::Allow,
        "always" => Approval::AllowAlways,
        "deny" => {
            Approval::Deny(field("reason").filter(|r| !r.trim().is_empty()).map(|r| ["the user denied this call: ", &r].concat()))
        }
        _ => Approval::Deny(Some(
            "onApproval answered neither \"allow\", \"always\", \"deny\" nor { decision, reason }; the call was denied".into(),
        )),
    }
}
