// Node's small pieces for the node worker (node-worker.js): Buffer, path (POSIX), util.format and
// util.inspect (as console.log prints; long arrays are not grouped in columns as Node does), deep
// equality for assert, and the console.

const ENCODINGS = { utf8: "utf8", "utf-8": "utf8", hex: "hex", base64: "base64", base64url: "base64url", latin1: "latin1", binary: "latin1", ascii: "ascii", utf16le: "utf16le", "utf-16le": "utf16le", ucs2: "utf16le", "ucs-2": "utf16le" };

function encodingName(encoding = "utf8") {
  const name = ENCODINGS[String(encoding).toLowerCase()];
  if (!name) throw Object.assign(new TypeError(`Unknown encoding: ${encoding}`), { code: "ERR_UNKNOWN_ENCODING" });
  return name;
}

function encode(text, encoding) {
  const name = encodingName(encoding);
  if (name === "utf8") return new TextEncoder().encode(text);
  if (name === "hex") return Uint8Array.from(text.match(/^(?:[0-9a-f]{2})*/i)[0].match(/../g) ?? [], (pair) => parseInt(pair, 16));
  const units = (mask) => Uint16Array.from({ length: text.length }, (_, i) => text.charCodeAt(i) & mask);
  if (name === "utf16le") return new Uint8Array(units(0xffff).buffer);
  if (name !== "base64" && name !== "base64url") return Uint8Array.from(units(255));
  // As lenient as Node: URL-safe letters, no padding, and stray characters are all taken.
  let clean = text.replace(/-/g, "+").replace(/_/g, "/").replace(/[^A-Za-z0-9+/]/g, "");
  if (clean.length % 4 === 1) clean = clean.slice(0, -1);
  return Uint8Array.from(atob(clean.padEnd(Math.ceil(clean.length / 4) * 4, "=")), (c) => c.charCodeAt(0));
}

function decode(bytes, encoding) {
  const name = encodingName(encoding);
  if (name === "utf8") return new TextDecoder().decode(bytes);
  if (name === "hex") return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  // A copy (Buffer's slice() would share memory, at an offset Uint16Array may refuse).
  if (name === "utf16le") return String.fromCharCode(...new Uint16Array(Uint8Array.prototype.slice.call(bytes, 0, bytes.length & ~1).buffer));
  let text = "";
  for (let at = 0; at < bytes.length; at += 0x8000) text += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  if (name === "ascii") return text.replace(/[\x80-\xff]/g, (c) => String.fromCharCode(c.charCodeAt(0) & 127));
  if (name === "latin1") return text;
  const base64 = btoa(text);
  return name === "base64" ? base64 : base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Node's Buffer: a Uint8Array that knows encodings. */
export class Buffer extends Uint8Array {
  static from(value, encodingOrOffset, length) {
    if (typeof value === "string") return Buffer.#wrap(encode(value, encodingOrOffset));
    if (value instanceof ArrayBuffer) return new Buffer(value, encodingOrOffset ?? 0, length ?? value.byteLength - (encodingOrOffset ?? 0));
    if (value?.type === "Buffer" && Array.isArray(value.data)) return Buffer.#wrap(Uint8Array.from(value.data));
    return Buffer.#wrap(Uint8Array.from(value));
  }
  static #wrap(bytes) {
    return new Buffer(bytes.buffer, bytes.byteOffset, bytes.length);
  }
  static alloc(size, fill, encoding) {
    const buffer = new Buffer(size);
    return fill === undefined ? buffer : buffer.fill(fill, 0, size, encoding);
  }
  static allocUnsafe(size) {
    return new Buffer(size);
  }
  static isBuffer(value) {
    return value instanceof Buffer;
  }
  static isEncoding(encoding) {
    return Object.hasOwn(ENCODINGS, String(encoding).toLowerCase());
  }
  static byteLength(value, encoding) {
    return typeof value === "string" ? encode(value, encoding).length : value.byteLength;
  }
  static concat(list, total = list.reduce((n, item) => n + item.length, 0)) {
    const all = Buffer.alloc(total);
    let at = 0;
    for (const item of list) {
      all.set(item.subarray(0, total - at), at);
      at += Math.min(item.length, total - at);
    }
    return all;
  }
  static compare(a, b) {
    return a.compare(b);
  }
  fill(value, start, end, encoding) {
    if (typeof value !== "string") return super.fill(value, start, end);
    const pattern = encode(value, typeof start === "string" ? start : encoding);
    for (let i = typeof start === "number" ? start : 0, j = 0; i < (typeof end === "number" ? end : this.length); i++, j++) this[i] = pattern[j % pattern.length];
    return this;
  }
  toString(encoding = "utf8", start = 0, end = this.length) {
    return decode(this.subarray(start, end), encoding);
  }
  toJSON() {
    return { type: "Buffer", data: Array.from(this) };
  }
  equals(other) {
    return this.compare(other) === 0;
  }
  compare(other) {
    for (let i = 0; i < Math.min(this.length, other.length); i++) if (this[i] !== other[i]) return this[i] < other[i] ? -1 : 1;
    return Math.sign(this.length - other.length);
  }
  slice(start, end) {
    return this.subarray(start, end);
  }
  write(text, offset = 0, encoding) {
    const bytes = encode(text, typeof offset === "string" ? offset : encoding).subarray(0, this.length - (typeof offset === "number" ? offset : 0));
    this.set(bytes, typeof offset === "number" ? offset : 0);
    return bytes.length;
  }
  copy(target, targetStart = 0, start = 0, end = this.length) {
    const bytes = this.subarray(start, Math.min(end, start + target.length - targetStart));
    target.set(bytes, targetStart);
    return bytes.length;
  }
}

