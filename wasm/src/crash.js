// A crash of the module. Once anything is thrown out of a call into the module (a trap: a panic,
// which the browser build turns into one at once, running out of memory, a stack overflow; or a JS
// exception that unwound through Rust's frames), its memory may be half-changed, so nothing more
// may run in it. scripts/build-wasm routes every call the glue makes into the module through
// `guard`: the first throw is logged, every promise still pending rejects, and the call and every
// later one throw an error of kind "crashed" instead of going in.

const pending = new Set();
let crash;

// The reject function of each promise a Rust future settles, while it is pending (wasm/src/crash.rs).
export function track(reject) {
  pending.add(reject);
}

export function untrack(reject) {
  pending.delete(reject);
}

function crashed(cause) {
  return Object.assign(new Error(crash, { cause }), { kind: "crashed" });
}

function fail(error) {
  crash = `OpenAgent crashed (a bug; please report it): ${error?.message ?? error}. Reload the page or the module to start again.`;
  console.error(crash);
  for (const reject of pending) reject(crashed(error));
  pending.clear();
}

// `callbacks`: the names of the exports the event loop and the finalizers call (the module's
// closures, as timers, promise reactions and microtasks; its `free`s). These throw nothing once the
// module has crashed, as nothing could catch it (Node ends the process on an uncaught error); the
// crash itself is logged and rejects what is pending. `[]` reads as "no error" where the glue
// looks at a closure's result.
export function guard(exports, callbacks) {
  const guarded = {};
  for (const [name, value] of Object.entries(exports)) {
    const callback = callbacks.includes(name);
    guarded[name] =
      typeof value !== "function"
        ? value
        : (...args) => {
            try {
              if (!crash) return value(...args);
            } catch (error) {
              // When a call nested in this one crashed first, its error goes on out as it is.
              const first = !crash;
              if (first) fail(error);
              if (callback) return [];
              throw first ? crashed(error) : error;
            }
            if (callback) return [];
            throw crashed();
          };
  }
  return guarded;
}
