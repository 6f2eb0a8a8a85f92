#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;

fn patch(id: &str) -> ModelPatch {
    serde_json::from_value(serde_json::json!({ "id": id })).unwrap()
}

#[test]
fn every_model_has_a_window_a_provider_of_the_table_and_both_prices() {
    let providers = ["openai", "anthropic", "gemini"];
    for model in Catalog::builtin().list(None) {
        assert!(providers.contains(&model.provider.as_str()), "{model:?}");
        assert!(model.context_window >= 100_000 && model.max_output.is_some(), "{model:?}");
        assert!(model.input_cost_per_million.is_some() && model.output_cost_per_million.is_some(), "{model:?}");
        assert_eq!(Catalog::builtin().get(&model.id), Some(model), "each id finds its own model");
    }
    for provider in providers {
        assert!(!list_models(Some(provider)).is_empty(), "{provider} has models");
    }
}

#[test]
fn names_find_models_by_alias_case_prefix_and_dated_snapshot() {
    let id = |name: &str| get_model_info(name).map(|m| m.id.as_str());
    assert_eq!(id("sonnet"), Some("claude-sonnet-4-6"));
    assert_eq!(id("Claude-Sonnet-4-5-20250929"), Some("claude-sonnet-4-5"));
    assert_eq!(id("models/gemini-2.5-pro"), Some("gemini-2.5-pro"));
    assert_eq!(id("openrouter/gpt-5.2-codex"), Some("gpt-5.2-codex"));
    assert_eq!(id("gpt-5.2-2025-12-11"), Some("gpt-5.2"));
    assert_eq!(id("gpt-5-mini"), Some("gpt-5-mini"), "not gpt-5 with a suffix");
    // A variant that is not a dated snapshot is not priced as the model it starts with.
    assert_eq!(id("gpt-5.2-codex-turbo"), None);
    assert_eq!(id("qwen2.5-coder"), None);
}

#[test]
fn the_latest_model_is_the_first_listed_with_the_capability() {
    assert_eq!(get_latest_model("openai", None).map(|m| m.id.as_str()), Some("gpt-5.5"));
    assert_eq!(get_latest_model("gemini", Some("reasoning")).map(|m| m.id.as_str()), Some("gemini-3.1-pro-preview"));
    assert!(get_latest_model("gemini", Some("telepathy")).is_none());
    assert!(get_latest_model("mistral", None).is_none());
    let newest_without_reasoning = get_latest_model("openai", Some("tools")).filter(|m| !m.supports_reasoning);
    assert!(newest_without_reasoning.is_none(), "the newest OpenAI model reasons");
}

#[test]
fn cost_prices_fresh_cached_and_written_prompt_tokens_and_output_apart() {
    let opus = get_model_info("claude-opus-4-6").unwrap();
    // 10k prompt tokens of which 6k read from the cache and 1k written to it, 2k out:
    // 3k × $5 + 6k × $0.50 + 1k × $6.25 + 2k × $25 per million.
    let usage = Usage { cache_read_tokens: Some(6_000), cache_write_tokens: Some(1_000), ..Usage::new(10_000, 2_000) };
    let expected = (3_000.0 * 5.0 + 6_000.0 * 0.5 + 1_000.0 * 6.25 + 2_000.0 * 25.0) / 1e6;
    assert!((opus.cost(&usage).unwrap() - expected).abs() < 1e-12, "{:?} vs {expected}", opus.cost(&usage));
    // No cache prices: cached tokens cost what input costs.
    let unpriced_cache = ModelInfo { cache_read_cost_per_million: None, cache_write_cost_per_million: None, ..opus.clone() };
    assert!((unpriced_cache.cost(&usage).unwrap() - (10_000.0 * 5.0 + 2_000.0 * 25.0) / 1e6).abs() < 1e-12);
    let no_price = ModelInfo { output_cost_per_million: None, ..opus.clone() };
    assert_eq!(no_price.cost(&usage), None);
}

