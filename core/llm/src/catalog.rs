//! The model catalog (spec 2.9): what each known model is, can do and costs, from a data file
//! compiled in (`data/models.json`, where the date of its prices is written). It is advisory: a
//! model it does not know is still sent to its provider, and only goes without a window, a
//! capability check and a price.
//!
//! The prices are the providers' published prices per million tokens for standard requests (not
//! batch, flex or priority), as public pricing tables gave them between March and June 2026;
//! Anthropic's cache writes at the 5-minute rate. Long-context surcharges (prompts over 200k tokens
//! on Gemini and some OpenAI models) are not modelled.
//!
//! Hosts lay their own entries over it ([`Catalog::with_overrides`]): natively from a project's
//! `.openagent/models.json`, in the browser from an option. An override changes the fields it
//! gives of a known model, or adds a model.
//!
//! ```
//! use openagent_llm::catalog::{get_latest_model, get_model_info, list_models};
//! use openagent_llm::Usage;
//!
//! let sonnet = get_model_info("claude-sonnet-4-5-20250929").unwrap();
//! assert_eq!((sonnet.id.as_str(), sonnet.context_window), ("claude-sonnet-4-5", 200_000));
//! // 1M tokens in at $3, 100k out at $15.
//! assert_eq!(sonnet.cost(&Usage::new(1_000_000, 100_000)), Some(4.5));
//! assert!(list_models(Some("gemini")).iter().all(|m| m.provider == "gemini"));
//! assert_eq!(get_latest_model("anthropic", Some("vision")).unwrap().id, "claude-opus-4-6");
//! ```

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::types::Usage;

/// One model (spec 2.9's `ModelInfo`, with cache prices): prices are US dollars per million tokens.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct ModelInfo {
    /// The API's name for it.
    pub id: String,
    pub provider: String,
    pub display_name: String,
    /// Other names that find it: short ones (`sonnet`) and dated snapshots.
    pub aliases: Vec<String>,
    /// Input and output together, in tokens.
    pub context_window: u64,
    pub max_output: Option<u64>,
    pub supports_tools: bool,
    /// Whether it takes images in.
    pub supports_vision: bool,
    pub supports_reasoning: bool,
    pub input_cost_per_million: Option<f64>,
    pub output_cost_per_million: Option<f64>,
    /// Prompt tokens read from the provider's cache; the input price when absent.
    pub cache_read_cost_per_million: Option<f64>,
    /// Prompt tokens written to the cache (Anthropic bills them above input); the input price when
    /// absent.
    pub cache_write_cost_per_million: Option<f64>,
}

impl ModelInfo {
    /// What `usage` cost in US dollars; `None` unless the input and output prices are known.
    /// `input_tokens` is the whole prompt (every codec reports it so), of which the cache reads
    /// and writes are billed at their own prices; reasoning is billed as output.
    pub fn cost(&self, usage: &Usage) -> Option<f64> {
        let (input, output) = (self.input_cost_per_million?, self.output_cost_per_million?);
        let read = usage.cache_read_tokens.unwrap_or(0);
        let written = usage.cache_write_tokens.unwrap_or(0);
        let fresh = usage.input_tokens.saturating_sub(read.saturating_add(written));
        let dollars = fresh as f64 * input
            + read as f64 * self.cache_read_cost_per_million.unwrap_or(input)
            + written as f64 * self.cache_write_cost_per_million.unwrap_or(input)
            + usage.output_tokens as f64 * output;
        Some(dollars / 1e6)
    }

    fn has(&self, capability: &str) -> bool {
        match capability {
            "tools" => self.supports_tools,
            "vision" | "images" => self.supports_vision,
            "reasoning" => self.supports_reasoning,
            _ => false,
        }
    }
}

/// Known models, each provider's listed newest and best first.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    /// The day the built-in prices were checked.
    pub prices_as_of: String,
    models: Vec<ModelInfo>,
}

