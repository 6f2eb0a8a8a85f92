//! Where the sandbox meets approvals. A file tool's write the sandbox does not allow is found
//! before the tool runs (its writes happen in the agent's own process, which no kernel policy
//! confines); a command the sandbox denied is found after it ran, by the environment. Either way
//! the host's approver may let the call run outside the sandbox, once: codex's `on-failure`. A
//! host with no one to ask (`openagent run`) denies it, saying how to widen the sandbox.

use serde_json::Value;

use super::{Approval, ApprovalRequest, CallFacts, Decided, Gate, Permission, Rule, EDIT_TOOLS};

/// The `tool_decision` source of what the sandbox decides.
pub(crate) const SOURCE: &str = "sandbox";

impl Gate {
    /// What the sandbox refuses of a file tool's writes, if anything: the first path it will not
    /// let the tool change, and why.
    pub fn refused_write(&self, call: &CallFacts) -> Option<String> {
        if !EDIT_TOOLS.contains(&call.tool.as_str()) {
            return None;
        }
        call.paths.iter().find_map(|path| self.sandbox.refuses_write(path).map(|why| ["a write to ", path, ": ", &why].concat()))
    }

    /// Asks whether a call the sandbox refused (`denied` says what it refused) may run outside
    /// it; `on_ask` is told just before the approver is asked. Asked every time: no "always"
    /// carries over to the next call.
    pub async fn escalate(
        &self,
        call_id: &str,
        tool: &str,
        arguments: &Value,
        denied: &str,
        on_ask: impl Fn(&ApprovalRequest),
    ) -> Decided {
        let _turn = self.turn().await;
        let refused = ["the sandbox (", &self.sandbox.describe(), ") refused ", denied].concat();
        let Some(approver) = &self.approver else {
            let reason = refused + "; no one can be asked here to allow it outside the sandbox";
            return Decided { allowed: false, source: SOURCE, reason: Some(reason) };
        };
        let request = ApprovalRequest {
            call_id: call_id.to_owned(),
            tool_name: tool.to_owned(),
            arguments: arguments.clone(),
            reason: [refused.as_str(), "; run it outside the sandbox?"].concat(),
            always: Rule { tool: tool.to_owned(), command: None, path: None, decision: Permission::Allow },
            protected: true,
            outside_sandbox: true,
        };
        on_ask(&request);
        let (allowed, reason) = match approver.approve(&request).await {
            Approval::Allow => (true, "allowed to run outside the sandbox".to_owned()),
            Approval::AllowAlways => (true, "allowed to run outside the sandbox this once: each such call asks".to_owned()),
            Approval::Deny(reason) => {
                let reason = reason.filter(|r| !r.trim().is_empty());
                (false, reason.unwrap_or_else(|| refused + "; the user did not allow it outside the sandbox"))
            }
        };
        Decided { allowed, source: SOURCE, reason: Some(reason) }
    }
}
