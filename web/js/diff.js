// Line diffs (Myers' O(ND) algorithm, after trimming the common head and tail) grouped into
// unified-diff hunks with a few lines of context.

/** Above this many changed lines a file's diff is not worked out (its memory grows with the square). */
export const MAX_EDITS = 2000;
/**
 * Above this many lines between the common head and tail (both sides together) a diff is not
 * worked out either: its time grows with their number times the edits. A one-line change to a
 * long file has two.
 */
export const MAX_DIFF_LINES = 50_000;
const CONTEXT = 3;

/**
 * The edit script from lines `a` to lines `b`: [op, line] pairs where op is " " (kept), "-" or "+";
 * null when more than `maxEdits` lines differ, or more than MAX_DIFF_LINES lie between the common
 * head and tail.
 */
export function diffLines(a, b, maxEdits = MAX_EDITS) {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let [endA, endB] = [a.length, b.length];
  while (endA > head && endB > head && a[endA - 1] === b[endB - 1]) [endA, endB] = [endA - 1, endB - 1];
  if (endA - head + (endB - head) > MAX_DIFF_LINES) return null;
  const middle = myers(a.slice(head, endA), b.slice(head, endB), maxEdits);
  if (!middle) return null;
  const kept = (lines) => lines.map((line) => [" ", line]);
  return [...kept(a.slice(0, head)), ...middle, ...kept(a.slice(endA))];
}

function myers(a, b, maxEdits) {
  const [n, m] = [a.length, b.length];
  if (n + m > 0 && (n === 0 || m === 0)) return n + m > maxEdits ? null : [...a.map((l) => ["-", l]), ...b.map((l) => ["+", l])];
  const max = n + m;
  const v = new Int32Array(2 * max + 3);
  const at = (k) => k + max + 1;
  const trace = []; // trace[d]: v over k in [-d-1, d+1] before step d
  for (let d = 0; d <= Math.min(max, maxEdits); d++) {
    trace.push(v.slice(at(-d - 1), at(d + 1) + 1));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[at(k - 1)] < v[at(k + 1)]) ? v[at(k + 1)] : v[at(k - 1)] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) [x, y] = [x + 1, y + 1];
      v[at(k)] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, d);
    }
  }
  return null;
}

function backtrack(a, b, trace, edits) {
  const out = [];
  let [x, y] = [a.length, b.length];
  for (let d = edits; d > 0; d--) {
    const v = trace[d];
    const get = (k) => v[k + d + 1];
    const k = x - y;
    const down = k === -d || (k !== d && get(k - 1) < get(k + 1)); // came from k+1: a line of b was inserted
    const prevK = down ? k + 1 : k - 1;
    const prevX = get(prevK);
    const prevY = prevX - prevK;
    for (; x > prevX && y > prevY; x--, y--) out.push([" ", a[x - 1]]);
    if (down) out.push(["+", b[--y]]);
    else out.push(["-", a[--x]]);
    [x, y] = [prevX, prevY];
  }
  while (x > 0) out.push([" ", a[--x]]);
  return out.reverse();
}

/**
 * Unified-diff hunks of an edit script: [{ header: "@@ -1,4 +1,5 @@", lines: [op, line][] }],
 * each change with `CONTEXT` kept lines around it.
 */
export function hunks(script) {
  const changed = script.map(([op], i) => (op === " " ? -1 : i)).filter((i) => i >= 0);
  const out = [];
  let current = null;
  for (const i of changed) {
    const from = Math.max(0, i - CONTEXT);
    if (current && from <= current.to) current.to = Math.min(script.length, i + CONTEXT + 1);
    else out.push((current = { from, to: Math.min(script.length, i + CONTEXT + 1) }));
  }
  // Line numbers where each hunk starts on each side, counted along the script.
  let [lineA, lineB, done] = [1, 1, 0];
  return out.map(({ from, to }) => {
    for (const [op] of script.slice(done, from)) [lineA, lineB] = [lineA + (op !== "+"), lineB + (op !== "-")];
    done = from;
    const lines = script.slice(from, to);
    const countA = lines.filter(([op]) => op !== "+").length;
    const countB = lines.filter(([op]) => op !== "-").length;
    return { header: `@@ -${countA ? lineA : lineA - 1},${countA} +${countB ? lineB : lineB - 1},${countB} @@`, lines };
  });
}