impl Catalog {
    /// The catalog compiled in, read once.
    pub fn builtin() -> &'static Catalog {
        static BUILTIN: OnceLock<Catalog> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            // From bytes: the bundle's one JSON reader (`from_str` would add a second).
            let file: serde_json::Value =
                serde_json::from_slice(include_bytes!("../data/models.json")).expect("models.json is JSON");
            let mut models = Vec::new();
            for patch in Overrides::from_json(&file["models"]).expect("data/models.json is a catalog").models {
                models.push(patch.into_model().expect("data/models.json has whole entries"));
            }
            Catalog { prices_as_of: file["prices_as_of"].as_str().unwrap_or_default().into(), models }
        })
    }

    /// The model `name` means: its id or an alias, in any case, after a gateway's `provider/` or
    /// Gemini's `models/` prefix; or a dated snapshot of one (`gpt-5-2025-08-07`), which is priced
    /// as its model.
    pub fn get(&self, name: &str) -> Option<&ModelInfo> {
        let name = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
        let names = |model: &ModelInfo| std::iter::once(&model.id).chain(&model.aliases).any(|known| *known == name);
        self.models.iter().find(|model| names(model)).or_else(|| {
            let dated = |model: &&ModelInfo| {
                name.strip_prefix(model.id.as_str())
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(|date| !date.is_empty() && date.bytes().all(|b| b.is_ascii_digit() || b == b'-'))
            };
            self.models.iter().find(dated)
        })
    }

    /// Every model, or `provider`'s, newest first within each provider.
    pub fn list(&self, provider: Option<&str>) -> Vec<&ModelInfo> {
        self.models.iter().filter(|model| provider.is_none_or(|p| model.provider == p)).collect()
    }

    /// `provider`'s newest model, or its newest with `capability` (`tools`, `vision` or
    /// `images`, `reasoning`; none has a capability by another name).
    pub fn latest(&self, provider: &str, capability: Option<&str>) -> Option<&ModelInfo> {
        self.models.iter().find(|model| model.provider == provider && capability.is_none_or(|c| model.has(c)))
    }

    /// This catalog with `overrides` laid over it: each changes the fields it gives of the model
    /// its `id` names, or adds a model, listed first among its provider's (the last added first).
    /// A new model needs a provider and a context window; the error says which entry lacks them.
    pub fn with_overrides(mut self, overrides: Overrides) -> Result<Self, String> {
        // The ids through an index and the new models placed in one sort at the end: a search
        // of the list and an insertion into it for each entry made a file of n entries cost n²
        // (40k entries took seconds, a million minutes).
        let known = self.models.len();
        let mut index = BTreeMap::new();
        for (at, model) in self.models.iter().enumerate() {
            index.entry(model.id.clone()).or_insert(at);
        }
        for (entry, patch) in overrides.models.into_iter().enumerate() {
            let prices = [
                patch.input_cost_per_million,
                patch.output_cost_per_million,
                patch.cache_read_cost_per_million,
                patch.cache_write_cost_per_million,
            ];
            // A negative price would make costs that go down as tokens go up.
            if prices.iter().flatten().any(|price| *price < 0.0) {
                return Err(format!(
                    "models[{entry}]: `{}` has a price below 0; prices are dollars per million tokens",
                    patch.id
                ));
            }
            match index.get(&patch.id) {
                Some(&at) => patch.apply(&mut self.models[at]),
                None => {
                    let model = patch.into_model().map_err(|e| format!("models[{entry}]: {e}"))?;
                    index.insert(model.id.clone(), self.models.len());
                    self.models.push(model);
                }
            }
        }
        let added = self.models.len() - known;
        if added > 0 {
            self.models = placed(std::mem::take(&mut self.models), known);
        }
        Ok(self)
    }
}

/// `models`, whose first `known` are the catalog's and the rest added in order, with each added
/// model moved before the first known one of its provider, the last added first; those of a
/// provider the catalog does not have go last, grouped by provider in the order they came.
fn placed(models: Vec<ModelInfo>, known: usize) -> Vec<ModelInfo> {
    let added = models.len() - known;
    let mut anchors: BTreeMap<&str, usize> = BTreeMap::new();
    for (at, model) in models[..known].iter().enumerate() {
        anchors.entry(&model.provider).or_insert(at);
    }
    // An added model sorts before the known one it is placed at (`added` is past every `j`).
    let mut keys = Vec::with_capacity(models.len());
    for (at, model) in models.iter().enumerate() {
        keys.push(match at.checked_sub(known) {
            None => (at, added),
            Some(j) => {
                let next = known + anchors.len();
                (*anchors.entry(&model.provider).or_insert(next), added - 1 - j)
            }
        });
    }
    let mut keyed: Vec<_> = keys.into_iter().zip(models).collect();
    keyed.sort_unstable_by_key(|(key, _)| *key);
    keyed.into_iter().map(|(_, model)| model).collect()
}