const cwd = () => globalThis.process?.cwd() ?? "/";

/** Resolves `.` and `..` in a POSIX path, keeping it absolute or relative. */
function tidy(file) {
  const absolute = file.startsWith("/");
  const parts = [];
  for (const part of file.split("/")) {
    if (!part || part === ".") continue;
    if (part !== "..") parts.push(part);
    else if (parts.length && parts.at(-1) !== "..") parts.pop();
    else if (!absolute) parts.push("..");
  }
  return (absolute ? "/" : "") + parts.join("/") || (absolute ? "/" : ".");
}

const trim = (file) => (file.length > 1 ? file.replace(/\/+$/, "") || "/" : file);

/** `require("path")`: POSIX paths; relative ones resolve against `process.cwd()`. */
export const path = {
  sep: "/",
  delimiter: ":",
  normalize: (file) => tidy(file) + (file.length > 1 && file.endsWith("/") && tidy(file) !== "/" ? "/" : ""),
  join: (...parts) => path.normalize(parts.filter((part) => part !== "").join("/") || "."),
  resolve: (...parts) => {
    let joined = "";
    for (let i = parts.length - 1; i >= 0 && !joined.startsWith("/"); i--) joined = parts[i] ? (joined ? `${parts[i]}/${joined}` : parts[i]) : joined;
    return tidy(joined.startsWith("/") ? joined : `${cwd()}/${joined}`);
  },
  isAbsolute: (file) => file.startsWith("/"),
  dirname: (file) => {
    const at = trim(file).lastIndexOf("/");
    return at < 0 ? "." : at === 0 ? "/" : trim(file).slice(0, at);
  },
  basename: (file, ext) => {
    const base = trim(file).split("/").pop();
    return ext && base !== ext && base.endsWith(ext) ? base.slice(0, -ext.length) : base;
  },
  extname: (file) => {
    const base = path.basename(file);
    const at = base.lastIndexOf(".");
    return at <= 0 ? "" : base.slice(at);
  },
  relative: (from, to) => {
    const [a, b] = [path.resolve(from), path.resolve(to)].map((file) => file.split("/").filter(Boolean));
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return [...a.slice(i).map(() => ".."), ...b.slice(i)].join("/");
  },
  parse: (file) => {
    const base = path.basename(file);
    const ext = path.extname(file);
    return { root: file.startsWith("/") ? "/" : "", dir: file.includes("/") ? path.dirname(file) : "", base, ext, name: ext ? base.slice(0, -ext.length) : base };
  },
  format: ({ root = "", dir = "", base, name = "", ext = "" }) => (dir || root) + (dir && dir !== root ? "/" : "") + (base ?? name + ext),
  toNamespacedPath: (file) => file,
};
path.posix = path;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
// Single quotes, unless the text has some and another quote does not appear in it (as Node picks).
const quote = (text) => {
  const mark = ["'", '"', "\u0060"].find((candidate) => !text.includes(candidate)) ?? "'";
  const escaped = text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
  return mark + (mark === "'" ? escaped.replace(/'/g, "\\'") : escaped) + mark;
};

/** `util.inspect`: a value as Node shows it, `depth` levels deep (2 by default). */
export function inspect(value, options) {
  const depth = options?.depth ?? 2;
  const seen = [];
  const show = (v, level) => {
    if (typeof v === "string") return quote(v);
    if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
    if (typeof v === "bigint") return `${v}n`;
    if (typeof v === "function") {
      const isClass = /^class\b/.test(Function.prototype.toString.call(v));
      return isClass ? `[class ${v.name || "(anonymous)"}]` : `[Function${v.name ? `: ${v.name}` : " (anonymous)"}]`;
    }
    if (typeof v !== "object" || v === null) return String(v);
    if (seen.includes(v)) return "[Circular *1]";
    if (v instanceof Error) return v.stack ?? String(v);
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? "Invalid Date" : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (v instanceof Promise) return "Promise {}";
    if (v instanceof WeakMap || v instanceof WeakSet) return `${v.constructor.name} { <items unknown> }`;
    if (v instanceof Buffer) return `<Buffer${Array.from(v.subarray(0, 50), (b) => ` ${b.toString(16).padStart(2, "0")}`).join("")}${v.length > 50 ? ` ... ${v.length - 50} more bytes` : ""}>`;
    const proto = Object.getPrototypeOf(v);
    const name = proto === null ? "[Object: null prototype]" : proto.constructor?.name ?? "Object";
    if (level > depth) return Array.isArray(v) ? "[Array]" : `[${name === "[Object: null prototype]" ? "Object: null prototype" : name}]`;
    seen.push(v);
    let entries = [];
    let braces = ["{", "}"];
    let prefix = name === "Object" ? "" : `${name} `;
    if (Array.isArray(v) || ArrayBuffer.isView(v)) {
      entries = Array.from(v.slice(0, 100), (item) => show(item, level + 1));
      if (v.length > 100) entries.push(`... ${v.length - 100} more item${v.length > 101 ? "s" : ""}`);
      braces = ["[", "]"];
      prefix = Array.isArray(v) && name === "Array" ? "" : `${name}(${v.length}) `;
    } else if (v instanceof Map) {
      entries = [...v].map(([key, item]) => `${show(key, level + 1)} => ${show(item, level + 1)}`);
      prefix = `${name}(${v.size}) `;
    } else if (v instanceof Set) {
      entries = [...v].map((item) => show(item, level + 1));
      prefix = `${name}(${v.size}) `;
    }
    const keys = Array.isArray(v) || ArrayBuffer.isView(v) ? Object.keys(v).filter((key) => !/^\d+$/.test(key)) : Object.keys(v);
    for (const key of [...keys, ...Object.getOwnPropertySymbols(v).filter((s) => Object.getOwnPropertyDescriptor(v, s).enumerable)]) {
      const label = typeof key === "symbol" ? `[${String(key)}]` : IDENTIFIER.test(key) ? key : quote(key);
      const { get, set } = Object.getOwnPropertyDescriptor(v, key);
      entries.push(`${label}: ${get ? (set ? "[Getter/Setter]" : "[Getter]") : set ? "[Setter]" : show(v[key], level + 1)}`);
    }
    seen.pop();
    if (!entries.length) return `${prefix}${braces.join("")}`;
    const width = entries.reduce((n, entry) => n + entry.length + 2, prefix.length + 2 * level + 4);
    if (width <= 80 && !entries.some((entry) => entry.includes("\n"))) return `${prefix}${braces[0]} ${entries.join(", ")} ${braces[1]}`;
    const pad = "  ".repeat(level);
    return `${prefix}${braces[0]}\n${pad}  ${entries.join(`,\n${pad}  `)}\n${pad}${braces[1]}`;
  };
  return show(value, 0);
}

/** `util.format`: printf-style `%s %d %i %f %j %o %O %c %%`, then the other arguments inspected. */
export function format(...args) {
  const text = (v) => (typeof v === "string" ? v : inspect(v));
  if (typeof args[0] !== "string") return args.map(text).join(" ");
  const rest = args.slice(1);
  const first = !rest.length
    ? args[0]
    : args[0].replace(/%([sdifjoOc%])/g, (match, letter) => {
        if (letter === "%") return "%";
        if (!rest.length) return match;
        const v = rest.shift();
        if (letter === "s") return typeof v === "bigint" ? `${v}n` : typeof v === "object" && v !== null ? inspect(v, { depth: 1 }) : String(v);
        if (letter === "d") return typeof v === "bigint" ? `${v}n` : typeof v === "object" ? "NaN" : String(Number(v));
        if (letter === "i") return typeof v === "bigint" ? `${v}n` : String(parseInt(v, 10));
        if (letter === "f") return String(parseFloat(v));
        if (letter === "j") return JSON.stringify(v);
        return letter === "c" ? "" : inspect(v);
      });
  return [first, ...rest.map(text)].join(" ");
}

/** Deep equality, `strict` as `assert.deepStrictEqual` (prototypes and `Object.is`) or loose as `deepEqual`. */
export function sameValue(a, b, strict, seen = new Map()) {
  if (Object.is(a, b) || (!strict && a == b && (typeof a !== "object" || a === null))) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof RegExp) return String(a) === String(b);
  if (a instanceof Map || a instanceof Set) {
    if (!(b instanceof Map || b instanceof Set) || a.size !== b.size) return false;
    return [...a].every((entry) => (a instanceof Map ? b.has(entry[0]) && sameValue(entry[1], b.get(entry[0]), strict, seen) : b.has(entry)));
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key], strict, seen));
}

