//! Just enough HTTP/1.1 for a test server: read one request (head and `Content-Length` body),
//! write a response with a known length or chunked, always with CORS headers and `Connection: close`.

use std::io::{self, BufRead, Read, Write};

/// Headers this large mean a broken client, not a real request.
const MAX_HEAD: u64 = 64 * 1024;
const MAX_BODY: usize = 64 * 1024 * 1024;

/// Every response carries these, so a browser page on any origin can call the mock directly.
const CORS: [(&str, &str); 3] = [
    ("access-control-allow-origin", "*"),
    // Browsers hide other response headers from scripts unless they are listed here.
    ("access-control-expose-headers", "retry-after, request-id, x-request-id"),
    ("access-control-allow-methods", "GET, POST, OPTIONS"),
];

/// What a preflight (`OPTIONS`) answer adds: the request headers the four APIs need.
pub(crate) const PREFLIGHT: [(&str, &str); 2] = [
    (
        "access-control-allow-headers",
        "authorization, x-api-key, anthropic-version, anthropic-beta, anthropic-dangerous-direct-browser-access, \
         x-goog-api-key, content-type",
    ),
    ("access-control-max-age", "600"),
];

#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub method: String,
    /// Path and query, as sent.
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Reads one request; `Ok(None)` when the peer closed without sending one.
pub(crate) fn read_request(reader: &mut impl BufRead) -> Result<Option<Request>, String> {
    let mut head = reader.take(MAX_HEAD);
    let Some(request_line) = read_line(&mut head)? else { return Ok(None) };
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target), Some(_version)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(format!("malformed request line {request_line:?}"));
    };
    let mut headers = Vec::new();
    loop {
        let line = read_line(&mut head)?.ok_or("the connection closed inside the request head")?;
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').ok_or_else(|| format!("malformed header line {line:?}"))?;
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let header = |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
    if header("transfer-encoding").is_some() {
        return Err("chunked request bodies are not supported; send Content-Length".into());
    }
    let length = match header("content-length") {
        None => 0,
        Some(v) => v.parse::<usize>().map_err(|_| format!("bad Content-Length {v:?}"))?,
    };
    if length > MAX_BODY {
        return Err(format!("a {length}-byte body is over the mock's limit of {MAX_BODY}"));
    }
    let mut body = vec![0; length];
    head.into_inner().read_exact(&mut body).map_err(|e| format!("the request body ended early: {e}"))?;
    Ok(Some(Request { method: method.to_owned(), target: target.to_owned(), headers, body }))
}

/// One line without its line end; `None` at end of input.
fn read_line(reader: &mut impl BufRead) -> Result<Option<String>, String> {
    let mut line = Vec::new();
    let n = reader.read_until(b'\n', &mut line).map_err(|e| format!("reading the request failed: {e}"))?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        return Err("the request head is too long or was cut off".into());
    }
    let line = String::from_utf8(line).map_err(|_| "the request head is not UTF-8".to_owned())?;
    Ok(Some(line.trim_end_matches(['\r', '\n']).to_owned()))
}

/// Writes the status line and headers. `length: None` means a chunked body follows.
pub(crate) fn write_head(w: &mut impl Write, status: u16, headers: &[(&str, String)], length: Option<usize>) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    let extra = headers.iter().map(|(k, v)| (*k, v.as_str()));
    for (name, value) in CORS.into_iter().chain(extra) {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    match length {
        _ if status == 204 => {} // a 204 has no body and must not announce one
        Some(length) => head.push_str(&format!("content-length: {length}\r\n")),
        None => head.push_str("transfer-encoding: chunked\r\ncache-control: no-cache\r\n"),
    }
    head.push_str("connection: close\r\n\r\n");
    w.write_all(head.as_bytes())?;
    w.flush()
}

/// Sends one chunk of a chunked body at once (a stream's event must not wait in a buffer).
pub(crate) fn write_chunk(w: &mut impl Write, data: &[u8]) -> io::Result<()> {
    if data.is_empty() {
        return Ok(()); // an empty chunk would end the body
    }
    write!(w, "{:x}\r\n", data.len())?;
    w.write_all(data)?;
    w.write_all(b"\r\n")?;
    w.flush()
}

pub(crate) fn end_chunks(w: &mut impl Write) -> io::Result<()> {
    w.write_all(b"0\r\n\r\n")?;
    w.flush()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_request_with_a_body() {
        let raw = b"POST /v1/messages?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nX-Api-Key: k\r\n\r\n{}";
        let request = read_request(&mut &raw[..]).expect("valid").expect("a request");
        assert_eq!((request.method.as_str(), request.target.as_str()), ("POST", "/v1/messages?x=1"));
        assert_eq!(request.headers[2], ("X-Api-Key".to_owned(), "k".to_owned()));
        assert_eq!(request.body, b"{}");
    }

    #[test]
    fn rejects_what_it_cannot_read() {
        let read = |raw: &[u8]| read_request(&mut &raw[..]);
        assert!(matches!(read(b""), Ok(None)));
        assert!(read(b"GARBAGE\r\n\r\n").is_err());
        assert!(read(b"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nshort").is_err());
        assert!(read(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").is_err());
    }
}
