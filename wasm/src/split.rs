//! What the package's main module leaves to modules of its own, fetched when first needed: each
//! provider's codec, when an agent is made, for its first model call (a page fetches only its
//! provider's), and the built-in shell, by the first command.
//!
//! `scripts/build-wasm` builds with `--cfg openagent_split` and splits the module with
//! wasm-split-cli (from Dioxus). Its contract is a pair of names per split point: the main module
//! imports `__wasm_split_00___<module>___00_import_<hash>_<name>` and exports
//! `__wasm_split_00___<module>___00_export_<hash>_<name>`. The tool moves the export, and all
//! that only it reaches, into a module of its own, and turns the import into a call through the
//! function table, which that module fills when it is instantiated (`src/split.js` fetches and
//! instantiates it). So an import must not be called before its module is in.
//!
//! Without the cfg (tests, and any other build) everything is built in place.

use std::rc::Rc;

use openagent_core::llm::http::HttpClient;
use openagent_core::llm::{ApiKey, LlmClient, LlmError};
use openagent_core::runtime::Runtime;
use openagent_core::setup::ProviderSettings;
use openagent_memenv::MemoryEnvironment;
use wasm_bindgen::prelude::*;

/// The codec of `settings`, with `key` on its requests: from its module, fetched on the first call
/// and again on the next when that fails (an error of kind `network`, which the session retries).
pub async fn client(settings: &ProviderSettings, key: ApiKey, http: Rc<dyn HttpClient>) -> Result<Rc<dyn LlmClient>, LlmError> {
    #[cfg(openagent_split)]
    return modules::client(settings, key, http).await;
    #[cfg(not(openagent_split))]
    Ok(settings.client_with_key(key, http, true))
}

/// Starts fetching the codec of `settings`, so that it is there, or nearly, by the first call.
pub fn prefetch(settings: &ProviderSettings) {
    #[cfg(openagent_split)]
    modules::prefetch(settings);
    #[cfg(not(openagent_split))]
    let _ = settings;
}

/// Where the package's split modules are fetched from: the URL of the folder that holds them
/// (relative to the page), for a page that serves them elsewhere than beside the glue (a
/// bundler's assets, a CDN). Modules already loaded stay. A build that was not split has none.
#[wasm_bindgen(js_name = modulesFrom)]
pub fn modules_from(#[wasm_bindgen(unchecked_param_type = "string | URL")] url: JsValue) -> Result<(), JsValue> {
    #[cfg(openagent_split)]
    return modules::set_modules_from(&url);
    #[cfg(not(openagent_split))]
    {
        let _ = url;
        Ok(())
    }
}

/// An empty in-memory environment whose shell is in its module, fetched on the first command
/// and again on the next when that fails.
pub fn memory_environment(runtime: Rc<dyn Runtime>) -> MemoryEnvironment {
    #[cfg(openagent_split)]
    return MemoryEnvironment::with_shell(runtime, modules::shell);
    #[cfg(not(openagent_split))]
    MemoryEnvironment::new(runtime)
}

#[cfg(openagent_split)]
mod modules {
    use std::ffi::c_void;
    use std::rc::Rc;

    use js_sys::Promise;
    use openagent_core::env::{EnvError, ExecOptions};
    use openagent_core::llm::anthropic_messages::AnthropicMessages;
    use openagent_core::llm::gemini::Gemini;
    use openagent_core::llm::http::HttpClient;
    use openagent_core::llm::openai_chat::OpenAiChat;
    use openagent_core::llm::openai_responses::OpenAiResponses;
    use openagent_core::llm::providers::WireApi;
    use openagent_core::llm::{ApiKey, ErrorKind, HttpLlmClient, LlmClient, LlmError, ProviderConfig};
    use openagent_core::setup::ProviderSettings;
    use openagent_memenv::{builtin_shell, MemoryEnvironment, ShellRun};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::JsFuture;

    use crate::fetch::describe;

    #[wasm_bindgen(module = "/src/split.js")]
    extern "C" {
        /// Fetches and instantiates the package's `openagent_wasm_<name>-<build>.wasm` with this
        /// module's `exports`, once; a failed load is tried again by the next call.
        #[wasm_bindgen(js_name = loadModule)]
        fn load_module(name: &str, exports: JsValue) -> Promise;

        #[wasm_bindgen(js_name = modulesFrom, catch)]
        pub fn set_modules_from(url: &JsValue) -> Result<(), JsValue>;
    }

    /// `name`'s module, or why it could not be loaded.
    async fn load(name: &str) -> Result<(), String> {
        match JsFuture::from(load_module(name, wasm_bindgen::exports())).await {
            Ok(_) => Ok(()),
            Err(error) => Err(format!("the package's {name} module could not be loaded: {}", describe(&error))),
        }
    }

