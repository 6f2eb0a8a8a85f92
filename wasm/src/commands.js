// The JS side of `commands` (commands.rs): the call's object is made and the answer checked here,
// where it costs the browser bundle a fraction of what it would in Rust.

const encoder = new TextEncoder();

/** The `commands` option as [[name, function]], or an Error that says what is wrong. */
export function commandList(commands) {
  const owner = "invalid Agent options: `commands`";
  if (typeof commands !== "object") throw new Error(`${owner} must be an object of async functions, e.g. { node: nodeCommand() }`);
  return Object.entries(commands).map(([name, run]) => {
    if (typeof run !== "function") throw new Error(`${owner}.${name} must be a function`);
    return [name, run];
  });
}

/**
 * Calls a command with `{ argv, stdin, cwd, env, timeoutMs, signal, fs, sandbox }` (`env` comes as
 * [name, value, ...], `timeoutMs` below 0 as null); resolves to [stdout, stderr, exitCode], a
 * throw as exit code 1 and an answer of another shape as 126, each with a message on stderr.
 */
export async function runCommand(name, run, argv, stdin, cwd, env, timeoutMs, signal, fs, sandbox) {
  const vars = {};
  for (let i = 0; i < env.length; i += 2) vars[env[i]] = env[i + 1];
  const call = { argv, stdin: stdin.slice(), cwd, env: vars, timeoutMs: timeoutMs < 0 ? null : timeoutMs, signal, fs, sandbox };
  const none = new Uint8Array();
  const failed = (message, code) => [none, encoder.encode(`${name}: ${message}\n`), code];
  let answer;
  try {
    answer = await run(call);
  } catch (error) {
    return failed(error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error), 1);
  }
  const wrong = (what) => failed(`the command answered ${what}, not { stdout, stderr, exitCode }`, 126);
  if (typeof answer !== "object" || answer === null) return wrong(answer === null ? "null" : typeof answer);
  const output = (key) => {
    const value = answer[key];
    return value == null ? none : typeof value === "string" ? encoder.encode(value) : value instanceof Uint8Array ? value : null;
  };
  const [stdout, stderr, code] = [output("stdout"), output("stderr"), answer.exitCode ?? 0];
  if (!stdout || !stderr) return wrong(`a \`${stdout ? "stderr" : "stdout"}\` that is neither a string nor a Uint8Array`);
  if (!Number.isInteger(code) || Math.abs(code) >= 2 ** 31) return wrong("an `exitCode` that is not a whole number");
  return [stdout, stderr, code];
}
