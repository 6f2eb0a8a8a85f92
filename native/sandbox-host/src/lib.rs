//! The sandboxed host (feature `sandbox`): the agent compiled for `wasm32-wasip1`
//! (`openagent-sandbox-guest`) run inside wasmtime, so that it can touch only the directory it
//! was given, start no processes and reach no network but the model's base URL.
//!
//! - **Files**: one WASI preopen, the run's directory, seen by the guest as `/workspace`. No other
//!   path exists for it; symlinks out of it do not open (WASI's capability model).
//! - **Model**: the host imports of `openagent_sandbox_guest::abi`, answered by [`model`]: only
//!   requests under the provider's base URL are forwarded, with the API key added here, so the
//!   key never enters the guest.
//! - **Caps**: linear memory ([`SandboxLimits::memory_bytes`], enforced by a `ResourceLimiter`
//!   that traps the growing `memory.grow`) and wall time ([`SandboxLimits::timeout`], enforced by
//!   epoch interruption while the guest computes and by deadlines while it waits on the host).
//!
//! WASI is wasmtime-wasi's preview-1 layer (`p1`), the maintained successor of `wasi-common`
//! (frozen at 46.x upstream); native/README.md records why.
//!
//! It sits on the runner (the same report, artifacts and store as a native run) and is the only
//! crate that depends on wasmtime; only the `sandbox` features of the CLI and the tests bring it
//! in, and nothing else may depend on it.
//!
//! ```no_run
//! use std::time::Duration;
//! use openagent_core::setup::ProviderSettings;
//! use openagent_runner::Wake;
//! use openagent_sandbox_host::{Sandbox, SandboxLimits, SandboxRun};
//!
//! let sandbox = Sandbox::load("openagent-sandbox-guest.wasm".as_ref()).unwrap();
//! let settings = ProviderSettings::resolve(None, None, None, |k| std::env::var(k).ok()).unwrap();
//! let run = SandboxRun::new("./project", "Add a README", settings, "claude-sonnet-4-5");
//! let ended = sandbox.run(&run, &SandboxLimits::default(), |wake| {
//!     if let Wake::Event(event) = wake {
//!         println!("{}", event.kind());
//!     }
//! });
//! println!("{ended:?}");
//! ```

mod cli;
mod error;
mod model;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use openagent_core::setup::ProviderSettings;
use openagent_core::SessionEvent;
use openagent_sandbox_guest::abi;
use openagent_sandbox_guest::{GuestConfig, GuestEnd, WORKSPACE};
use wasmtime::{Caller, Config, Engine, Linker, Module, ResourceLimiter, Store, UpdateDeadline};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

pub use cli::{run_cli, SandboxArgs};
pub use error::SandboxError;
pub use model::ModelGate;

use openagent_runner::Wake;

/// How often the epoch advances: the granularity of the time cap while the guest computes.
const EPOCH_TICK: Duration = Duration::from_millis(10);
/// How often the caller's `on_wake` gets a [`Wake::Tick`] while the guest runs (the spinner).
const TICK: Duration = Duration::from_millis(80);

/// What a sandboxed run may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxLimits {
    /// The guest's linear memory, in bytes.
    pub memory_bytes: usize,
    /// Wall time from the guest's start, model calls included.
    pub timeout: Duration,
}

impl Default for SandboxLimits {
    fn default() -> Self {
        Self { memory_bytes: 256 * 1024 * 1024, timeout: Duration::from_secs(600) }
    }
}

/// One task for the sandboxed agent.
#[derive(Debug, Clone)]
pub struct SandboxRun {
    /// The only directory the guest can use.
    pub dir: PathBuf,
    /// The provider, with its key: the key stays on this side.
    pub settings: ProviderSettings,
    /// What the guest is told (no key in it).
    pub config: GuestConfig,
    /// Set from any thread to stop the run at once (Ctrl-C): the guest is interrupted as the
    /// time cap interrupts it, and the run ends as [`SandboxEnd::Stopped`].
    pub stop: Arc<AtomicBool>,
}

