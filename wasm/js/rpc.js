// The wire between the page and the agent's worker: calls of functions across it, their results,
// and aborts. Values cross by structured clone except what cannot be cloned: a function crosses as
// a stub that calls it back and resolves with its answer; an AbortSignal as a signal aborted when
// the original is; an Error keeps its name, message and own fields (an AgentError's `kind`,
// `status`); Headers and a Response (a page's `fetch` option) are rebuilt, the body streamed.
// A function that says how it was made (`remake: { url, name, args }`: the shell's commands,
// which need the agent's files at hand) is made again on the other side, `import(url)[name](...args)`.
// Both sides run the same `endpoint`, so a callback option of any name or depth works either way.

// Message kinds: [CALL, id, function id, args], [RESULT, id, ok, value], [ABORT, signal id],
// [RELEASE, signal id] (the sender's signal is gone: no abort can come).
const CALL = 0;
const RESULT = 1;
const ABORT = 2;
const RELEASE = 3;
// The key that marks an encoded value; its value says what it was (a function, error, signal,
// Headers or Response, or "o": a plain object that has this key itself, so it is data).
const TAG = "__openagent";

/** A plain object: made by `{}` (or with no prototype), not by a class. */
const isPlain = (value) => value !== null && typeof value === "object" && [Object.prototype, null].includes(Object.getPrototypeOf(value));

/** A copy of `error` that can be cloned: its name, message, `kind` and `status`. */
const plainError = (error) =>
  Object.assign(new Error(String(error?.message ?? error)), {
    name: String(error?.name ?? "Error"),
    ...(typeof error?.kind === "string" && { kind: error.kind }),
    ...(typeof error?.status === "number" && { status: error.status }),
  });

/** `object` with `f` applied to each value. */
const map = (object, f) => Object.fromEntries(Object.entries(object).map(([key, value]) => [key, f(value)]));

/**
 * One side of the wire over `port` (a Worker, or the worker's global scope). `root` answers the
 * other side's calls of function 0; `beforeSend()` runs before each message goes. `call(target,
 * args)` calls a function of the other side; `close(error)` rejects every call waiting, and
 * every later one, with `error`.
 */
export function endpoint(port, root, beforeSend) {
  // Functions the other side may call, by id; and the controllers of signals it sent, by its id,
  // kept until the signal aborts or the other side lets it go (an abort must still reach a
  // response body that streams after its call was answered).
  const local = new Map([[0, root]]);
  const signals = new Map();
  // Ends the abort listeners this side put on its own signals, which would keep it alive.
  const closing = new AbortController();
  const released = new FinalizationRegistry((id) => closing.signal.aborted || port.postMessage([RELEASE, id]));
  const pending = new Map();
  let next = 1;
  let closed = null;
  // What the message being encoded transfers rather than copies (a Response's body).
  let transfer;

  // `fail(error)` hears of a value that cannot be cloned.
  function post(message, fail) {
    beforeSend?.();
    transfer = [];
    try {
      port.postMessage(encode(message), transfer);
    } catch (error) {
      fail(error);
    }
  }

  function call(target, args) {
    if (closed) return Promise.reject(closed);
    const id = next++;
    return new Promise((resolve, reject) => {
      pending.set(id, [resolve, reject]);
      post([CALL, id, target, args], reject);
    });
  }

  function encode(value) {
    if (typeof value === "function" && value.remake) return { [TAG]: "m", ...value.remake };
    if (typeof value === "function") {
      local.set(next, value);
      return { [TAG]: "f", id: next++ };
    }
    if (Array.isArray(value)) return value.map(encode);
    if (isPlain(value)) return Object.hasOwn(value, TAG) ? { [TAG]: "o", value: map(value, encode) } : map(value, encode);
    if (value instanceof Error) return { [TAG]: "e", fields: encode({ ...value, name: value.name, message: value.message }) };
    if (value instanceof AbortSignal) {
      const id = next++;
      value.addEventListener("abort", () => port.postMessage([ABORT, id]), { once: true, signal: closing.signal });
      released.register(value, id);
      return { [TAG]: "s", id, aborted: value.aborted };
    }
    if (value instanceof Headers) return { [TAG]: "h", entries: [...value] };
    if (value instanceof Response) {
      if (value.body) transfer.push(value.body);
      const { status, statusText, headers, body, type } = value;
      return { [TAG]: "r", body, type, init: { status, statusText, headers: [...headers] } };
    }
    return value;
  }

  function decode(value) {
    if (Array.isArray(value)) return value.map(decode);
    if (!isPlain(value)) return value;
    switch (value[TAG]) {
      case "o":
        return map(value.value, decode);
      case "f":
        // Marked, so a side can tell a function of the other side's from one of its own.
        return Object.assign((...args) => call(value.id, args), { remote: true });
      case "m": {
        let made;
        return async (...args) => {
          made ??= import(value.url).then((module) => module[value.name](...value.args));
          return (await made)(...args);
        };
      }
      case "e":
        return Object.assign(new Error(), decode(value.fields));
      case "s": {
        const controller = new AbortController();
        if (value.aborted) controller.abort();
        signals.set(value.id, controller);
        return controller.signal;
      }
      case "h":
        return new Headers(value.entries);
      case "r": {
        // A status no constructed Response may have (0: an opaque answer to a no-cors request,
        // which tells a missing CORS header apart) is set on it afterwards, with its type.
        const { status } = value.init;
        const response = new Response(value.body, { ...value.init, status: status >= 200 && status <= 599 ? status : 200 });
        if (response.status !== status) Object.defineProperty(response, "status", { value: status });
        if (value.type && response.type !== value.type) Object.defineProperty(response, "type", { value: value.type });
        return response;
      }
    }
    return map(value, decode);
  }

  port.onmessage = async ({ data: [kind, id, a, b] }) => {
    if (kind === ABORT) {
      signals.get(id)?.abort();
      return signals.delete(id);
    }
    if (kind === RELEASE) return signals.delete(id);
    if (kind === RESULT) {
      const [resolve, reject] = pending.get(id) ?? [];
      pending.delete(id);
      try {
        return resolve && (a ? resolve : reject)(decode(b));
      } catch (error) {
        return reject(error);
      }
    }
    let answer;
    try {
      answer = [RESULT, id, true, await local.get(a)(...decode(b))];
    } catch (error) {
      answer = [RESULT, id, false, error];
    }
    // An answer that cannot be cloned is refused with why; an error that cannot, with its copy.
    post(answer, (cloneError) => post([RESULT, id, false, plainError(answer[2] ? cloneError : answer[3])]));
  };

  return {
    call,
    close(error) {
      closed = error;
      for (const [, reject] of pending.values()) reject(error);
      pending.clear();
      // What the other side was doing here stops with it: a fetch still streaming its body.
      for (const controller of signals.values()) controller.abort();
      signals.clear();
      closing.abort();
    },
  };
}
