//! Just enough of an HTTP/1.1 server for `openagent web` and `openagent serve`, on `std::net`:
//! read one request (its head, and a `Content-Length` body up to a limit), write one response,
//! close the connection. A fixed pool of worker threads serves the connections, each read under
//! deadlines ([`pool`]). Both servers answer on 127.0.0.1 only, so keep-alive, chunked uploads and
//! pipelining are not worth their code: every connection carries one request.

mod pool;

use std::io::{self, BufRead, Read, Write};

use openagent_core::llm::http::find_header;

pub use pool::{spawn, spawn_with, Limits};

/// A request head larger than this is a broken or hostile client, not a real request.
const MAX_HEAD: u64 = 64 * 1024;

/// One request as read off the socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// Path and query, as sent (still percent-encoded).
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// The target without its query and fragment.
    pub fn path(&self) -> &str {
        self.target.split(['?', '#']).next().unwrap_or("/")
    }

    /// The query's parameters, percent-decoded (`+` is a space, as forms send it).
    pub fn query(&self) -> Vec<(String, String)> {
        let Some((_, query)) = self.target.split('#').next().unwrap_or("").split_once('?') else { return Vec::new() };
        let decode = |text: &str| percent_decode(&text.replace('+', " "));
        query
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                (decode(name).unwrap_or_default(), decode(value).unwrap_or_default())
            })
            .collect()
    }
}

/// Why a request could not be read, with the status to answer it with (when the client is
/// still there to read one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRequest {
    pub status: u16,
    pub message: String,
}

impl BadRequest {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Self { status, message: message.into() }
    }
}

/// Decides on a request from its head, before its body is read: `Some` refuses it (a missing
/// token, say), so that a refused client gets nothing of the server, not even its body read.
pub type Gate = dyn Fn(&[(String, String)]) -> Option<BadRequest> + Send + Sync;

/// The request line and headers, with the body still unread (and empty); `Ok(None)` when the
/// peer closed without sending a request.
fn read_head(reader: &mut impl BufRead) -> Result<Option<Request>, BadRequest> {
    let mut head = reader.by_ref().take(MAX_HEAD);
    let Some(request_line) = read_line(&mut head)? else { return Ok(None) };
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target), Some(_version)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(BadRequest::new(400, format!("malformed request line {request_line:?}")));
    };
    let mut headers = Vec::new();
    loop {
        let line = read_line(&mut head)?.ok_or_else(|| BadRequest::new(400, "the connection closed inside the request head"))?;
        if line.is_empty() {
            break;
        }
        let (name, value) =
            line.split_once(':').ok_or_else(|| BadRequest::new(400, format!("malformed header line {line:?}")))?;
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    Ok(Some(Request { method: method.to_owned(), target: target.to_owned(), headers, body: Vec::new() }))
}

/// Reads the body `request`'s head announced, once `gate` lets the head through.
fn read_body(reader: &mut impl Read, request: &mut Request, max_body: usize, gate: &Gate) -> Result<(), BadRequest> {
    if let Some(refused) = gate(&request.headers) {
        return Err(refused);
    }
    if request.header("transfer-encoding").is_some() {
        return Err(BadRequest::new(411, "chunked request bodies are not accepted; send Content-Length"));
    }
    let length = match request.header("content-length") {
        None => 0,
        Some(v) => v.parse::<usize>().map_err(|_| BadRequest::new(400, format!("bad Content-Length {v:?}")))?,
    };
    if length > max_body {
        return Err(BadRequest::new(413, format!("a {length}-byte body is over the limit of {max_body} bytes")));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => BadRequest::new(400, "the request body ended before its Content-Length"),
        _ => read_failed(&e),
    })?;
    request.body = body;
    Ok(())
}

/// A read that failed: a client too slow for its deadline gets a 408 that says so.
fn read_failed(error: &io::Error) -> BadRequest {
    match error.kind() {
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => BadRequest::new(408, error.to_string()),
        _ => BadRequest::new(400, format!("reading the request failed: {error}")),
    }
}