impl SandboxRun {
    pub fn new(dir: impl Into<PathBuf>, task: &str, settings: ProviderSettings, model: &str) -> Self {
        let config = GuestConfig {
            task: task.to_owned(),
            provider: settings.kind.name().to_owned(),
            model: model.to_owned(),
            base_url: settings.base_url.clone(),
            headers: settings.headers.clone(),
            session_id: String::new(),
            max_turns: 0,
            max_tool_rounds: 0,
            reasoning_effort: None,
        };
        Self { dir: dir.into(), settings, config, stop: Arc::default() }
    }
}

/// How a sandboxed run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum SandboxEnd {
    /// The guest ran to its end and reported it.
    Finished(GuestEnd),
    /// The time cap stopped it.
    TimedOut(Duration),
    /// It asked for more memory than the cap.
    OutOfMemory(usize),
    /// [`SandboxRun::stop`] was set.
    Stopped,
    /// It could not start, trapped, or exited without reporting an end.
    Failed(String),
}

/// A compiled guest, ready to run any number of times (concurrently too).
#[derive(Clone)]
pub struct Sandbox {
    engine: Engine,
    module: Module,
}

/// Why wasm stopped on the host's say-so.
#[derive(Debug)]
enum Cap {
    Time,
    Memory,
    /// The host asked the run to stop.
    Stop,
}

impl std::fmt::Display for Cap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Time => "the sandbox's time cap was reached",
            Self::Memory => "the sandbox's memory cap was reached",
            Self::Stop => "the sandboxed run was stopped",
        })
    }
}

impl std::error::Error for Cap {}

/// What the guest's store holds.
struct Host {
    wasi: WasiP1Ctx,
    memory: MemoryCap,
    model: ModelGate,
    messages: mpsc::Sender<Message>,
    deadline: Instant,
    stop: Arc<AtomicBool>,
}

/// What the guest's thread tells the caller's.
enum Message {
    Event(SessionEvent),
    End(GuestEnd),
    /// The guest's `_start` returned (or trapped), for this reason when it did not end well.
    Exited(Option<SandboxEnd>),
}

/// Refuses growing linear memory past the cap, trapping the `memory.grow` that asked.
struct MemoryCap {
    limit: usize,
}

impl ResourceLimiter for MemoryCap {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.limit {
            return Err(wasmtime::Error::new(Cap::Memory));
        }
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        // Tables hold function references; a million is far past what a guest needs.
        Ok(desired <= 1_000_000)
    }
}

impl Sandbox {
    /// Compiles the guest module at `path` (a `.wasm` built for `wasm32-wasip1`). Compiling the
    /// agent takes seconds, so the machine code is kept beside it (`<name>.<hash>.cwasm`, the
    /// hash naming the module and the engine's settings) and later loads take milliseconds.
    pub fn load(path: &Path) -> Result<Self, SandboxError> {
        let bytes = std::fs::read(path).map_err(|error| SandboxError::Unreadable { path: path.to_owned(), error })?;
        let engine = engine()?;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(&bytes, &mut hasher);
        std::hash::Hash::hash(&engine.precompile_compatibility_hash(), &mut hasher);
        let cached = path.with_extension(format!("{:016x}.cwasm", std::hash::Hasher::finish(&hasher)));
        if cached.is_file() {
            // SAFETY: `deserialize_file` runs the file's machine code unchecked, so it must be one
            // this function wrote: it is named by the hash of the module and of the engine's
            // settings, and sits beside the guest, in a directory as trusted as the guest itself
            // (whoever can write there can already replace the agent). A stale or foreign file
            // is rejected by wasmtime's own header check and compiled afresh.
            if let Ok(module) = unsafe { Module::deserialize_file(&engine, &cached) } {
                return Ok(Self { engine, module });
            }
        }
        let module = Module::new(&engine, &bytes).map_err(|error| SandboxError::InvalidGuest { path: path.to_owned(), error })?;
        // Written aside and renamed, so a concurrent loader never sees half a file. A directory
        // that cannot be written only costs the next start its compile time.
        if let Ok(serialized) = module.serialize() {
            let partial = cached.with_extension(format!("{}.partial", std::process::id()));
            if std::fs::write(&partial, serialized).and_then(|()| std::fs::rename(&partial, &cached)).is_err() {
                let _ = std::fs::remove_file(&partial);
            }
        }
        Ok(Self { engine, module })
    }

