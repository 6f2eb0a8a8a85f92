//! The network allow-list (`Network::Hosts`): a local HTTP proxy that the command's HTTP clients
//! are pointed at (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`), which opens a tunnel (`CONNECT`) or
//! forwards a request (an absolute URL) only to the hosts listed, and answers 403 otherwise. The
//! rest of the confinement keeps the command to it: Landlock allows TCP connects to the proxy's
//! port only, and seccomp allows only stream sockets (no UDP, so no DNS of its own: the proxy
//! resolves names).
//!
//! Landlock names a port, not an address: a server elsewhere that listens on the proxy's port
//! number would be reachable by address. The proxy listens on an ephemeral port chosen anew for
//! each policy, which such a server would have to guess.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::ConfineError;

/// The longest request head the proxy reads.
const HEAD_LIMIT: usize = 16 * 1024;

/// A running proxy; it stops when dropped.
#[derive(Debug)]
pub struct Proxy {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    /// A proxy on 127.0.0.1 that lets through only `hosts` (names, or `*.example.com` for the
    /// names under it).
    pub fn start(hosts: &[String]) -> Result<Self, ConfineError> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .map_err(|err| ConfineError::Prepare(format!("could not start the allow-list's proxy: {err}")))?;
        let port = listener.local_addr().map_err(|err| ConfineError::Prepare(err.to_string()))?.port();
        let stop = Arc::new(AtomicBool::new(false));
        let (hosts, stopped) = (Arc::new(hosts.to_vec()), stop.clone());
        thread::Builder::new()
            .name("openagent-proxy".into())
            .spawn(move || {
                for stream in listener.incoming() {
                    if stopped.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let hosts = hosts.clone();
                    let _ = thread::Builder::new().name("openagent-proxy-conn".into()).spawn(move || serve(stream, &hosts));
                }
            })
            .map_err(|err| ConfineError::Prepare(format!("could not start the allow-list's proxy: {err}")))?;
        Ok(Self { port, stop })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The variables that point a command's clients at the proxy.
    pub fn vars(&self) -> Vec<(String, String)> {
        let url = format!("http://127.0.0.1:{}", self.port);
        let mut vars: Vec<(String, String)> =
            ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"]
                .into_iter()
                .map(|name| (name.to_owned(), url.clone()))
                .collect();
        vars.extend(["NO_PROXY", "no_proxy"].map(|name| (name.to_owned(), String::new())));
        vars
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then sees the flag.
        let _ = TcpStream::connect_timeout(&([127, 0, 0, 1], self.port).into(), Duration::from_millis(100));
    }
}

/// Whether `host` is one of `hosts`: equal to a name, or under a `*.` one.
pub fn allowed(hosts: &[String], host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    hosts.iter().any(|entry| {
        let entry = entry.to_ascii_lowercase();
        match entry.strip_prefix("*.") {
            Some(domain) => host.strip_suffix(domain).is_some_and(|sub| sub.ends_with('.') && sub.len() > 1),
            None => host == entry,
        }
    })
}

fn serve(client: TcpStream, hosts: &[String]) {
    let _ = client.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(reader) = client.try_clone() else { return };
    let mut reader = BufReader::new(reader);
    let mut head = Vec::new();
    loop {
        let before = head.len();
        if reader.by_ref().take((HEAD_LIMIT - before) as u64).read_until(b'\n', &mut head).unwrap_or(0) == 0 {
            return;
        }
        if head.ends_with(b"\r\n\r\n") || head.ends_with(b"\n\n") || head.len() >= HEAD_LIMIT {
            break;
        }
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let mut words = text.split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let (host, port, tunnel) = match method {
        "CONNECT" => match split_port(target, 443) {
            Some((host, port)) => (host, port, true),
            None => return refuse(client, target, hosts),
        },
        _ => match target.strip_prefix("http://").and_then(|rest| split_port(rest.split('/').next().unwrap_or(""), 80)) {
            Some((host, port)) => (host, port, false),
            None => return refuse(client, target, hosts),
        },
    };
    if !allowed(hosts, &host) {
        return refuse(client, &host, hosts);
    }
    let _ = client.set_read_timeout(None);
    let Ok(mut upstream) = TcpStream::connect((host.as_str(), port)) else {
        let _ = (&client).write_all(b"HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n");
        return;
    };
    let sent = match tunnel {
        true => (&client).write_all(b"HTTP/1.1 200 Connection established\r\n\r\n"),
        false => upstream.write_all(&head),
    };
    // What the client sent past the head (already buffered) goes first.
    if sent.is_err() || upstream.write_all(reader.buffer()).is_err() {
        return;
    }
    let (Ok(mut client_out), Ok(mut upstream_in)) = (client.try_clone(), upstream.try_clone()) else { return };
    let back = thread::spawn(move || {
        let _ = std::io::copy(&mut upstream_in, &mut client_out);
        let _ = client_out.shutdown(Shutdown::Write);
    });
    let _ = std::io::copy(&mut reader.into_inner(), &mut upstream);
    let _ = upstream.shutdown(Shutdown::Write);
    let _ = back.join();
}

/// `host:port` (or `[v6]:port`), the port `default` when none is given.
fn split_port(authority: &str, default: u16) -> Option<(String, u16)> {
    let authority = authority.rsplit('@').next()?;
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => (host, port.parse().ok()?),
        _ => (authority, default),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    (!host.is_empty()).then(|| (host.to_owned(), port))
}

fn refuse(mut client: TcpStream, host: &str, hosts: &[String]) {
    let body = format!("openagent: {host} is not in the sandbox's network allow-list ({})\n", hosts.join(", "));
    let head = format!(
        "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = client.write_all(head.as_bytes()).and_then(|_| client.write_all(body.as_bytes()));
}

#[cfg(test)]
mod tests {
    use super::{allowed, split_port};

    #[test]
    fn a_host_is_allowed_by_its_name_or_a_wildcard_above_it() {
        let hosts = ["crates.io".to_owned(), "*.npmjs.org".to_owned()];
        assert!(allowed(&hosts, "crates.io") && allowed(&hosts, "CRATES.IO."));
        assert!(allowed(&hosts, "registry.npmjs.org") && allowed(&hosts, "a.b.npmjs.org"));
        assert!(!allowed(&hosts, "npmjs.org"), "a wildcard is for the names under it");
        assert!(
            !allowed(&hosts, "evilnpmjs.org") && !allowed(&hosts, "crates.io.evil.com") && !allowed(&hosts, "static.crates.io")
        );
        assert_eq!(split_port("example.com:8443", 443), Some(("example.com".into(), 8443)));
        assert_eq!(split_port("example.com", 80), Some(("example.com".into(), 80)));
        assert_eq!(split_port("[::1]:80", 443), Some(("::1".into(), 80)));
        assert_eq!(split_port("", 80), None);
    }
}
