#!/usr/bin/env bash
set -u
export PYTHONDONTWRITEBYTECODE=1
cat > greet.js <<'EOF'
function greet(name) {
  return `Hello, ${name}!`;
}
module.exports = { greet };
EOF
cat > main.js <<'EOF'
const { greet } = require("./greet");
console.log(greet("World"));
EOF
