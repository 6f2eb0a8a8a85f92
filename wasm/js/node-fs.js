// `require("fs")` in the node worker: the common synchronous calls over the snapshot of the agent's
// files the worker was sent, with their callback and promise forms, failing with Node's error codes.
// Each change is also sent to the page (`send`), which applies it to the agent's files.

import { Buffer, inspect, path } from "./node-lib.js";

const CODES = {
  ENOENT: [-2, "no such file or directory"],
  EEXIST: [-17, "file already exists"],
  ENOTDIR: [-20, "not a directory"],
  EISDIR: [-21, "illegal operation on a directory"],
  EINVAL: [-22, "invalid argument"],
  EFBIG: [-27, "file not sent to node: the agent's files were over the runner's maxFileBytes"],
  ENOTEMPTY: [-39, "directory not empty"],
};

function fsError(code, syscall, file, dest) {
  const [errno, text] = CODES[code];
  const error = new Error(`${code}: ${text}, ${syscall} '${file}'${dest ? ` -> '${dest}'` : ""}`);
  return Object.assign(error, { errno, code, syscall, path: file }, dest ? { dest } : {});
}

/**
 * The `fs` module over `start.files` (`[path, bytes]`), `start.omitted` (paths too big to send)
 * and `start.dirs` (every directory, the empty ones among them).
 */
