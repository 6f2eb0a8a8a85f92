# scripts/install.sh: the installs OpenAgent's scripts share, sourced by scripts/test-all and
# scripts/start. Each function installs one thing unless it is already there; with
# OPENAGENT_SKIP_INSTALL=1 it only checks, and fails saying what is missing. Needs ROOT set.

TOOLS_DIR="${OPENAGENT_TOOLS_DIR:-$HOME/.cache/openagent/tools}" # npm-installed tools (wasm-opt)
SKIP_INSTALL="${OPENAGENT_SKIP_INSTALL:-0}"
BINARYEN_VERSION="132.0.0"    # npm package `binaryen`, which ships wasm-opt; pinned so sizes compare
ESBUILD_VERSION="0.28.2"      # npm package `esbuild`, which minifies the package's JS; pinned likewise
# npm package `pyodide` (CPython for the browser), which the browser tests serve to python.js; as
# wasm/js/python.js's PYODIDE_VERSION.
PYODIDE_VERSION="314.0.7"
# The MCP reference servers the MCP suites (tests/tests/mcp) talk to, pinned.
MCP_SERVERS=("@modelcontextprotocol/server-everything@2026.8.31" "@modelcontextprotocol/server-filesystem@2026.8.31")
WASM_TARGETS=(wasm32-unknown-unknown wasm32-wasip1)
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}" # Debian's; the browser tests drive it with playwright-core
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

die() { echo "error: $*" >&2; return 1; }

can_install() {
    if [[ "$SKIP_INSTALL" == "1" ]]; then
        die "$1 is missing and OPENAGENT_SKIP_INSTALL=1 forbids installing it"
        return 1
    fi
}

