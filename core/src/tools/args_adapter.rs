//! A family's argument names over a shared executor. A provider's own agent may call an argument
//! `include` or `-i` where the shared tool says `glob_filter` or `case_insensitive` (spec 3.1);
//! the profile offers the family's schema and this maps each call back to the shared names.

use std::rc::Rc;

use async_trait::async_trait;
use serde_json::Value;

use super::{ToolContext, ToolError, ToolExecutor, ToolOutput};

pub struct ArgsAdapter {
    pub inner: Rc<dyn ToolExecutor>,
    /// `(family name, shared name)`.
    pub renames: &'static [(&'static str, &'static str)],
    /// Arguments set when a call leaves them out: where the family's tool behaves differently by
    /// default (Claude Code's Grep lists files unless asked for lines).
    pub defaults: &'static [(&'static str, &'static str)],
}

#[async_trait(?Send)]
impl ToolExecutor for ArgsAdapter {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let mut mapped = args.as_object().cloned().unwrap_or_default();
        for (family, shared) in self.renames {
            if let Some(value) = mapped.remove(*family) {
                mapped.insert((*shared).to_owned(), value);
            }
        }
        for (name, value) in self.defaults {
            mapped.entry(*name).or_insert_with(|| Value::from(*value));
        }
        self.inner.execute(&Value::Object(mapped), ctx).await
    }
}
