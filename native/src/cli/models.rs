//! The model catalog in configuration: a project's `.openagent/models.json` lays its entries over
//! the built-in catalog (`openagent_core::llm::catalog`), to correct a price, give a window, or
//! add a model the catalog does not know, such as a local one:
//!
//! ```json
//! {"models": [
//!   {"id": "gpt-5.2", "input_cost_per_million": 1.5},
//!   {"id": "qwen3-coder", "provider": "openai-compatible", "context_window": 65536,
//!    "input_cost_per_million": 0, "output_cost_per_million": 0}
//! ]}
//! ```

use std::path::Path;

use openagent_core::llm::catalog::{Catalog, ModelInfo, Overrides};

pub const MODELS_FILE: &str = ".openagent/models.json";

/// The built-in catalog with `cwd`'s `.openagent/models.json` over it (none: the built-in one).
/// The error names the file, and for a wrong entry its line and key.
pub fn load(cwd: &Path) -> Result<Catalog, String> {
    let file = cwd.join(MODELS_FILE);
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Catalog::builtin().clone()),
        Err(e) => return Err(format!("{}: cannot read it: {e}", file.display())),
    };
    let overrides = parse(&text).map_err(|e| format!("{}:{e}", file.display()))?;
    Catalog::builtin().clone().with_overrides(overrides).map_err(|e| format!("{}: {e}", file.display()))
}

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
    let mut out = crate::cli::stdout::Stdout::default();
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

/// A cost for people: cents to four places under a dollar (a short run costs fractions of a
/// cent), to two above.
pub fn dollars(amount: f64) -> String {
    match amount < 1.0 {
        true => format!("${amount:.4}"),
        false => format!("${amount:.2}"),
    }
}

/// `LINE: KEY: PROBLEM` when the text is not an override file; the key is the path to the value
/// (`models[2].context_window`).
fn parse(text: &str) -> Result<Overrides, String> {
    let mut json = serde_json::Deserializer::from_str(text);
    let overrides: Overrides = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let (path, inner) = (e.path().to_string(), e.into_inner());
        // serde_json puts ` at line L column C` after its message; the line leads here instead.
        let message = inner.to_string();
        let message = message.split(" at line ").next().unwrap_or(&message).to_owned();
        // A syntax error has no key to name (its path ends in `?`).
        match inner.is_data() && path != "." {
            true => format!("{}: {path}: {message}", inner.line()),
            false => format!("{}: {message}", inner.line()),
        }
    })?;
    json.end().map_err(|e| format!("{}: {e}", e.line()))?;
    Ok(overrides)
}

#[cfg(test)]
mod tests {
    use openagent_tests::processes::TempDir;

    use super::*;

    fn write(text: &str) -> (TempDir, Result<Catalog, String>) {
        let dir = TempDir::new();
        std::fs::create_dir_all(dir.0.join(".openagent")).unwrap();
        std::fs::write(dir.0.join(MODELS_FILE), text).unwrap();
        let catalog = load(&dir.0);
        (dir, catalog)
    }

    #[test]
    fn no_file_is_the_builtin_catalog_and_a_file_lays_over_it() {
        let dir = TempDir::new();
        assert_eq!(load(&dir.0).as_ref(), Ok(Catalog::builtin()));
        let (_dir, catalog) = write(r#"{"models": [{"id": "gpt-5.2", "input_cost_per_million": 1.5}]}"#);
        let gpt = catalog.unwrap().get("gpt-5.2").cloned().unwrap();
        assert_eq!((gpt.input_cost_per_million, gpt.output_cost_per_million), (Some(1.5), Some(14.0)));
    }

    #[test]
    fn a_wrong_type_names_the_file_line_and_key() {
        let (dir, catalog) =
            write("{\"models\": [\n  {\"id\": \"gpt-5.2\"},\n  {\"id\": \"o3\",\n   \"context_window\": \"big\"}\n]}");
        let file = dir.0.join(MODELS_FILE).display().to_string();
        assert_eq!(
            catalog.unwrap_err(),
            format!("{file}:4: models[1].context_window: invalid type: string \"big\", expected u64")
        );
    }

    #[test]
    fn unknown_keys_broken_json_and_incomplete_new_models_are_refused() {
        let refused = |text: &str| write(text).1.unwrap_err();
        let unknown = refused("{\"models\": [{\"id\": \"o3\", \"price\": 1}]}");
        assert!(unknown.ends_with(":1: models[0].price: unknown field `price`, expected one of `id`, `provider`, `display_name`, `aliases`, `context_window`, `max_output`, `supports_tools`, `supports_vision`, `supports_reasoning`, `input_cost_per_million`, `output_cost_per_million`, `cache_read_cost_per_million`, `cache_write_cost_per_million`"), "{unknown}");
        assert!(refused("{\"models\": [\n{\"id\": \"o3\",}]}").ends_with("models.json:2: trailing comma"));
        assert!(refused("{\"models\": []} {}").ends_with(":1: trailing characters at line 1 column 16"));
        assert!(refused("{\"models\": [{\"id\": \"o3\", \"output_cost_per_million\": -2}]}")
            .ends_with("models.json: models[0]: `o3` has a price below 0; prices are dollars per million tokens"));
        assert!(refused("{\"models\": [{\"id\": \"mine\"}]}")
            .ends_with("models.json: models[0]: `mine` is not in the catalog, so it needs `provider` and `context_window`"));
    }

    #[test]
    fn a_directory_in_its_place_is_refused() {
        let dir = TempDir::new();
        std::fs::create_dir_all(dir.0.join(MODELS_FILE)).unwrap();
        assert!(load(&dir.0).unwrap_err().contains("models.json: cannot read it"));
    }
}