install_rust_parts() {
    local installed missing=() t
    installed="$(rustup target list --installed)" || return 1
    for t in "${WASM_TARGETS[@]}"; do
        grep -qx "$t" <<<"$installed" || missing+=("$t")
    done
    if [[ ${#missing[@]} -gt 0 ]]; then
        can_install "rustup target ${missing[*]}" || return 1
        rustup target add "${missing[@]}" || return 1
    fi
    local components=()
    cargo fmt --version >/dev/null 2>&1 || components+=(rustfmt)
    cargo clippy --version >/dev/null 2>&1 || components+=(clippy)
    # std's sources: the browser builds compile their own std (scripts/wasm-release-build).
    rustup component list --installed | grep -q '^rust-src' || components+=(rust-src)
    if [[ ${#components[@]} -gt 0 ]]; then
        can_install "rustup component ${components[*]}" || return 1
        rustup component add "${components[@]}" || return 1
    fi
    echo "targets: ${WASM_TARGETS[*]}; $(cargo fmt --version); $(cargo clippy --version); rust-src"
}

install_node() {
    if command -v node >/dev/null && command -v npm >/dev/null; then
        echo "node $(node --version), npm $(npm --version 2>/dev/null)"
        return 0
    fi
    can_install "node/npm" || return 1
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm </dev/null || return 1
    echo "node $(node --version), npm $(npm --version 2>/dev/null)"
}

# wasm-bindgen-test-runner must be exactly the version of the wasm-bindgen crate in Cargo.lock.
wasm_bindgen_version() {
    awk '/^name = "wasm-bindgen"$/ { found = 1; next } found && /^version = / { gsub(/"/, "", $3); print $3; exit }' "$ROOT/Cargo.lock"
}

install_wasm_bindgen() {
    local want have
    want="$(wasm_bindgen_version)"
    [[ -n "$want" ]] || { die "no wasm-bindgen package in Cargo.lock"; return 1; }
    have="$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }')"
    if [[ "$have" == "$want" ]] && command -v wasm-bindgen-test-runner >/dev/null; then
        echo "wasm-bindgen-cli $have (matches Cargo.lock)"
        return 0
    fi
    can_install "wasm-bindgen-cli $want (found: ${have:-none})" || return 1
    echo "installing wasm-bindgen-cli $want (found: ${have:-none}); this compiles it, a few minutes"
    # No --locked: installing wasm-bindgen-cli with --locked fails here.
    cargo install wasm-bindgen-cli --version "=$want" --force || return 1
    have="$(wasm-bindgen --version | awk '{ print $2 }')"
    [[ "$have" == "$want" ]] || { die "wasm-bindgen reports $have after installing $want (is another one first on PATH?)"; return 1; }
}

# npm's NAME@VERSION into $TOOLS_DIR, unless that version is there (with BIN, when given).
install_npm_tool() {
    local name="$1" version="$2" bin="${3:-}" pkg="$TOOLS_DIR/node_modules/$1/package.json" have=""
    [[ -f "$pkg" ]] && have="$(node -p "require('$pkg').version" 2>/dev/null)"
    if [[ "$have" == "$version" && ( -z "$bin" || -x "$bin" ) ]]; then
        echo "npm $name $have in $TOOLS_DIR"
        return 0
    fi
    can_install "npm $name@$version" || return 1
    mkdir -p "$TOOLS_DIR" || return 1
    npm install --prefix "$TOOLS_DIR" --no-audit --no-fund --loglevel=error "$name@$version" </dev/null
}

# wasm-split-cli (from Dioxus), which splits the package's codecs and shell into modules of their
# own (scripts/build-wasm); pinned, as its output is part of the package.
WASM_SPLIT_VERSION="0.8.0-alpha.3"
install_wasm_split() {
    local have
    have="$(cargo install --list | sed -n 's/^wasm-split-cli v\([^:]*\):$/\1/p')"
    if [[ "$have" == "$WASM_SPLIT_VERSION" ]] && command -v wasm-split-cli >/dev/null; then
        echo "wasm-split-cli $have"
        return 0
    fi
    can_install "wasm-split-cli $WASM_SPLIT_VERSION (found: ${have:-none})" || return 1
    echo "installing wasm-split-cli $WASM_SPLIT_VERSION (found: ${have:-none}); this compiles it, a few minutes"
    cargo install wasm-split-cli --version "=$WASM_SPLIT_VERSION" --locked --force || return 1
}

WASM_OPT="$TOOLS_DIR/node_modules/.bin/wasm-opt"
install_wasm_opt() { install_npm_tool binaryen "$BINARYEN_VERSION" "$WASM_OPT"; }

ESBUILD="$TOOLS_DIR/node_modules/.bin/esbuild"
install_esbuild() { install_npm_tool esbuild "$ESBUILD_VERSION" "$ESBUILD"; }

# The MCP reference servers into $TOOLS_DIR, where tests/src/mcp.rs finds them; each skipped
# when its pinned version is there.
install_mcp_servers() {
    local spec name version have missing=()
    for spec in "${MCP_SERVERS[@]}"; do
        name="${spec%@*}" version="${spec##*@}" have=""
        [[ -f "$TOOLS_DIR/node_modules/$name/package.json" ]] &&
            have="$(node -p "require('$TOOLS_DIR/node_modules/$name/package.json').version" 2>/dev/null)"
        [[ "$have" == "$version" ]] || missing+=("$spec")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        echo "MCP servers in $TOOLS_DIR: ${MCP_SERVERS[*]}"
        return 0
    fi
    can_install "npm ${missing[*]}" || return 1
    mkdir -p "$TOOLS_DIR" || return 1
    npm install --prefix "$TOOLS_DIR" --no-audit --no-fund --loglevel=error "${missing[@]}" </dev/null
}

# Pyodide into $TOOLS_DIR/node_modules/pyodide, which the browser tests serve (PYODIDE_DIR).
install_pyodide() { install_npm_tool pyodide "$PYODIDE_VERSION"; }

# tmux: the interactive screen's tests run `openagent` in it and read its screen back.
install_tmux() {
    if ! command -v tmux >/dev/null; then
        can_install "tmux" || return 1
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux </dev/null || return 1
    fi
    tmux -V
}

# The playground's browser tests: Debian's Chromium (`npx playwright install` downloads a browser
# build, which cannot work here), then web/'s pinned npm packages (playwright-core, typescript).
install_browser_tools() {
    if [[ ! -x "$CHROMIUM" ]]; then
        can_install "chromium" || return 1
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver </dev/null || return 1
    fi
    echo "$("$CHROMIUM" --version 2>/dev/null | head -n 1) at $CHROMIUM"
    # npm ls fails when a package is missing or not at its pinned version.
    if (cd "$ROOT/web" && npm ls --depth=0 >/dev/null 2>&1); then
        echo "web/node_modules: $(cd "$ROOT/web" && npm ls --depth=0 2>/dev/null | tail -n +2 | tr -d '\n')"
        return 0
    fi
    can_install "web/node_modules (npm ci)" || return 1
    (cd "$ROOT/web" && npm ci --no-audit --no-fund --loglevel=error </dev/null) || return 1
}
