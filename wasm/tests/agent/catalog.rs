//! The `models` option: entries laid over the model catalog, which price the session's responses.

use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::support::*;
use openagent_wasm::Agent;

#[test]
async fn a_model_priced_by_the_option_costs_what_its_prices_say() {
    let priced = json!({"models": [{"id": "fake-model", "provider": "openai-compatible", "context_window": 8192,
        "input_cost_per_million": 1000, "output_cost_per_million": 2000}]});
    let (agent, _fetch) = agent_with(json!([{"text": "Done."}]), priced);
    submit(&agent, "hello").await.unwrap();
    // The fake server reports 10 tokens in and 5 out: 10 × $1000 + 5 × $2000 per million.
    let usage = data(&agent.usage());
    assert_eq!((usage["total_tokens"].as_u64(), usage["cost_usd"].as_f64()), (Some(15), Some(0.02)), "{usage}");

    let (unpriced, _fetch) = agent_with(json!([{"text": "Done."}]), json!({}));
    submit(&unpriced, "hello").await.unwrap();
    assert_eq!(data(&unpriced.usage())["cost_usd"], json!(null), "a model the catalog does not know has no cost");
}

#[test]
fn a_wrong_entry_is_refused_naming_it() {
    let fetch = scripted_fetch(js(json!([])));
    let refused = |models| error_message(&Agent::new(options(&fetch, json!({ "models": models }))).err().expect("refused"));
    assert!(refused(json!([{"id": "x", "context_window": "big"}])).contains("models[0].context_window: expected a whole number"));
    assert!(refused(json!([{"id": "gpt-5.2"}, {"id": "mine"}])).contains("models[1]: `mine` is not in the catalog"));
    assert!(refused(json!({"id": "x"})).contains("models: expected an array"));
}
