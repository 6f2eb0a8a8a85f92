//! `openagent models`: the model catalog, with the directory's `.openagent/models.json` over it.

use std::path::Path;

use openagent_core::llm::catalog::ModelInfo;
use openagent_runner::models::load;
use openagent_runner::stdout::Stdout;

/// `openagent models`: prints the catalog of `cwd` (or `provider`'s part of it) and returns the
/// exit code: 2 when the models.json is broken or the provider has no models.
pub fn list(cwd: &Path, provider: Option<&str>, json: bool) -> u8 {
    let catalog = match load(cwd) {
        Ok(catalog) => catalog,
        Err(error) => {
            eprintln!("error: {error}");
            return 2;
        }
    };
    let models = catalog.list(provider);
    if models.is_empty() {
        eprintln!("error: no models of provider `{}` in the catalog", provider.unwrap_or_default());
        return 2;
    }
    let text = match json {
        true => format!("{}\n", serde_json::json!({"prices_as_of": catalog.prices_as_of, "models": models})),
        false => table(&models, &catalog.prices_as_of),
    };
    let mut out = Stdout::default();
    out.write(&text);
    out.end(0)
}

fn table(models: &[&ModelInfo], prices_as_of: &str) -> String {
    let price = |price: Option<f64>| price.map_or_else(|| "-".into(), |p| p.to_string());
    let mut text = format!(
        "{:24}  {:18}  {:>9}  {:>7}  {:3}  {:>7}  {:>7}  {:>7}\n",
        "MODEL", "PROVIDER", "WINDOW", "OUTPUT", "CAN", "IN $/M", "OUT $/M", "CACHED"
    );
    for m in models {
        let can: String = [(m.supports_tools, 't'), (m.supports_vision, 'i'), (m.supports_reasoning, 'r')]
            .iter()
            .map(|&(on, letter)| if on { letter } else { '-' })
            .collect();
        let output = m.max_output.map_or_else(|| "-".into(), |tokens| tokens.to_string());
        let (input, out, cached) =
            (price(m.input_cost_per_million), price(m.output_cost_per_million), price(m.cache_read_cost_per_million));
        let window = m.context_window;
        text +=
            &format!("{:24}  {:18}  {window:>9}  {output:>7}  {can:3}  {input:>7}  {out:>7}  {cached:>7}\n", m.id, m.provider);
    }
    text + &format!("CAN: t tools, i images, r reasoning. US dollars per million tokens, as of {prices_as_of}.\n")
}
