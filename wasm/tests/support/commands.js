// Shell commands written in JS for the binding tests of the `commands` option. Each keeps the
// calls it was given in `calls`.

const kept = (command) => {
  const wrapped = async (call) => {
    wrapped.calls.push(call);
    return command(call);
  };
  wrapped.calls = [];
  return wrapped;
};

/** `up [words]`: its words and standard input in capitals, as text. */
export const up = () =>
  kept(({ argv, stdin }) => ({ stdout: argv.slice(1).join(" ").toUpperCase() + new TextDecoder().decode(stdin).toUpperCase(), exitCode: 0 }));

/** `count FILE`: writes FILE's line count to counts/FILE through `fs`, and says so as bytes. */
export const count = () =>
  kept(({ argv, fs }) => {
    const lines = fs.readText(argv[1]).split("\n").length - 1;
    fs.write(`counts/${argv[1]}`, `${lines}\n`);
    return { stdout: new TextEncoder().encode(`counted ${argv[1]}\n`) };
  });

/** `wait`: answers only once its signal is aborted (then too late to be read); `aborted` says whether it was. */
export const wait = () => {
  const command = kept(({ signal }) => new Promise((resolve) => signal.addEventListener("abort", () => {
    command.aborted = true;
    resolve({ exitCode: 0 });
  })));
  command.aborted = false;
  return command;
};

/** `boom`: throws. */
export const boom = () => kept(() => { throw new Error("the runner broke"); });

/** `odd`: answers with the wrong shape. */
export const odd = () => kept(() => ({ stdout: 42 }));