/** The console: `log`, `info` and `debug` to stdout, `error`, `warn` and `trace` to stderr. */
export function makeConsole(write) {
  let indent = "";
  const counts = new Map();
  const times = new Map();
  const line = (fd) => (...args) => write(fd, `${format(...args).replace(/^/gm, indent)}\n`);
  const [log, error] = [line(1), line(2)];
  const group = (...args) => {
    if (args.length) log(...args);
    indent += "  ";
  };
  const elapsed = (label) => `${label}: ${(performance.now() - times.get(label)).toFixed(3)}ms`;
  return {
    log,
    info: log,
    debug: log,
    error,
    warn: error,
    trace: (...args) => error(`Trace: ${format(...args)}\n${new Error().stack.split("\n").slice(2).join("\n")}`),
    dir: (value, options) => log(inspect(value, options)),
    table: log,
    assert: (ok, ...args) => ok || error(args.length ? `Assertion failed: ${format(...args)}` : "Assertion failed"),
    group,
    groupCollapsed: group,
    groupEnd: () => (indent = indent.slice(2)),
    count: (label = "default") => (counts.set(label, (counts.get(label) ?? 0) + 1), log(`${label}: ${counts.get(label)}`)),
    countReset: (label = "default") => counts.delete(label),
    time: (label = "default") => times.set(label, performance.now()),
    timeLog: (label = "default", ...args) => log(elapsed(label), ...args),
    timeEnd: (label = "default") => (log(elapsed(label)), times.delete(label)),
  };
}
