//! `openagent web`: serves the browser playground (`web/`) and the wasm package (`wasm/pkg/`,
//! under `/pkg/`) on 127.0.0.1, and Pyodide (under `/pyodide/`) when npm's copy is installed. A small static file server on the same bounded HTTP server as
//! `openagent serve` ([`openagent_http_server`]): the page talks to the model itself, so the
//! server only hands out files.

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::path::{Component, Path, PathBuf};

use openagent_http_server::{self as http_server, Answer, BadRequest, Limits, Request, Responder, Serving};

const TEXT: &str = "text/plain; charset=utf-8";
/// The playground only GETs files: a body is read (so the client is not cut off) and ignored.
const MAX_BODY: usize = 64 * 1024;

/// Where the files come from.
#[derive(Debug, Clone)]
pub struct WebRoots {
    /// The playground: `index.html`, its modules and styles.
    pub web: PathBuf,
    /// The output of `scripts/build-wasm`, served at `/pkg/`.
    pub pkg: PathBuf,
    /// npm's `pyodide` package, served at `/pyodide/`: the playground's `python` then loads
    /// Pyodide from here instead of from a CDN, with no network.
    pub pyodide: Option<PathBuf>,
}

impl WebRoots {
    /// The checkout this binary was built from, and the Pyodide that the scripts install into
    /// the tools directory (`OPENAGENT_TOOLS_DIR`, `~/.cache/openagent/tools` by default), if there.
    pub fn from_checkout() -> Self {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let tools = var("OPENAGENT_TOOLS_DIR").or_else(|| var("HOME").map(|home| home.join(".cache/openagent/tools")));
        let pyodide = tools.map(|dir| dir.join("node_modules/pyodide")).filter(|dir| dir.join("pyodide.mjs").is_file());
        Self { web: root.join("web"), pkg: root.join("wasm").join("pkg"), pyodide }
    }
}

/// A running playground server; it serves until it is dropped.
pub struct WebServer {
    addr: SocketAddr,
    _serving: Serving,
}

impl WebServer {
    /// Listens on 127.0.0.1:`port` (0: any free port) and serves in a background thread.
    pub fn start(roots: WebRoots, port: u16) -> io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let addr = listener.local_addr()?;
        let limits = Limits { max_body: MAX_BODY, ..Limits::default() };
        let serving = http_server::spawn(listener, "openagent-web", limits, Files(roots))?;
        Ok(Self { addr, _serving: serving })
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }
}

/// The playground's files, as the HTTP server serves them.
struct Files(WebRoots);

impl http_server::Service for Files {
    fn refuse(&self, refused: &BadRequest) -> Answer {
        answer(refused.status, TEXT, format!("{}\n", refused.message))
    }

    fn answer(&self, request: Request, responder: Responder) {
        responder.send(serve(&request, &self.0));
    }
}

/// A `HEAD` is answered as a `GET`: the server sends its head only.
fn serve(request: &Request, roots: &WebRoots) -> Answer {
    let (method, target) = (request.method.as_str(), request.target.as_str());
    match (method, resolve(roots, target)) {
        ("GET" | "HEAD", Some(path)) => match std::fs::read(&path) {
            Ok(body) => answer(200, content_type(&path), body),
            Err(_) => not_found(target, roots),
        },
        ("GET" | "HEAD", None) => not_found(target, roots),
        _ => answer(405, TEXT, "only GET and HEAD\n"),
    }
}

/// The file a request path names: `/` is `index.html`, `/pkg/...` is in the package,
/// `/pyodide/...` in Pyodide's. Paths that climb out (`..`) or are not plain names name nothing.
pub fn resolve(roots: &WebRoots, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let (root, rest) = if let Some(rest) = path.strip_prefix("/pkg/") {
        (&roots.pkg, rest)
    } else if let Some(rest) = path.strip_prefix("/pyodide/") {
        (roots.pyodide.as_ref()?, rest)
    } else {
        (&roots.web, path.trim_start_matches('/'))
    };
    let rest = if rest.is_empty() { "index.html" } else { rest };
    let relative = Path::new(rest);
    if !relative.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let full = root.join(relative);
    full.is_file().then_some(full)
}

fn not_found(target: &str, roots: &WebRoots) -> Answer {
    let hint = if target.starts_with("/pkg/") && !roots.pkg.join("openagent_wasm.js").is_file() {
        "\nThe wasm package is not built: run ./scripts/build-wasm, then reload.\n"
    } else {
        ""
    };
    answer(404, TEXT, format!("not found: {target}{hint}"))
}

