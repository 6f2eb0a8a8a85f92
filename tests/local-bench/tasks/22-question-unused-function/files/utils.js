function slugify(s) {
  return s.toLowerCase().trim().replace(/[^a-z0-9]+/g, "-");
}

function truncate(s, n) {
  return s.length > n ? s.slice(0, n) + "..." : s;
}

function padLeft(s, n) {
  return s.padStart(n, " ");
}

function titleCase(s) {
  return s.replace(/\b\w/g, (c) => c.toUpperCase());
}

module.exports = { slugify, truncate, padLeft, titleCase };
