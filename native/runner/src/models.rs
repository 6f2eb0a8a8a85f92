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

use openagent_core::llm::catalog::{Catalog, Overrides};

use serde_json::Value;

use crate::config_error::ConfigError;
use crate::config_problems::{show, stop_at, Read, MAX_SHOWN};

pub const MODELS_FILE: &str = ".openagent/models.json";

/// The built-in catalog with `cwd`'s `.openagent/models.json` over it (none: the built-in one).
/// The error names the file, and for a wrong entry its line and key.
pub fn load(cwd: &Path) -> Result<Catalog, ConfigError> {
    let file = cwd.join(MODELS_FILE);
    let Some(text) = crate::config_error::read_named(&file)? else {
        return Ok(Catalog::builtin().clone());
    };
    let overrides = match parse(&text) {
        Ok(overrides) => overrides,
        Err(problems) => return Err(ConfigError::Models { file, problems }),
    };
    Catalog::builtin().clone().with_overrides(overrides).map_err(|problem| ConfigError::Catalog { file, problem })
}

/// A cost for people: cents to four places under a dollar (a short run costs fractions of a
/// cent), to two above.
pub fn dollars(amount: f64) -> String {
    match amount < 1.0 {
        true => format!("${amount:.4}"),
        false => format!("${amount:.2}"),
    }
}

/// `LINE: KEY: PROBLEM` for each problem when the text is not an override file (the key is the
/// path to the value, `models[2].context_window`), in the order of the file, [`MAX_SHOWN`] at
/// most and then how many more. A syntax error is the only one: there is no tree to read on.
fn parse(text: &str) -> Result<Overrides, Vec<String>> {
    let mut json = serde_json::Deserializer::from_str(text);
    let error = match serde_path_to_error::deserialize::<_, Overrides>(&mut json) {
        Ok(overrides) => {
            json.end().map_err(|e| vec![format!("{}: {e}", e.line())])?;
            return Ok(overrides);
        }
        Err(error) => error,
    };
    let (path, inner) = (error.path().to_string(), error.into_inner());
    // serde_json puts ` at line L column C` after its message; the line leads here instead.
    let message = inner.to_string();
    let message = message.split(" at line ").next().unwrap_or(&message).to_owned();
    // A syntax error has no key to name (its path ends in `?`).
    if !inner.is_data() || path == "." {
        return Err(vec![format!("{}: {message}", inner.line())]);
    }
    let mut problems = vec![(inner.line(), path.clone(), message)];
    // serde stops at the first problem: the others come from the tree read again without each
    // wrong part.
    let tree: Value = serde_json::from_str(text).map_err(|e| vec![e.to_string()])?;
    let read = Read::<Overrides>::from(tree, text.len());
    for found in read.found.iter().filter(|found| show(&found.path) != path && !found.path.is_empty()) {
        let stopped = stop_at(&mut serde_json::Deserializer::from_str(text), &found.path).err();
        problems.push((stopped.map_or(0, |e| e.line()), show(&found.path), found.message.clone()));
    }
    problems.sort_by_key(|(line, _, _)| *line);
    let more = problems.len().saturating_sub(MAX_SHOWN);
    let mut shown: Vec<String> =
        problems.into_iter().take(MAX_SHOWN).map(|(line, path, message)| format!("{line}: {path}: {message}")).collect();
    if let Some(more) = read.and_more(more) {
        shown.push(format!(" {more}"));
    }
    Err(shown)
}

#[cfg(test)]
mod tests {
    use openagent_tests::processes::TempDir;

    use super::*;

    fn write(text: &str) -> (TempDir, Result<Catalog, ConfigError>) {
        let dir = TempDir::new();
        std::fs::create_dir_all(dir.0.join(".openagent")).unwrap();
        std::fs::write(dir.0.join(MODELS_FILE), text).unwrap();
        let catalog = load(&dir.0);
        (dir, catalog)
    }

    #[test]
    fn no_file_is_the_builtin_catalog_and_a_file_lays_over_it() {
        let dir = TempDir::new();
        assert_eq!(load(&dir.0).ok().as_ref(), Some(Catalog::builtin()));
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
            catalog.unwrap_err().to_string(),
            format!("{file}:4: models[1].context_window: invalid type: string \"big\", expected u64")
        );
    }

    #[test]
    fn unknown_keys_broken_json_and_incomplete_new_models_are_refused() {
        let refused = |text: &str| write(text).1.unwrap_err().to_string();
        let unknown = refused("{\"models\": [{\"id\": \"o3\", \"price\": 1}]}");
        assert!(unknown.ends_with(":1: models[0].price: unknown field `price`, expected one of `id`, `provider`, `display_name`, `aliases`, `context_window`, `max_output`, `supports_tools`, `supports_vision`, `supports_reasoning`, `input_cost_per_million`, `output_cost_per_million`, `cache_read_cost_per_million`, `cache_write_cost_per_million`"), "{unknown}");
        assert!(refused("{\"models\": [\n{\"id\": \"o3\",}]}").ends_with("models.json:2: trailing comma"));
        assert!(refused("{\"models\": []} {}").ends_with(":1: trailing characters at line 1 column 16"));
        assert!(refused("{\"models\": [{\"id\": \"o3\", \"output_cost_per_million\": -2}]}")
            .ends_with("models.json: models[0]: `o3` has a price below 0; prices are dollars per million tokens"));
        assert!(refused("{\"models\": [{\"id\": \"mine\"}]}")
            .ends_with("models.json: models[0]: `mine` is not in the catalog, so it needs `provider` and `context_window`"));
    }

    /// Three wrong entries: three lines, each with its line and key, in the order of the file.
    #[test]
    fn every_wrong_entry_is_reported_with_its_line() {
        let (dir, catalog) = write(
            "{\"models\": [\n  {\"id\": \"o3\", \"price\": 1},\n  {\"id\": \"o4\", \"context_window\": \"big\"},\n  {\"id\": \"o5\", \"supports_tools\": 1}\n]}",
        );
        let file = dir.0.join(MODELS_FILE).display().to_string();
        let error = catalog.unwrap_err().to_string();
        let lines: Vec<&str> = error.lines().map(|line| line.split(", expected").next().unwrap_or(line)).collect();
        assert_eq!(
            lines,
            [
                format!("{file}:2: models[0].price: unknown field `price`"),
                format!("{file}:3: models[1].context_window: invalid type: string \"big\""),
                format!("{file}:4: models[2].supports_tools: invalid type: integer `1`"),
            ],
            "{error}"
        );
    }

    #[test]
    fn a_directory_in_its_place_is_refused() {
        let dir = TempDir::new();
        std::fs::create_dir_all(dir.0.join(MODELS_FILE)).unwrap();
        let error = load(&dir.0).unwrap_err().to_string();
        assert!(error.contains("models.json: is a directory, not a regular file"), "{error}");
    }
}
