//! A family's argument names over a shared executor. A provider's own agent may call an argument
//! `include` or `-i` where the shared tool says `glob_filter` or `case_insensitive` (spec 3.1);
//! the profile offers the family's schema and this maps each call back to the shared names.

use std::rc::Rc;

use async_trait::async_trait;
use serde_json::{Map, Value};

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
        // Built afresh rather than renamed in place: `Map::remove` would bring the B-tree's
        // rebalancing code into the browser bundle, which nothing else there needs. A family name
        // given beside its shared one wins, as it is the name the model was offered.
        let given = args.as_object();
        let mut mapped = Map::new();
        for (name, value) in given.into_iter().flatten() {
            if !self.renames.iter().any(|(family, _)| family == name) {
                mapped.insert(name.clone(), value.clone());
            }
        }
        for (family, shared) in self.renames {
            if let Some(value) = given.and_then(|given| given.get(*family)) {
                mapped.insert((*shared).to_owned(), value.clone());
            }
        }
        for (name, value) in self.defaults {
            mapped.entry(*name).or_insert_with(|| Value::from(*value));
        }
        self.inner.execute(&Value::Object(mapped), ctx).await
    }
}
