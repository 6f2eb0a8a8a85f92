//! The generated typings, kept in step with the Rust types and with what serde emits.
//!
//! - `typings.generated.d.ts` must be what ts-rs makes of the Rust types today.
//! - `web/tests/serde_samples.ts` must be what serde emits today for samples of each type: every
//!   kind of event, turn and content part, every value of each string enum, optional fields
//!   present and absent. CI's `tsc --strict` compiles it against the package's `.d.ts`, so a
//!   field serde writes that the typings lack (or name or type differently) fails there.
//! - The hand-written options name exactly the fields `options.rs` reads.
//! - `web/js/providers.generated.js` must hold the provider table's base URLs today: the
//!   playground's defaults, read from a module of its own so the package carries nothing for them.
//!
//! A stale file fails with the command that rewrites both: [`REGENERATE`].

use std::any::TypeId;
use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use openagent_core::llm::json_text;
use openagent_core::llm::openai_chat::LOCAL_BASE_URL;
use openagent_core::llm::providers::PROVIDERS;
use openagent_core::sandbox::SandboxMode;
use openagent_core::session::{SessionEvent, SessionSnapshot};
use openagent_core::setup::ProviderKind;
use openagent_memenv::MemorySnapshot;
use ts_rs::{Config, TypeVisitor, TS};

use crate::agent::Outcome;
use crate::options::{CALLBACKS, COMPACTION_FIELDS, LIMIT_FIELDS, OPTION_FIELDS, REASONING_EFFORTS};

#[path = "typings_format.rs"]
mod format;
#[path = "typings_samples.rs"]
mod samples;

pub const REGENERATE: &str = "UPDATE_TYPINGS=1 cargo test -p openagent-wasm --lib typings";

const HAND_WRITTEN: &str = include_str!("typings.hand-written.d.ts");

const GENERATED_PATH: &str = "src/typings.generated.d.ts";
const SAMPLES_PATH: &str = "../web/tests/serde_samples.ts";
const PROVIDERS_PATH: &str = "../web/js/providers.generated.js";

/// `u64` is a `number`: JS gets every value through `JSON.parse`.
pub fn config() -> Config {
    Config::new().with_large_int("number")
}

#[test]
fn the_generated_typings_are_up_to_date() {
    check_file(GENERATED_PATH, &generated());
}

#[test]
fn the_serde_samples_are_up_to_date() {
    check_file(SAMPLES_PATH, &samples::render());
}

#[test]
fn the_playground_provider_defaults_are_up_to_date() {
    check_file(PROVIDERS_PATH, &provider_defaults());
}

/// The playground's base URL for each provider: the table's default, and for an OpenAI-compatible
/// server (which has none) where a local one usually listens, the URL its local-server preset fills in.
fn provider_defaults() -> String {
    let rows: Vec<String> = PROVIDERS
        .iter()
        .map(|spec| format!("  {:?}: {:?},\n", spec.name, spec.default_base_url.unwrap_or(LOCAL_BASE_URL)))
        .collect();
    format!(
        "// Generated from the provider table (openagent-llm's providers.rs) by wasm/src/typings_tests.rs; do not edit.\n\
         // Regenerate: {REGENERATE}\n\n\
         /** Each provider's API root when none is given; for openai-compatible, a local server's usual one. */\n\
         export const DEFAULT_BASE_URLS = Object.freeze({{\n{}}});\n",
        rows.concat()
    )
}

/// Events are written by hand and read through the derive: each kind reads back as it was. The
/// text `write_json` writes for JS is the event's value as `json_text` writes it, byte for byte.
#[test]
fn every_event_reads_back_as_it_was_written() {
    for data in samples::events() {
        let event = SessionEvent { timestamp: "2025-01-01T00:00:00.000Z".into(), session_id: "s-1".into(), data };
        let json = serde_json::to_string(&event).expect("an event serialises");
        assert_eq!(serde_json::from_str::<SessionEvent>(&json).expect(&json), event);
        let mut text = Vec::new();
        event.write_json(&mut text);
        let value = serde_json::to_value(&event).expect("an event serialises");
        assert_eq!(String::from_utf8(text).unwrap(), json_text::to_string(&value), "{}", event.kind());
    }
}