    /// Compiles a guest from its binary or text (`.wat`) form.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SandboxError> {
        let engine = engine()?;
        let module = Module::new(&engine, bytes).map_err(SandboxError::InvalidModule)?;
        Ok(Self { engine, module })
    }

    /// Runs `run` to its end, on a thread of its own; `on_wake` gets every event the guest
    /// emits, and a [`Wake::Tick`] now and then, on the caller's thread.
    pub fn run(&self, run: &SandboxRun, limits: &SandboxLimits, mut on_wake: impl FnMut(Wake<()>)) -> SandboxEnd {
        let (tx, rx) = mpsc::channel();
        let sandbox = self.clone();
        let (run, limits) = (run.clone(), limits.clone());
        let guest = thread::Builder::new()
            .name("openagent-sandbox".into())
            .spawn(move || {
                let ended = sandbox.run_guest(&run, &limits, tx.clone());
                let _ = tx.send(Message::Exited(ended));
            })
            .map_err(|e| format!("cannot start the sandbox thread: {e}"));
        if let Err(message) = guest {
            return SandboxEnd::Failed(message);
        }
        let mut end = None;
        loop {
            match rx.recv_timeout(TICK) {
                Ok(Message::Event(event)) => on_wake(Wake::Event(event)),
                Ok(Message::End(guest_end)) => end = Some(SandboxEnd::Finished(guest_end)),
                Ok(Message::Exited(failure)) => {
                    return failure.or(end).unwrap_or_else(|| {
                        SandboxEnd::Failed("the sandboxed agent exited without reporting how its run ended".into())
                    })
                }
                Err(mpsc::RecvTimeoutError::Timeout) => on_wake(Wake::Tick),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return end.unwrap_or_else(|| SandboxEnd::Failed("the sandbox thread stopped unexpectedly".into()))
                }
            }
        }
    }

    /// Instantiates the guest and runs its `_start`; `None` when it ended normally.
    fn run_guest(&self, run: &SandboxRun, limits: &SandboxLimits, messages: mpsc::Sender<Message>) -> Option<SandboxEnd> {
        let deadline = Instant::now() + limits.timeout;
        let config = serde_json::to_string(&run.config).expect("the configuration serialises");
        let mut wasi = WasiCtxBuilder::new();
        // A synchronous embedding: file operations run on this thread rather than a blocking pool.
        wasi.args(&["openagent-sandbox-guest", config.as_str()]).inherit_stderr().allow_blocking_current_thread(true);
        if let Err(e) = wasi.preopened_dir(&run.dir, WORKSPACE, FsPerms::ReadWrite) {
            return Some(SandboxEnd::Failed(format!("cannot open {} for the sandbox: {e}", run.dir.display())));
        }
        let host = Host {
            wasi: wasi.build_p1(),
            memory: MemoryCap { limit: limits.memory_bytes },
            model: ModelGate::new(&run.settings),
            messages,
            deadline,
            stop: run.stop.clone(),
        };
        let mut store = Store::new(&self.engine, host);
        store.limiter(|host| &mut host.memory);
        store.set_epoch_deadline(1);
        let stop = run.stop.clone();
        store.epoch_deadline_callback(move |_| {
            if stop.load(Ordering::Relaxed) {
                Err(wasmtime::Error::new(Cap::Stop))
            } else if Instant::now() >= deadline {
                Err(wasmtime::Error::new(Cap::Time))
            } else {
                Ok(UpdateDeadline::Continue(1))
            }
        });
        let ticking = Arc::new(AtomicBool::new(true));
        let ticker = {
            let (engine, ticking) = (self.engine.clone(), ticking.clone());
            thread::spawn(move || {
                while ticking.load(Ordering::Relaxed) {
                    thread::sleep(EPOCH_TICK);
                    engine.increment_epoch();
                }
            })
        };
        let result = self.start(&mut store);
        ticking.store(false, Ordering::Relaxed);
        let _ = ticker.join();
        match result {
            Ok(()) => None,
            Err(error) => Some(match error.downcast_ref::<Cap>() {
                Some(Cap::Time) => SandboxEnd::TimedOut(limits.timeout),
                Some(Cap::Memory) => SandboxEnd::OutOfMemory(limits.memory_bytes),
                Some(Cap::Stop) => SandboxEnd::Stopped,
                None => match error.downcast_ref::<wasmtime_wasi::I32Exit>() {
                    Some(exit) if exit.0 == 0 => return None,
                    Some(exit) => SandboxEnd::Failed(format!("the sandboxed agent exited with status {}", exit.0)),
                    None => SandboxEnd::Failed(format!("the sandboxed agent failed: {error:?}")),
                },
            }),
        }
    }

    fn start(&self, store: &mut Store<Host>) -> wasmtime::Result<()> {
        let mut linker = Linker::new(&self.engine);
        wasmtime_wasi::p1::add_to_linker_sync(&mut linker, |host: &mut Host| &mut host.wasi)?;
        model::add_to_linker(&mut linker)?;
        linker.func_wrap(abi::MODULE, abi::EVENT, |mut caller: Caller<'_, Host>, ptr: i32, len: i32| {
            let bytes = guest_bytes(&mut caller, ptr, len)?;
            let event = serde_json::from_slice(&bytes).map_err(|e| wasmtime::format_err!("a bad event from the guest: {e}"))?;
            let _ = caller.data().messages.send(Message::Event(event));
            Ok(())
        })?;
        linker.func_wrap(abi::MODULE, abi::FINISH, |mut caller: Caller<'_, Host>, ptr: i32, len: i32| {
            let bytes = guest_bytes(&mut caller, ptr, len)?;
            let end = serde_json::from_slice(&bytes).map_err(|e| wasmtime::format_err!("a bad end from the guest: {e}"))?;
            let _ = caller.data().messages.send(Message::End(end));
            Ok(())
        })?;
        let instance = linker.instantiate(&mut *store, &self.module)?;
        let start = instance.get_typed_func::<(), ()>(&mut *store, "_start")?;
        start.call(&mut *store, ())
    }
}

