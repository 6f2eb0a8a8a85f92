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

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;
    use crate::tools::testing::{memory_env, run_ok};

    /// Shows the arguments it was given.
    struct Echo;

    #[async_trait(?Send)]
    impl ToolExecutor for Echo {
        async fn execute(&self, args: &Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
            Ok(args.to_string().into())
        }
    }

    #[test]
    fn renames_and_fills_in_defaults() {
        let adapter =
            ArgsAdapter { inner: Rc::new(Echo), renames: &[("-i", "case_insensitive")], defaults: &[("mode", "files")] };
        let env = memory_env();
        let run = |args| serde_json::from_str::<Value>(&run_ok(&adapter, &env, args)).expect("JSON");
        assert_eq!(run(json!({"-i": true, "pattern": "x"})), json!({"case_insensitive": true, "mode": "files", "pattern": "x"}));
        assert_eq!(run(json!({"mode": "count"})), json!({"mode": "count"}));
    }
}