/// The options are read by hand, so their typings are written by hand: they must name the
/// fields `options.rs` reads, no more and no fewer.
#[test]
fn the_hand_written_options_name_the_fields_options_rs_reads() {
    let options: Vec<&str> = OPTION_FIELDS.iter().chain(&CALLBACKS).chain(&["snapshot"]).copied().collect();
    assert_eq!(interface_fields("AgentOptions"), sorted(&options));
    assert_eq!(interface_fields("Limits"), sorted(LIMIT_FIELDS));
    assert_eq!(interface_fields("Compaction"), sorted(COMPACTION_FIELDS));
    // The modes as the core reads them (`sandbox` goes through its deserializer).
    let modes: Vec<String> = SandboxMode::NAMES.split(", ").map(|mode| format!("{mode:?}")).collect();
    let declared = format!("export type SandboxMode = {};\n", modes.join(" | "));
    assert!(HAND_WRITTEN.contains(&declared), "the hand-written typings should declare {declared}");
}

/// The fields of `export interface {name}` in the hand-written typings.
fn interface_fields(name: &str) -> BTreeSet<String> {
    let start = format!("export interface {name} {{\n");
    let body = HAND_WRITTEN.split_once(&start).map(|(_, rest)| rest).unwrap_or_else(|| panic!("no {start}"));
    let body = &body[..body.find("\n}").unwrap_or(body.len())];
    // A field is `  name: type;` or `  name?: type;`, indented once; comments start with `/**` or `*`.
    let names = body.lines().filter_map(|line| {
        let field = line.strip_prefix("  ")?;
        let name: String = field.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        let rest = &field[name.len()..];
        (!name.is_empty() && (rest.starts_with(':') || rest.starts_with("?:"))).then_some(name)
    });
    names.collect()
}

fn sorted(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|name| name.to_string()).collect()
}

/// Compares `text` with the checked-in file, or rewrites the file under `UPDATE_TYPINGS`.
fn check_file(relative: &str, text: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    if std::env::var_os("UPDATE_TYPINGS").is_some() {
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current == text {
        return;
    }
    let line =
        current.lines().zip(text.lines()).position(|(a, b)| a != b).unwrap_or(current.lines().count().min(text.lines().count()));
    panic!(
        "wasm/{relative} is not what the Rust types give today (first difference at line {}: {:?} should be {:?}).\n\
         Regenerate it, and check the difference, with:\n    {REGENERATE}\n",
        line + 1,
        current.lines().nth(line).unwrap_or("<end>"),
        text.lines().nth(line).unwrap_or("<end>"),
    );
}

// ---------------------------------------------------------------------------------------------
// typings.generated.d.ts
// ---------------------------------------------------------------------------------------------

/// The declarations of what the API hands to JS, and of every type they name.
fn generated() -> String {
    let mut out = format!(
        "// Generated from the Rust types by wasm/src/typings_tests.rs (ts-rs); do not edit.\n\
         // Regenerate: {REGENERATE}\n\n"
    );
    out += &string_union("Provider", ProviderKind::ALL.map(ProviderKind::name));
    out += &string_union("ReasoningEffort", REASONING_EFFORTS);
    let mut declarations = Declarations { cfg: config(), seen: HashSet::new(), out };
    declarations.visit::<SessionEvent>();
    declarations.visit::<Outcome<'static>>();
    declarations.visit::<SessionSnapshot>();
    declarations.visit::<MemorySnapshot>();
    declarations.visit::<openagent_core::llm::catalog::ModelInfo>();
    declarations.out.truncate(declarations.out.trim_end().len());
    declarations.out + "\n"
}

fn string_union<const N: usize>(name: &str, values: [&str; N]) -> String {
    let values: Vec<String> = values.iter().map(|value| format!("{value:?}")).collect();
    format!("export type {name} = {};\n\n", values.join(" | "))
}

/// Declares each type it visits once, then the types that one names, in the order of their names
/// (ts-rs lists them in no fixed order).
struct Declarations {
    cfg: Config,
    seen: HashSet<TypeId>,
    out: String,
}

impl TypeVisitor for Declarations {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // Primitives and containers have no declaration; their type arguments are visited apart.
        if T::output_path().is_none() || !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        // ts-rs's own lets object values be `undefined`; the hand-written one is JSON's.
        if T::ident(&self.cfg) != "JsonValue" {
            self.out += &format::declaration(&T::docs().unwrap_or_default(), &T::decl(&self.cfg));
            self.out += "\n";
        }
        let mut named = Named { cfg: &self.cfg, types: Vec::new() };
        T::visit_dependencies(&mut named);
        let mut types = named.types;
        types.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, declare) in types {
            declare(self);
        }
    }
}

/// The types a type names, each with its name and what declares it.
struct Named<'a> {
    cfg: &'a Config,
    types: Vec<(String, fn(&mut Declarations))>,
}

impl TypeVisitor for Named<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if T::output_path().is_some() {
            self.types.push((T::ident(self.cfg), |declarations| declarations.visit::<T>()));
        }
    }
}