export function makeFs(start, send, stdin, out) {
  const files = new Map(start.files);
  const omitted = new Set(start.omitted);
  const dirs = new Set(["/"]);
  const addDir = (dir) => {
    for (let at = dir; !dirs.has(at); at = path.dirname(at)) dirs.add(at);
  };
  [start.cwd, "/tmp", ...(start.dirs ?? []), ...[...files.keys(), ...omitted].map(path.dirname)].forEach(addDir);
  const mtime = new Date();

  const absolute = (file) => {
    const name = file instanceof URL ? decodeURIComponent(file.pathname) : file instanceof Uint8Array ? new TextDecoder().decode(file) : file;
    if (typeof name !== "string") {
      throw Object.assign(new TypeError(`The "path" argument must be of type string. Received ${inspect(file)}`), { code: "ERR_INVALID_ARG_TYPE" });
    }
    // As Node refuses it: no file can be named so, and the write would fail only on the page.
    if (name.includes("\0")) {
      throw Object.assign(new TypeError(`The argument 'path' must be a string, Uint8Array, or URL without null bytes. Received ${inspect(name)}`), { code: "ERR_INVALID_ARG_VALUE" });
    }
    return path.resolve(name);
  };
  const kind = (file) => (files.has(file) || omitted.has(file) ? "file" : dirs.has(file) ? "dir" : null);
  const under = (dir) => (file) => file.startsWith(dir === "/" ? "/" : `${dir}/`);
  const everything = () => [...files.keys(), ...omitted, ...dirs];
  const children = (dir) => [...new Set(everything().filter(under(dir)).filter((file) => file !== dir).map((file) => file.slice(dir.length + (dir === "/" ? 0 : 1)).split("/")[0]))].sort();
  const needParent = (file, syscall) => {
    const parent = kind(path.dirname(file));
    if (parent !== "dir") throw fsError(parent ? "ENOTDIR" : "ENOENT", syscall, file);
  };
  const read = (file, syscall = "open") => {
    if (omitted.has(file)) throw fsError("EFBIG", syscall, file);
    if (!kind(file)) throw fsError("ENOENT", syscall, file);
    if (kind(file) === "dir") throw fsError("EISDIR", "read", file);
    return files.get(file);
  };
  const put = (file, bytes, syscall) => {
    if (kind(file) === "dir") throw fsError("EISDIR", syscall, file);
    needParent(file, syscall);
    files.set(file, bytes);
    omitted.delete(file);
    // A copy of its own to transfer (Buffer's slice() shares its memory, as Node's does).
    const copy = new Uint8Array(bytes);
    send({ op: "write", path: file, data: copy }, [copy.buffer]);
  };
  const forget = (file) => {
    for (const known of everything().filter((known) => known === file || under(file)(known))) {
      files.delete(known);
      omitted.delete(known);
      dirs.delete(known);
    }
  };
  const encodingOf = (options) => (typeof options === "string" ? options : options?.encoding ?? null);
  const bytesOf = (data, options) =>
    typeof data === "string" ? Buffer.from(data, encodingOf(options) ?? "utf8") : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice() : Buffer.from(String(data));
  const stats = (file, syscall) => {
    const type = kind(file);
    if (!type) throw fsError("ENOENT", syscall, file);
    const size = type === "file" ? (files.get(file)?.length ?? 0) : 0;
    const is = (wanted) => () => type === wanted;
    const no = () => false;
    const times = { mtime, atime: mtime, ctime: mtime, birthtime: mtime, mtimeMs: +mtime, atimeMs: +mtime, ctimeMs: +mtime, birthtimeMs: +mtime };
    return { size, mode: type === "dir" ? 0o40755 : 0o100644, uid: 1000, gid: 1000, nlink: 1, dev: 1, ino: 0, blksize: 4096, blocks: Math.ceil(size / 512), ...times, isFile: is("file"), isDirectory: is("dir"), isSymbolicLink: no, isFIFO: no, isSocket: no, isBlockDevice: no, isCharacterDevice: no };
  };
  const dirent = (dir) => (name) => {
    const type = kind(path.join(dir, name));
    return { name, parentPath: dir, path: dir, isFile: () => type === "file", isDirectory: () => type === "dir", isSymbolicLink: () => false };
  };
  // Standard output and error by descriptor or device: a file named "1" is a file.
  const stream = (file) => (typeof file === "number" ? { 1: 1, 2: 2 } : { "/dev/stdout": 1, "/dev/stderr": 2 })[file];

  const fs = {
    constants: { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1 },
    readFileSync(file, options) {
      const bytes = file === 0 || file === "/dev/stdin" ? stdin : read(absolute(file));
      const encoding = encodingOf(options);
      return encoding ? Buffer.from(bytes).toString(encoding) : Buffer.from(bytes);
    },
    writeFileSync(file, data, options) {
      if (stream(file)) return void out(stream(file), bytesOf(data, options));
      const target = absolute(file);
      const flag = options?.flag ?? "w";
      if (flag.startsWith("a")) return fs.appendFileSync(target, data, options);
      if (flag.includes("x") && kind(target)) throw fsError("EEXIST", "open", target);
      put(target, bytesOf(data, options), "open");
    },
    appendFileSync(file, data, options) {
      if (stream(file)) return void out(stream(file), bytesOf(data, options));
      const target = absolute(file);
      const [before, added] = [kind(target) ? read(target) : new Uint8Array(), bytesOf(data, options)];
      const all = new Uint8Array(before.length + added.length);
      all.set(before);
      all.set(added, before.length);
      put(target, all, "open");
    },
    writeSync(fd, data) {
      if (!stream(fd)) throw fsError("EINVAL", "write", String(fd));
      out(stream(fd), bytesOf(data));
    },
    existsSync(file) {
      try {
        return kind(absolute(file)) !== null;
      } catch {
        return false;
      }
    },
    accessSync(file) {
      stats(absolute(file), "access");
    },
    statSync(file, options) {
      const target = absolute(file);
      if (options?.throwIfNoEntry === false && !kind(target)) return undefined;
      return stats(target, "stat");
    },
    readdirSync(dir, options) {
      const target = absolute(dir);
      if (kind(target) !== "dir") throw fsError(kind(target) ? "ENOTDIR" : "ENOENT", "scandir", target);
      const names = options?.recursive ? everything().filter(under(target)).filter((file) => file !== target).map((file) => path.relative(target, file)).sort() : children(target);
      return options?.withFileTypes ? names.map(dirent(target)) : names;
    },
    mkdirSync(dir, options) {
      const target = absolute(dir);
      const recursive = options === true || options?.recursive === true;
      if (kind(target)) {
        if (recursive && kind(target) === "dir") return undefined;
        throw fsError("EEXIST", "mkdir", target);
      }
      if (!recursive) needParent(target, "mkdir");
      const missing = [];
      for (let at = target; !dirs.has(at); at = path.dirname(at)) {
        if (kind(at) === "file") throw fsError("ENOTDIR", "mkdir", target);
        missing.unshift(at);
      }
      missing.forEach((made) => dirs.add(made));
      send({ op: "mkdir", path: target });
      return recursive ? missing[0] : undefined;
    },
    unlinkSync(file) {
      const target = absolute(file);
      if (kind(target) !== "file") throw fsError(kind(target) ? "EISDIR" : "ENOENT", "unlink", target);
      forget(target);
      send({ op: "remove", path: target, recursive: false });
    },
    rmdirSync(dir, options) {
      if (options?.recursive) return fs.rmSync(dir, { recursive: true });
      const target = absolute(dir);
      if (kind(target) !== "dir") throw fsError(kind(target) ? "ENOTDIR" : "ENOENT", "rmdir", target);
      if (children(target).length) throw fsError("ENOTEMPTY", "rmdir", target);
      forget(target);
      send({ op: "remove", path: target, recursive: false });
    },
    rmSync(file, options) {
      const target = absolute(file);
      if (!kind(target)) {
        if (options?.force) return;
        throw fsError("ENOENT", "rm", target);
      }
      if (kind(target) === "dir" && !options?.recursive) throw fsError("EISDIR", "rm", target);
      forget(target);
      send({ op: "remove", path: target, recursive: true });
    },
    renameSync(from, to) {
      const [source, target] = [absolute(from), absolute(to)];
      const type = kind(source);
      if (!type) throw fsError("ENOENT", "rename", source, target);
      if (source === target) return;
      needParent(target, "rename");
      if (type === "file") {
        const bytes = read(source, "rename");
        put(target, bytes, "rename");
      } else {
        if (under(source)(target) || kind(target) === "file") throw fsError(kind(target) ? "ENOTDIR" : "EINVAL", "rename", source, target);
        if (kind(target) && children(target).length) throw fsError("ENOTEMPTY", "rename", source, target);
        // Refused before anything is sent: a file not sent here cannot be moved, and a half-made
        // copy would stay behind in the agent's files.
        const unsent = [...omitted].find(under(source));
        if (unsent) throw fsError("EFBIG", "rename", unsent, target);
        fs.mkdirSync(target, { recursive: true });
        const inside = everything().filter(under(source));
        const moved = (known) => path.join(target, path.relative(source, known));
        inside.filter((known) => kind(known) === "dir").forEach((dir) => fs.mkdirSync(moved(dir), { recursive: true }));
        inside.filter((known) => kind(known) === "file").forEach((file) => put(moved(file), read(file, "rename"), "rename"));
      }
      forget(source);
      send({ op: "remove", path: source, recursive: true });
    },
    copyFileSync(from, to) {
      put(absolute(to), read(absolute(from), "copyfile"), "copyfile");
    },
    realpathSync(file) {
      const target = absolute(file);
      stats(target, "realpath");
      return target;
    },
    mkdtempSync(prefix) {
      for (;;) {
        const made = absolute(prefix + Math.random().toString(36).slice(2, 8));
        if (!kind(made)) return fs.mkdirSync(made, { recursive: true });
      }
    },
  };
  fs.lstatSync = fs.statSync;
  fs.realpathSync.native = fs.realpathSync;
  fs.promises = { constants: fs.constants };
  // The callback and promise forms: the same work, answered after the current code.
  for (const [name, call] of Object.entries(fs)) {
    if (!name.endsWith("Sync")) continue;
    const base = name.slice(0, -4);
    fs.promises[base] = async (...args) => call(...args);
    fs[base] = (...args) => {
      const callback = typeof args.at(-1) === "function" ? args.pop() : () => {};
      let result;
      let error = null;
      try {
        result = call(...args);
      } catch (thrown) {
        error = thrown;
      }
      queueMicrotask(() => (base === "exists" ? callback(result) : callback(error, result)));
    };
  }
  return fs;
}
