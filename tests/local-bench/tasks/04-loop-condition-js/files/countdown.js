function countdown(n) {
  const out = [];
  for (let i = n; i > 1; i--) {
    out.push(i);
  }
  return out;
}

function countup(n) {
  const out = [];
  for (let i = 1; i <= n; i++) {
    out.push(i);
  }
  return out;
}

module.exports = { countdown, countup };