fn answer(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Answer {
    Answer::new(status, body)
        .header("content-type", content_type)
        // no-store: a rebuilt package must never be mixed with a cached one.
        .header("cache-control", "no-store")
        // nosniff: a browser must take a text file for what its type says.
        .header("x-content-type-options", "nosniff")
}

/// The MIME type by extension; browsers refuse modules and wasm served as anything else.
pub fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "ts" | "md" | "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;

    use super::*;

    /// The checkout's playground is where `openagent web` looks for it, whichever crate serves it.
    #[test]
    fn the_checkout_roots_are_the_repository_s_web_and_wasm_pkg() {
        let roots = WebRoots::from_checkout();
        assert!(roots.web.join("index.html").is_file(), "{}", roots.web.display());
        assert!(roots.pkg.parent().is_some_and(|wasm| wasm.join("Cargo.toml").is_file()), "{}", roots.pkg.display());
    }

    /// Roots of their own for the test `name`: tests run in parallel, and each removes its roots.
    fn roots(name: &str) -> (WebRoots, PathBuf) {
        let dir = std::env::temp_dir().join(format!("openagent-web-test-{}-{name}", std::process::id()));
        let roots = WebRoots { web: dir.join("web"), pkg: dir.join("pkg"), pyodide: Some(dir.join("pyodide")) };
        std::fs::create_dir_all(&roots.pkg).unwrap();
        std::fs::create_dir_all(dir.join("pyodide")).unwrap();
        std::fs::write(dir.join("pyodide/pyodide.mjs"), "export {}").unwrap();
        std::fs::create_dir_all(roots.web.join("js")).unwrap();
        std::fs::write(roots.web.join("index.html"), "<!doctype html>").unwrap();
        std::fs::write(roots.web.join("js/app.js"), "export {}").unwrap();
        std::fs::write(roots.pkg.join("openagent_wasm_bg.wasm"), b"\0asm").unwrap();
        (roots, dir)
    }

    fn get(server: &WebServer, request: &str) -> String {
        let mut socket = TcpStream::connect(server.addr).unwrap();
        socket.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        socket.read_to_string(&mut answer).unwrap();
        answer
    }

    #[test]
    fn serves_the_page_its_modules_and_the_wasm_package_with_their_types() {
        let (roots, dir) = roots("serves");
        let server = WebServer::start(roots, 0).unwrap();
        assert!(server.url().starts_with("http://127.0.0.1:"));
        let index = get(&server, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(
            index.starts_with("HTTP/1.1 200 OK")
                && index.contains("content-type: text/html")
                && index.ends_with("<!doctype html>")
        );
        let module = get(&server, "GET /js/app.js?v=1 HTTP/1.1\r\n\r\n");
        assert!(module.contains("content-type: text/javascript"), "{module}");
        let wasm = get(&server, "GET /pkg/openagent_wasm_bg.wasm HTTP/1.1\r\n\r\n");
        assert!(wasm.contains("content-type: application/wasm"), "{wasm}");
        let pyodide = get(&server, "GET /pyodide/pyodide.mjs HTTP/1.1\r\n\r\n");
        assert!(pyodide.starts_with("HTTP/1.1 200") && pyodide.contains("content-type: text/javascript"), "{pyodide}");
        let head = get(&server, "HEAD /js/app.js HTTP/1.1\r\n\r\n");
        assert!(head.contains("content-length: 9") && head.ends_with("\r\n\r\n"), "{head}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn refuses_paths_outside_the_roots_missing_files_and_other_methods() {
        let (roots, dir) = roots("refuses");
        let server = WebServer::start(roots.clone(), 0).unwrap();
        assert!(get(&server, "GET /../Cargo.toml HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
        assert!(get(&server, "GET /pkg/../web/index.html HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
        assert_eq!(resolve(&roots, "/js/%2e%2e/index.html"), None);
        assert_eq!(resolve(&roots, "/pyodide/../web/index.html"), None);
        let without = WebRoots { pyodide: None, ..roots.clone() };
        assert_eq!(resolve(&without, "/pyodide/pyodide.mjs"), None, "no Pyodide installed: nothing under /pyodide/");
        let missing = get(&server, "GET /pkg/openagent_wasm.js HTTP/1.1\r\n\r\n");
        assert!(missing.starts_with("HTTP/1.1 404") && missing.contains("./scripts/build-wasm"), "{missing}");
        assert!(get(&server, "POST / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