    /// What crosses to a split module's export and back, behind a pointer (both sides are this
    /// crate, built once): the export's inputs, and what it made of them.
    struct Codec {
        config: ProviderConfig,
        http: Rc<dyn HttpClient>,
        client: Option<Rc<dyn LlmClient>>,
    }

    struct Shell<'a> {
        env: &'a MemoryEnvironment,
        command: &'a str,
        options: &'a ExecOptions,
        run: Option<ShellRun<'a>>,
    }

    /// The split points: each import, and the export it calls once its module is in.
    macro_rules! split_points {
        ($($name:ident: $import:literal, $export:literal, |$slot:ident: $slot_type:ty| $body:expr;)*) => {
            #[link(wasm_import_module = "./__wasm_split.js")]
            unsafe extern "C" {
                $(
                    #[link_name = $import]
                    fn $name(slot: *mut c_void);
                )*
            }

            mod exports {
                use super::*;
                $(
                    #[unsafe(export_name = $export)]
                    extern "C" fn $name(slot: *mut c_void) {
                        // SAFETY: the import's caller passes a live, exclusive slot of this type,
                        // and holds what it borrows until the slot's result is done with.
                        let $slot = unsafe { &mut *slot.cast::<$slot_type>() };
                        $body
                    }
                )*
            }
        };
    }

    split_points! {
        openai: "__wasm_split_00___openai___00_import_oa_openai", "__wasm_split_00___openai___00_export_oa_openai",
            |slot: Codec| slot.client = Some(Rc::new(HttpLlmClient::new(OpenAiResponses::new(slot.config.clone()), slot.http.clone())));
        anthropic: "__wasm_split_00___anthropic___00_import_oa_anthropic", "__wasm_split_00___anthropic___00_export_oa_anthropic",
            |slot: Codec| slot.client = Some(Rc::new(HttpLlmClient::new(AnthropicMessages::new(slot.config.clone()), slot.http.clone())));
        gemini: "__wasm_split_00___gemini___00_import_oa_gemini", "__wasm_split_00___gemini___00_export_oa_gemini",
            |slot: Codec| slot.client = Some(Rc::new(HttpLlmClient::new(Gemini::new(slot.config.clone()), slot.http.clone())));
        chat: "__wasm_split_00___chat___00_import_oa_chat", "__wasm_split_00___chat___00_export_oa_chat",
            |slot: Codec| slot.client = Some(Rc::new(HttpLlmClient::new(OpenAiChat::new(slot.config.clone()), slot.http.clone())));
        shell_run: "__wasm_split_00___shell___00_import_oa_shell", "__wasm_split_00___shell___00_export_oa_shell",
            |slot: Shell<'static>| slot.run = Some(builtin_shell(slot.env, slot.command, slot.options));
    }

    /// wasm-split-cli places what it cannot trace under the module's `main` function, and stops
    /// when there is none, as in a library; this one is never called. (Its body is its own, so
    /// the compiler cannot fold it into another function.)
    #[unsafe(no_mangle)]
    extern "C" fn main() -> u32 {
        std::hint::black_box(0x6f61)
    }

    /// The module of `settings`' codec, and the import that builds it.
    fn codec(settings: &ProviderSettings) -> (&'static str, unsafe extern "C" fn(*mut c_void)) {
        match settings.kind.spec().wire {
            WireApi::OpenAiResponses => ("openai", openai),
            WireApi::AnthropicMessages => ("anthropic", anthropic),
            WireApi::Gemini => ("gemini", gemini),
            WireApi::OpenAiChat => ("chat", chat),
        }
    }

    pub fn prefetch(settings: &ProviderSettings) {
        // Its failure is the first call's to report (the load is tried again then).
        let _ = load_module(codec(settings).0, wasm_bindgen::exports());
    }

    pub async fn client(
        settings: &ProviderSettings,
        key: ApiKey,
        http: Rc<dyn HttpClient>,
    ) -> Result<Rc<dyn LlmClient>, LlmError> {
        let (name, build) = codec(settings);
        load(name).await.map_err(|why| LlmError::new(ErrorKind::Network, why))?;
        let mut slot = Codec { config: settings.config(key, true), http, client: None };
        // SAFETY: the module is in (above), so the import's table slot holds its export.
        unsafe { build((&raw mut slot).cast()) };
        Ok(slot.client.expect("a codec's export fills its slot"))
    }

    pub fn shell<'a>(env: &'a MemoryEnvironment, command: &'a str, options: &'a ExecOptions) -> ShellRun<'a> {
        Box::pin(async move {
            load("shell").await.map_err(EnvError::Io)?;
            let mut slot = Shell { env, command, options, run: None };
            // SAFETY: as for a codec; the slot's borrows outlive the run, awaited here.
            unsafe { shell_run((&raw mut slot).cast()) };
            slot.run.expect("the shell's export fills its slot").await
        })
    }
}
