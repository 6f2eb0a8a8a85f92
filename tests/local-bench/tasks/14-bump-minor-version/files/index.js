module.exports = (s) => s.replace(/^\s+/, "");
