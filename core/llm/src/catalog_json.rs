//! Catalog entries read from JSON by hand: a derived `Deserialize` costs the browser bundle
//! about 25 KB gzipped (its errors format floats), and the bundle reads the built-in catalog and
//! a page's `models` option. Natively, `.openagent/models.json` is read through the derive, which
//! gives the line of a wrong value (`openagent` `cli/models.rs`).

use serde_json::{Map, Value};

use super::catalog::{ModelPatch, Overrides};

const FIELDS: [&str; 13] = [
    "id",
    "provider",
    "display_name",
    "aliases",
    "context_window",
    "max_output",
    "supports_tools",
    "supports_vision",
    "supports_reasoning",
    "input_cost_per_million",
    "output_cost_per_million",
    "cache_read_cost_per_million",
    "cache_write_cost_per_million",
];

impl Overrides {
    /// `entries`, an array of model entries; the error names the entry and key
    /// (`models[2].context_window: ...`).
    pub fn from_json(entries: &Value) -> Result<Self, String> {
        let entries = entries.as_array().ok_or("models: expected an array of model entries")?;
        let mut models = Vec::with_capacity(entries.len());
        for (index, entry) in entries.iter().enumerate() {
            models.push(ModelPatch::from_json(entry).map_err(|e| format!("models[{index}]{e}"))?);
        }
        Ok(Self { models })
    }
}

impl ModelPatch {
    /// One entry; the error starts with `.key: ` or `: `, to follow the entry's place.
    fn from_json(entry: &Value) -> Result<Self, String> {
        let Value::Object(map) = entry else { return Err(": expected an object".into()) };
        if let Some(unknown) = map.keys().find(|key| !FIELDS.contains(&key.as_str())) {
            return Err(format!(".{unknown}: unknown field, expected one of {}", FIELDS.join(", ")));
        }
        let entry = Entry(map);
        Ok(Self {
            id: entry.text("id")?.ok_or(": missing field `id`")?,
            provider: entry.text("provider")?,
            display_name: entry.text("display_name")?,
            aliases: entry.texts("aliases")?,
            context_window: entry.whole("context_window")?,
            max_output: entry.whole("max_output")?,
            supports_tools: entry.flag("supports_tools")?,
            supports_vision: entry.flag("supports_vision")?,
            supports_reasoning: entry.flag("supports_reasoning")?,
            input_cost_per_million: entry.price("input_cost_per_million")?,
            output_cost_per_million: entry.price("output_cost_per_million")?,
            cache_read_cost_per_million: entry.price("cache_read_cost_per_million")?,
            cache_write_cost_per_million: entry.price("cache_write_cost_per_million")?,
        })
    }
}

/// An entry's fields, each read as its type or refused naming the key; `null` reads as absent.
struct Entry<'a>(&'a Map<String, Value>);

impl Entry<'_> {
    fn field<T>(&self, key: &str, read: impl Fn(&Value) -> Option<T>, what: &str) -> Result<Option<T>, String> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => read(value)
                .map(Some)
                .ok_or_else(|| format!(".{key}: expected {what}, not {}", crate::json_text::to_string(value))),
        }
    }

    fn text(&self, key: &str) -> Result<Option<String>, String> {
        self.field(key, |v| v.as_str().map(str::to_owned), "a string")
    }

    fn texts(&self, key: &str) -> Result<Option<Vec<String>>, String> {
        let texts = |v: &Value| {
            let mut texts = Vec::new();
            for text in v.as_array()? {
                texts.push(text.as_str()?.to_owned());
            }
            Some(texts)
        };
        self.field(key, texts, "an array of strings")
    }

    fn whole(&self, key: &str) -> Result<Option<u64>, String> {
        self.field(key, Value::as_u64, "a whole number of tokens")
    }

    fn flag(&self, key: &str) -> Result<Option<bool>, String> {
        self.field(key, Value::as_bool, "true or false")
    }

    fn price(&self, key: &str) -> Result<Option<f64>, String> {
        self.field(key, |v| v.as_f64().filter(|price| *price >= 0.0), "a price in dollars, 0 or more")
    }
}