#[test]
fn overrides_change_the_fields_they_give_and_add_models() {
    let mut cheaper = patch("gpt-5.2");
    cheaper.input_cost_per_million = Some(1.0);
    let mut local = patch("qwen3-coder");
    local.provider = Some("openai-compatible".into());
    local.context_window = Some(65_536);
    local.input_cost_per_million = Some(0.0);
    local.output_cost_per_million = Some(0.0);
    let catalog = Catalog::builtin().clone().with_overrides(Overrides { models: vec![cheaper, local] }).unwrap();
    let gpt = catalog.get("gpt-5.2").unwrap();
    assert_eq!((gpt.input_cost_per_million, gpt.output_cost_per_million), (Some(1.0), Some(14.0)));
    let qwen = catalog.get("qwen3-coder").unwrap();
    assert_eq!((qwen.context_window, qwen.cost(&Usage::new(5, 5))), (65_536, Some(0.0)));
    assert_eq!(catalog.latest("openai-compatible", None).map(|m| m.id.as_str()), Some("qwen3-coder"));
    assert_eq!(get_model_info("qwen3-coder"), None, "the built-in catalog is untouched");
}

/// Where added models go, as when each was inserted on its own: first among its provider's, the
/// last added first; a provider the catalog lacks after all the others, in the order it came.
#[test]
fn added_models_go_first_among_their_providers_and_new_providers_last() {
    let model = |id: &str, provider: &str| {
        let mut entry = patch(id);
        (entry.provider, entry.context_window) = (Some(provider.into()), Some(1000));
        entry
    };
    let mut repriced = patch("local-a");
    repriced.input_cost_per_million = Some(2.0);
    let models = vec![
        model("local-a", "local"),
        model("gpt-x", "openai"),
        model("mine-a", "mine"),
        model("local-b", "local"),
        model("gpt-y", "openai"),
        repriced,
    ];
    let catalog = Catalog::builtin().clone().with_overrides(Overrides { models }).unwrap();
    let ids: Vec<&str> = catalog.list(None).iter().map(|m| m.id.as_str()).collect();
    let builtin = Catalog::builtin().list(None);
    let first_openai = builtin.iter().position(|m| m.provider == "openai").unwrap();
    assert_eq!(ids[first_openai..first_openai + 3], ["gpt-y", "gpt-x", builtin[first_openai].id.as_str()]);
    assert_eq!(ids[ids.len() - 3..], ["local-b", "local-a", "mine-a"]);
    assert_eq!(ids.len(), builtin.len() + 5);
    assert_eq!(catalog.get("local-a").and_then(|m| m.input_cost_per_million), Some(2.0), "an added model can be corrected");
}

#[test]
fn a_new_model_without_provider_or_window_is_refused_naming_its_entry() {
    let error = Catalog::builtin().clone().with_overrides(Overrides { models: vec![patch("gpt-5.2"), patch("mine")] });
    assert_eq!(error.unwrap_err(), "models[1]: `mine` is not in the catalog, so it needs `provider` and `context_window`");
}

#[test]
fn entries_read_from_json_name_the_entry_and_key_that_are_wrong() {
    let read = |entries: serde_json::Value| Overrides::from_json(&entries).map(|o| o.models.len());
    assert_eq!(read(serde_json::json!([{"id": "o3", "input_cost_per_million": 2.5, "aliases": null}])), Ok(1));
    assert_eq!(read(serde_json::json!({"id": "o3"})).unwrap_err(), "models: expected an array of model entries");
    let wrong = |entry| read(serde_json::json!([{"id": "o3"}, entry])).unwrap_err();
    assert_eq!(
        wrong(serde_json::json!({"id": "x", "context_window": "big"})),
        "models[1].context_window: expected a whole number of tokens, not \"big\""
    );
    assert_eq!(
        wrong(serde_json::json!({"id": "x", "input_cost_per_million": -1})),
        "models[1].input_cost_per_million: expected a price in dollars, 0 or more, not -1"
    );
    assert_eq!(
        wrong(serde_json::json!({"id": "x", "aliases": ["a", 1]})),
        "models[1].aliases: expected an array of strings, not [\"a\",1]"
    );
    assert_eq!(wrong(serde_json::json!({"model": "x"})).split(", expected").next(), Some("models[1].model: unknown field"));
    assert_eq!(wrong(serde_json::json!({"provider": "openai"})), "models[1]: missing field `id`");
    assert_eq!(wrong(serde_json::json!("o3")), "models[1]: expected an object");
}

#[test]
fn sums_of_usage_count_the_priced_responses() {
    let priced = Usage { cost_usd: Some(0.25), ..Usage::new(1, 1) };
    assert_eq!((Usage::default() + priced.clone() + priced.clone()).cost_usd, Some(0.5));
    assert_eq!((Usage::default() + Usage::new(1, 1)).cost_usd, None);
    assert_eq!(serde_json::to_value(Usage::new(1, 1)).unwrap()["cost_usd"], serde_json::Value::Null);
}