/// One line without its line end; `None` at the end of input.
fn read_line(reader: &mut impl BufRead) -> Result<Option<String>, BadRequest> {
    let mut line = Vec::new();
    let n = reader.read_until(b'\n', &mut line).map_err(|e| read_failed(&e))?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        return Err(BadRequest::new(431, "the request head is too long or was cut off"));
    }
    let line = String::from_utf8(line).map_err(|_| BadRequest::new(400, "the request head is not UTF-8"))?;
    Ok(Some(line.trim_end_matches(['\r', '\n']).to_owned()))
}

/// `%2F` and friends decoded; `None` when an escape is broken or the bytes are not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Writes a whole response: status line, `headers`, the length, `connection: close` and, unless
/// `head_only`, the body.
pub fn respond(out: &mut impl Write, status: u16, headers: &[(&str, &str)], body: &[u8], head_only: bool) -> io::Result<()> {
    write_head(out, status, headers, Some(body.len()))?;
    if !head_only {
        out.write_all(body)?;
    }
    out.flush()
}

/// Writes the status line and headers. `length: None` means the body runs until the connection
/// closes (a stream of server-sent events).
pub fn write_head(out: &mut impl Write, status: u16, headers: &[(&str, &str)], length: Option<usize>) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(length) = length {
        head.push_str(&format!("content-length: {length}\r\n"));
    }
    // nosniff: a browser must take a JSON error or a text file for what its type says.
    head.push_str("x-content-type-options: nosniff\r\nconnection: close\r\n\r\n");
    out.write_all(head.as_bytes())?;
    out.flush()
}

/// The reason phrase of the statuses these servers send.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One request read as a worker reads it: the head, then the body if `gate` lets it through.
    fn read_request(raw: &[u8], max_body: usize, gate: &Gate) -> Result<Option<Request>, BadRequest> {
        let mut reader = raw;
        let Some(mut request) = read_head(&mut reader)? else { return Ok(None) };
        read_body(&mut reader, &mut request, max_body, gate)?;
        Ok(Some(request))
    }

    #[test]
    fn reads_a_request_with_its_headers_and_body() {
        let raw = b"POST /sessions?limit=5&status=run+ning HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nAuthorization: Bearer t\r\n\r\n{}";
        let request = read_request(raw, 16, &|_| None).expect("valid").expect("a request");
        assert_eq!((request.method.as_str(), request.path()), ("POST", "/sessions"));
        assert_eq!(request.header("authorization"), Some("Bearer t"));
        assert_eq!(request.body, b"{}");
        assert_eq!(request.query(), [("limit".into(), "5".into()), ("status".into(), "run ning".into())]);
    }

    #[test]
    fn refuses_what_it_cannot_read_with_the_status_that_says_why() {
        let status = |raw: &[u8]| read_request(raw, 4, &|_| None).map(|_| 200).unwrap_or_else(|e| e.status);
        assert!(matches!(read_request(b"", 4, &|_| None), Ok(None)));
        assert_eq!(status(b"GARBAGE\r\n\r\n"), 400);
        assert_eq!(status(b"POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nab"), 400);
        assert_eq!(status(b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nabcde"), 413);
        assert_eq!(status(b"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n"), 400);
        assert_eq!(status(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"), 411);
        assert_eq!(status(b"GET / HTTP/1.1\r\nno colon\r\n\r\n"), 400);
        let huge = [b"GET / HTTP/1.1\r\nX: ".as_slice(), &[b'a'; 70_000]].concat();
        assert_eq!(status(&huge), 431);
    }

    #[test]
    fn percent_decoding_takes_escapes_and_refuses_broken_ones() {
        assert_eq!(percent_decode("r_1%2Fagent_1").as_deref(), Some("r_1/agent_1"));
        assert_eq!(percent_decode("caf%C3%A9").as_deref(), Some("café"));
        assert_eq!(percent_decode("%zz"), None);
        assert_eq!(percent_decode("%4"), None);
        assert_eq!(percent_decode("%FF"), None);
    }

    #[test]
    fn a_response_has_its_length_and_closes_the_connection() {
        let mut out = Vec::new();
        respond(&mut out, 404, &[("content-type", "application/json")], b"{}", false).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 2\r\n"), "{text}");
        assert!(text.ends_with("connection: close\r\n\r\n{}"), "{text}");
    }
}