/// The engine every guest runs on: Cranelift, with epoch interruption for the time cap.
fn engine() -> Result<Engine, SandboxError> {
    let mut config = Config::new();
    config.epoch_interruption(true);
    Engine::new(&config).map_err(SandboxError::Engine)
}

/// The guest's exported linear memory.
fn guest_memory(caller: &mut Caller<'_, Host>) -> wasmtime::Result<wasmtime::Memory> {
    caller
        .get_export("memory")
        .and_then(|export| export.into_memory())
        .ok_or_else(|| wasmtime::format_err!("the guest exports no memory"))
}

/// A copy of `len` bytes at `ptr` in the guest's memory; a trap when they are out of bounds.
fn guest_bytes(caller: &mut Caller<'_, Host>, ptr: i32, len: i32) -> wasmtime::Result<Vec<u8>> {
    let memory = guest_memory(caller)?;
    let range = (ptr as u32 as usize)..(ptr as u32 as usize).saturating_add(len as u32 as usize);
    memory
        .data(&caller)
        .get(range)
        .map(<[u8]>::to_vec)
        .ok_or_else(|| wasmtime::format_err!("the guest passed memory out of its bounds"))
}

/// Copies `bytes` into the guest's memory at `ptr` (at most `len` of them); how many were copied.
fn write_guest(caller: &mut Caller<'_, Host>, ptr: i32, len: i32, bytes: &[u8]) -> wasmtime::Result<usize> {
    let memory = guest_memory(caller)?;
    let n = bytes.len().min(len as u32 as usize);
    let start = ptr as u32 as usize;
    memory
        .data_mut(caller)
        .get_mut(start..start.saturating_add(n))
        .ok_or_else(|| wasmtime::format_err!("the guest passed memory out of its bounds"))?
        .copy_from_slice(&bytes[..n]);
    Ok(n)
}
