// .gitignore rules as git reads them (gitignore(5)): `#` comments, `!` negation, a trailing `/`
// for directories only, a `/` at the start or in the middle anchoring the pattern to its file's
// directory, `*`, `?`, `[...]` and `**`. Each .gitignore applies to its own directory's subtree;
// a deeper file's rules, and later lines, win. As in git, a file inside an ignored directory stays
// ignored whatever its own rules say.

export class GitIgnore {
  #rules = new Map(); // directory ("" is the root) -> its rules, in file order
  #dirs = new Map(); // directory -> whether it is ignored (directly or by a parent), once asked
  #count = 0;
  #length = 0;

  /** Adds the rules of the .gitignore found in `dir` ("" for the root, else "a/b"). */
  add(dir, text) {
    const rules = text.split(/\r?\n/).map(parse).filter(Boolean);
    if (rules.length) this.#rules.set(dir, [...(this.#rules.get(dir) ?? []), ...rules]);
    this.#count += rules.length;
    this.#length += text.length;
    this.#dirs.clear();
  }

  /** How many rules all the files added hold: each file checked is matched against them. */
  get ruleCount() {
    return this.#count;
  }

  /** The length of all the text added. */
  get textLength() {
    return this.#length;
  }

  /** Whether `path` ("a/b.txt") is ignored by its own name alone, not counting its directories. */
  matches(path, isDir) {
    const parts = path.split("/");
    let ignored = false;
    for (let depth = 0; depth < parts.length; depth++) {
      const rules = this.#rules.get(parts.slice(0, depth).join("/"));
      if (!rules) continue;
      const relative = parts.slice(depth).join("/");
      for (const rule of rules) {
        if (rule.dirOnly && !isDir) continue;
        if (rule.regex.test(rule.anchored ? relative : parts[parts.length - 1])) ignored = !rule.negate;
      }
    }
    return ignored;
  }

  /** What ignores the file `path`: its top-most ignored directory ("build/"), the path itself, or null. */
  ignoredBy(path) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (!this.#dirs.has(dir)) this.#dirs.set(dir, this.matches(dir, true));
      if (this.#dirs.get(dir)) return `${dir}/`;
    }
    return this.matches(path, false) ? path : null;
  }
}

/** A rule of one line, or null for a blank line or a comment. */
function parse(line) {
  if (line.startsWith("#")) return null;
  // Trailing spaces go, unless escaped with a backslash (one not itself escaped).
  while (line.endsWith(" ") && !/(^|[^\\])(\\\\)*\\ $/.test(line)) line = line.slice(0, -1);
  const negate = line.startsWith("!");
  if (negate) line = line.slice(1);
  const dirOnly = line.endsWith("/") && !line.endsWith("\\/");
  if (dirOnly) line = line.slice(0, -1);
  if (!line) return null;
  const anchored = line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  try {
    return { negate, dirOnly, anchored, regex: new RegExp(`^${globToRegex(line)}$`) };
  } catch {
    return null; // a pattern git cannot match either ([z-a], say): it matches nothing
  }
}

/** `*` and `?` stay within a path segment; `**` as a whole segment spans any number of them. */
function globToRegex(glob) {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    const wholeSegment = i === 0 || glob[i - 1] === "/";
    if (c === "*" && glob[i + 1] === "*" && wholeSegment && glob[i + 2] === "/") {
      out += "(?:.*/)?"; // "**/": zero or more directories
      i += 2;
    } else if (c === "*" && glob[i + 1] === "*" && wholeSegment && i + 2 === glob.length) {
      out += ".*"; // a trailing "/**": everything inside
      i += 1;
    } else if (c === "*") {
      while (glob[i + 1] === "*") i++;
      out += "[^/]*";
    } else if (c === "?") {
      out += "[^/]";
    } else if (c === "[") {
      const [regex, next] = bracket(glob, i);
      out += regex;
      i = next;
    } else if (c === "\\") {
      if (i + 1 === glob.length) throw new SyntaxError("a trailing backslash"); // git matches nothing with it
      out += escape(glob[++i]);
    } else {
      out += escape(c);
    }
  }
  return out;
}

const escape = (c) => c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

const POSIX_CLASSES = {
  alnum: "a-zA-Z0-9", alpha: "a-zA-Z", blank: " \\t", cntrl: "\\x00-\\x1f\\x7f", digit: "0-9", graph: "!-~",
  lower: "a-z", print: " -~", punct: "!-\\/:-@\\[-`{-~", space: " \\t\\n\\r\\f\\v", upper: "A-Z", xdigit: "0-9a-fA-F",
};

/**
 * The class that starts at `glob[start]` ("["), as git's wildmatch reads one: `!` or `^` first
 * negates it, a `]` first is a member, `\` escapes, `[:digit:]` and the other POSIX classes, and
 * ranges. It never matches `/`. Gives the regex and the index of its closing `]`; a class that is
 * not closed (or names an unknown POSIX class) throws: git matches nothing with it.
 */
function bracket(glob, start) {
  const member = (c) => (/[\\\]\[^-]/.test(c) ? `\\${c}` : c);
  let i = start + 1;
  const negated = glob[i] === "!" || glob[i] === "^";
  if (negated) i++;
  let body = "";
  let previous = null; // the last single member, which a following "-" makes a range's start
  for (let first = true; i < glob.length && (first || glob[i] !== "]"); i++, first = false) {
    const posix = glob.slice(i).match(/^\[:([a-z]+):\]/);
    if (posix) {
      if (!POSIX_CLASSES[posix[1]]) throw new SyntaxError(`an unknown class [:${posix[1]}:]`);
      body += POSIX_CLASSES[posix[1]];
      i += posix[0].length - 1;
      previous = null;
    } else if (glob[i] === "-" && previous !== null && glob[i + 1] !== undefined && glob[i + 1] !== "]") {
      let end = glob[++i];
      if (end === "\\") end = glob[++i];
      if (end === undefined) break;
      // A range backwards ([z-a]) adds nothing past its start, as in git.
      if (end.codePointAt(0) >= previous.codePointAt(0)) body += `-${member(end)}`;
      previous = null;
    } else {
      // A member as itself (after a backslash, too), escaped where the regex would read it otherwise.
      if (glob[i] === "\\" && ++i === glob.length) break;
      body += member(glob[i]);
      previous = glob[i];
    }
  }
  if (i >= glob.length) throw new SyntaxError("a [ that is not closed");
  return [`(?!/)[${negated ? "^" : ""}${body}]`, i];
}
