// The worker side of `python` (python.js starts one per run through worker-run.js): loads Pyodide,
// lays the agent's files into its filesystem, runs the script as CPython would (`__main__`,
// sys.argv, os.environ, the working directory, standard input), then reports the files the script
// changed and its exit code.

import { lockDown, lockDownBut } from "./no-network.js";

const post = self.postMessage.bind(self);

self.onmessage = async ({ data: start }) => {
  self.onmessage = null;
  let pyodide;
  try {
    const { loadPyodide } = await import(`${start.indexURL}pyodide.mjs`);
    pyodide = await loadPyodide({ indexURL: start.indexURL, env: { ...start.env } });
  } catch (error) {
    post({ type: "out", fd: 2, data: `python: could not load Pyodide from ${start.indexURL}: ${error?.message ?? error}\n` });
    return post({ type: "exit", code: 1 });
  }
  if (Array.isArray(start.allowNetwork)) lockDownBut(start.allowNetwork);
  else if (!start.allowNetwork) lockDown();
  const code = run(pyodide, start);
  report(pyodide, start);
  post({ type: "exit", code });
};

/** Runs the script; its exit code. */
function run(pyodide, start) {
  let sent = 0;
  const output = (fd) => ({
    write: (bytes) => {
      if (sent <= start.maxOutputBytes) post({ type: "out", fd, data: bytes.slice() });
      sent += bytes.length;
      return bytes.length;
    },
  });
  pyodide.setStdout(output(1));
  pyodide.setStderr(output(2));
  let stdin = start.stdin;
  pyodide.setStdin({ stdin: () => (stdin.length ? ((stdin = new Uint8Array()), start.stdin) : undefined), isatty: false });
  const { FS } = pyodide;
  for (const dir of start.dirs ?? []) FS.mkdirTree(dir);
  for (const [file, bytes] of start.files) {
    FS.mkdirTree(file.slice(0, file.lastIndexOf("/")) || "/");
    FS.writeFile(file, bytes);
  }
  FS.mkdirTree(start.cwd);
  FS.chdir(start.cwd);
  const what = { file: start.file, code: start.code, stdin: new TextDecoder().decode(start.stdin) }[start.mode === "module" ? "code" : start.mode] ?? start.code;
  const argv = { file: [start.file], code: ["-c"], module: [start.code], stdin: ["-"] }[start.mode].concat(start.args);
  const globals = pyodide.toPy({ mode: start.mode, what, argv });
  try {
    return pyodide.runPython(RUNNER, { globals });
  } finally {
    globals.destroy();
  }
}

// CPython's way: __main__, sys.argv, SystemExit's code, a traceback for anything else.
const RUNNER = `
def _main(mode, what, argv):
    import runpy, sys, traceback
    sys.argv = list(argv)
    try:
        if mode == "file":
            sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(what)))
            runpy.run_path(what, run_name="__main__")
        elif mode == "module":
            sys.path.insert(0, "")
            runpy.run_module(what, run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, "")
            name = "<string>" if mode == "code" else "<stdin>"
            exec(compile(what, name, "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit as exit:
        code = exit.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code & 255
        print(code, file=sys.stderr)
        return 1
    except BaseException as error:
        # Without the runner's own frames: the script's are what the reader needs.
        frames = traceback.extract_tb(error.__traceback__)
        mine = [f for f in frames if f.filename not in ("<exec>", "<frozen runpy>") and "runpy" not in f.filename]
        if mine:
            print("Traceback (most recent call last):", file=sys.stderr)
        print("".join(traceback.format_list(mine)), end="", file=sys.stderr)
        print("".join(traceback.format_exception_only(error)), end="", file=sys.stderr)
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return 0
_main(mode, what, argv)
`;

/** Sends what the script changed under the folders the agent's files are in (and the working directory, and /tmp). */
function report(pyodide, start) {
  const { FS } = pyodide;
  const before = new Map(start.files);
  const omitted = new Set(start.omitted);
  const roots = new Set([start.cwd, "/tmp", ...[...before.keys(), ...omitted].map((file) => `/${file.split("/")[1]}`)]);
  const seen = new Set();
  const same = (a, b) => a.length === b.length && a.every((byte, i) => byte === b[i]);
  const walk = (dir) => {
    for (const name of FS.readdir(dir)) {
      if (name === "." || name === "..") continue;
      const file = dir === "/" ? `/${name}` : `${dir}/${name}`;
      const { mode } = FS.stat(file);
      if (FS.isDir(mode)) walk(file);
      else if (FS.isFile(mode)) {
        seen.add(file);
        const bytes = FS.readFile(file);
        // Files too big to send were not laid in: one there now is the script's.
        if (!(before.has(file) && same(before.get(file), bytes))) post({ type: "fs", op: "write", path: file, data: bytes }, [bytes.buffer]);
      }
    }
  };
  for (const root of roots) {
    try {
      walk(root);
    } catch {
      // A root the script removed: its files are reported gone below.
    }
  }
  for (const file of before.keys()) if (!seen.has(file)) post({ type: "fs", op: "remove", path: file, recursive: false });
}
