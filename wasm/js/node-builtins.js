// The built-in modules of the node worker beside fs and path: events, assert, util, os, buffer,
// timers and process, each with the parts scripts use most.

import { Buffer, format, inspect, path, sameValue } from "./node-lib.js";

/** `require(name)` for each built-in name (`node:` prefixes are taken off before). */
export function makeBuiltins(fs, process) {
  class EventEmitter {
    #events = new Map();
    on(name, listener) {
      this.#events.set(name, [...(this.#events.get(name) ?? []), listener]);
      return this;
    }
    once(name, listener) {
      const once = (...args) => (this.off(name, once), listener.apply(this, args));
      once.listener = listener;
      return this.on(name, once);
    }
    off(name, listener) {
      this.#events.set(name, (this.#events.get(name) ?? []).filter((l) => l !== listener && l.listener !== listener));
      return this;
    }
    emit(name, ...args) {
      const listeners = this.#events.get(name) ?? [];
      if (name === "error" && !listeners.length) throw args[0];
      listeners.forEach((listener) => listener.apply(this, args));
      return listeners.length > 0;
    }
    removeAllListeners(name) {
      name === undefined ? this.#events.clear() : this.#events.delete(name);
      return this;
    }
    listeners(name) {
      return (this.#events.get(name) ?? []).map((l) => l.listener ?? l);
    }
    listenerCount(name) {
      return (this.#events.get(name) ?? []).length;
    }
    setMaxListeners() {
      return this;
    }
  }
  Object.assign(EventEmitter.prototype, { addListener: EventEmitter.prototype.on, removeListener: EventEmitter.prototype.off, prependListener: EventEmitter.prototype.on });
  EventEmitter.EventEmitter = EventEmitter;
  EventEmitter.once = (emitter, name) => new Promise((resolve) => emitter.once(name, (...args) => resolve(args)));

  class AssertionError extends Error {
    constructor({ message, actual, expected, operator, generatedMessage = false }) {
      super(message);
      Object.assign(this, { generatedMessage, code: "ERR_ASSERTION", actual, expected, operator });
    }
  }
  AssertionError.prototype.name = "AssertionError";
  const check = (ok, message, actual, expected, operator, explain) => {
    if (ok) return;
    if (message instanceof Error) throw message;
    throw new AssertionError({ message: message ?? explain(), actual, expected, operator, generatedMessage: message === undefined });
  };
  // `shown` stands between the values in the message: what they are, as Node writes it.
  const compare = (operator, test, says, shown) => (actual, expected, message) =>
    check(test(actual, expected), message, actual, expected, operator, () => `${says}:\n\n${inspect(actual)} ${shown} ${inspect(expected)}\n`);
  const assert = (value, message) => check(value, message, value, true, "==", () => "The expression evaluated to a falsy value");
  const matches = (error, expected) =>
    expected === undefined ||
    (typeof expected === "function" ? (expected.prototype !== undefined && error instanceof expected) || (!expected.prototype && expected(error) === true) : expected instanceof RegExp ? expected.test(String(error?.message ?? error)) : Object.entries(expected).every(([key, value]) => (value instanceof RegExp ? value.test(error?.[key]) : sameValue(error?.[key], value, true))));
  Object.assign(assert, {
    ok: assert,
    equal: compare("==", (a, b) => a == b, "Expected values to be loosely equal", "!="),
    notEqual: compare("!=", (a, b) => a != b, "Expected values to be loosely different", "=="),
    strictEqual: compare("strictEqual", Object.is, "Expected values to be strictly equal", "!=="),
    notStrictEqual: compare("notStrictEqual", (a, b) => !Object.is(a, b), "Expected values to be strictly different", "==="),
    deepEqual: compare("deepEqual", (a, b) => sameValue(a, b, false), "Expected values to be loosely deep-equal", "should loosely deep-equal"),
    deepStrictEqual: compare("deepStrictEqual", (a, b) => sameValue(a, b, true), "Expected values to be strictly deep-equal", "!=="),
    notDeepStrictEqual: compare("notDeepStrictEqual", (a, b) => !sameValue(a, b, true), "Expected values not to be strictly deep-equal", "==="),
    match: compare("match", (a, b) => b.test(a), "The input did not match the regular expression", "does not match"),
    fail: (message = "Failed") => check(false, message, undefined, undefined, "fail"),
    throws(fn, expected, message) {
      try {
        fn();
      } catch (error) {
        return check(matches(error, expected), message, error, expected, "throws", () => `The error did not match: ${inspect(error)}`);
      }
      check(false, typeof expected === "string" ? expected : message, undefined, expected, "throws", () => "Missing expected exception.");
    },
    async rejects(promise, expected, message) {
      try {
        await (typeof promise === "function" ? promise() : promise);
      } catch (error) {
        return check(matches(error, expected), message, error, expected, "rejects", () => `The rejection did not match: ${inspect(error)}`);
      }
      check(false, message, undefined, expected, "rejects", () => "Missing expected rejection.");
    },
    doesNotThrow: (fn) => fn(),
    AssertionError,
  });
  assert.strict = assert;

  const promisify = (fn) => (...args) => new Promise((resolve, reject) => fn(...args, (error, value) => (error ? reject(error) : resolve(value))));
  const util = { format, inspect, promisify, inherits: (child, parent) => Object.setPrototypeOf(child.prototype, parent.prototype), isDeepStrictEqual: (a, b) => sameValue(a, b, true), deprecate: (fn) => fn, types: { isPromise: (v) => v instanceof Promise, isDate: (v) => v instanceof Date, isRegExp: (v) => v instanceof RegExp }, TextEncoder, TextDecoder };
  const os = { EOL: "\n", platform: () => "linux", type: () => "Linux", arch: () => "wasm32", release: () => process.version, tmpdir: () => "/tmp", homedir: () => process.env.HOME ?? "/workspace", hostname: () => "openagent", cpus: () => [], totalmem: () => 0, freemem: () => 0, endianness: () => "LE" };
  const timers = { setTimeout: self.setTimeout, clearTimeout: self.clearTimeout, setInterval: self.setInterval, clearInterval: self.clearInterval, setImmediate: self.setImmediate, clearImmediate: self.clearImmediate };
  const sleep = (ms, value) => new Promise((resolve) => self.setTimeout(() => resolve(value), ms));
  return {
    fs,
    "fs/promises": fs.promises,
    path,
    "path/posix": path,
    events: EventEmitter,
    util,
    assert,
    "assert/strict": assert,
    os,
    buffer: { Buffer },
    timers,
    "timers/promises": { setTimeout: sleep, setImmediate: (value) => sleep(0, value) },
    process,
  };
}