/// What a host lays over the catalog: `{"models": [{"id": ..., <any ModelInfo field>}, ...]}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overrides {
    #[serde(default)]
    pub models: Vec<ModelPatch>,
}

/// One model's overridden fields; those not given keep the catalog's values.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPatch {
    pub id: String,
    pub provider: Option<String>,
    pub display_name: Option<String>,
    pub aliases: Option<Vec<String>>,
    pub context_window: Option<u64>,
    pub max_output: Option<u64>,
    pub supports_tools: Option<bool>,
    pub supports_vision: Option<bool>,
    pub supports_reasoning: Option<bool>,
    pub input_cost_per_million: Option<f64>,
    pub output_cost_per_million: Option<f64>,
    pub cache_read_cost_per_million: Option<f64>,
    pub cache_write_cost_per_million: Option<f64>,
}

impl ModelPatch {
    /// A model of its own: it needs a provider and a window; it takes tools and no images unless
    /// it says otherwise.
    fn into_model(self) -> Result<ModelInfo, String> {
        let (Some(provider), Some(context_window)) = (self.provider.clone(), self.context_window) else {
            return Err(format!("`{}` is not in the catalog, so it needs `provider` and `context_window`", self.id));
        };
        let mut model = ModelInfo {
            id: self.id.clone(),
            display_name: self.id.clone(),
            provider,
            context_window,
            aliases: Vec::new(),
            max_output: None,
            supports_tools: true,
            supports_vision: false,
            supports_reasoning: false,
            input_cost_per_million: None,
            output_cost_per_million: None,
            cache_read_cost_per_million: None,
            cache_write_cost_per_million: None,
        };
        self.apply(&mut model);
        Ok(model)
    }

    fn apply(self, model: &mut ModelInfo) {
        let Self {
            id: _,
            provider,
            display_name,
            aliases,
            context_window,
            max_output,
            supports_tools,
            supports_vision,
            supports_reasoning,
            input_cost_per_million,
            output_cost_per_million,
            cache_read_cost_per_million,
            cache_write_cost_per_million,
        } = self;
        fn set<T>(field: &mut T, value: Option<T>) {
            if let Some(value) = value {
                *field = value;
            }
        }
        set(&mut model.provider, provider);
        set(&mut model.display_name, display_name);
        set(&mut model.aliases, aliases);
        set(&mut model.context_window, context_window);
        set(&mut model.max_output, max_output.map(Some));
        set(&mut model.supports_tools, supports_tools);
        set(&mut model.supports_vision, supports_vision);
        set(&mut model.supports_reasoning, supports_reasoning);
        set(&mut model.input_cost_per_million, input_cost_per_million.map(Some));
        set(&mut model.output_cost_per_million, output_cost_per_million.map(Some));
        set(&mut model.cache_read_cost_per_million, cache_read_cost_per_million.map(Some));
        set(&mut model.cache_write_cost_per_million, cache_write_cost_per_million.map(Some));
    }
}

/// The built-in catalog's entry for `model_id` (spec 2.9).
pub fn get_model_info(model_id: &str) -> Option<&'static ModelInfo> {
    Catalog::builtin().get(model_id)
}

/// The built-in catalog's models, or `provider`'s (spec 2.9).
pub fn list_models(provider: Option<&str>) -> Vec<&'static ModelInfo> {
    Catalog::builtin().list(provider)
}

/// The built-in catalog's newest model of `provider`, with `capability` if given (spec 2.9).
pub fn get_latest_model(provider: &str, capability: Option<&str>) -> Option<&'static ModelInfo> {
    Catalog::builtin().latest(provider, capability)
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
