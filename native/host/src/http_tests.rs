use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc as std_mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use futures::executor::block_on;
use futures::StreamExt;

use super::*;

/// A one-connection HTTP server: `respond` gets the socket after the request was read, and the
/// request (head and body) is returned by the thread.
fn serve_once(respond: impl FnOnce(&mut TcpStream) + Send + 'static) -> (String, JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let url = format!("http://{}", listener.local_addr().expect("local address"));
    let handle = std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().expect("accept");
        let request = read_request(&mut socket);
        respond(&mut socket);
        request
    });
    (url, handle)
}

fn read_request(socket: &mut TcpStream) -> String {
    let mut reader = BufReader::new(socket.try_clone().expect("clone socket"));
    let mut head = String::new();
    let mut content_length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("read a request line");
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            content_length = value.trim().parse().expect("a numeric content-length");
        }
        head.push_str(&line);
        if line == "\r\n" || line.is_empty() {
            break;
        }
    }
    let mut body = vec![0; content_length];
    reader.read_exact(&mut body).expect("read the request body");
    head + &String::from_utf8_lossy(&body)
}

fn client(read_timeout_ms: u64) -> NativeHttpClient {
    NativeHttpClient::with_config(NativeHttpConfig {
        connect_timeout: Duration::from_secs(5),
        read_timeout: Duration::from_millis(read_timeout_ms),
    })
}

#[test]
fn sends_the_request_and_returns_status_headers_and_body() {
    let (url, server) = serve_once(|s| {
        s.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\nx-test: yes\r\nconnection: close\r\n\r\nhello").expect("write");
    });
    let mut request = HttpRequest::post_json(format!("{url}/v1/messages"), br#"{"model":"m"}"#.to_vec());
    request.headers.push(("x-api-key".into(), "sk-test".into()));
    let response = block_on(client(5000).send(request)).expect("a response");
    assert_eq!(response.status, 200);
    assert_eq!(response.header("X-Test"), Some("yes"));
    assert_eq!(block_on(response.bytes()).expect("the body"), b"hello");
    let seen = server.join().expect("server thread");
    assert!(seen.starts_with("POST /v1/messages HTTP/1.1\r\n"), "{seen}");
    assert!(seen.to_ascii_lowercase().contains("x-api-key: sk-test\r\n"), "{seen}");
    assert!(seen.ends_with(r#"{"model":"m"}"#), "{seen}");
}

#[test]
fn error_statuses_are_responses_not_transport_errors() {
    let (url, _server) = serve_once(|s| {
        let body = r#"{"error":{"message":"slow down"}}"#;
        let head = format!("HTTP/1.1 429 Too Many Requests\r\nretry-after: 3\r\ncontent-length: {}\r\n\r\n", body.len());
        s.write_all((head + body).as_bytes()).expect("write");
    });
    let response = block_on(client(5000).send(HttpRequest::post_json(url, b"{}".to_vec()))).expect("a response");
    assert_eq!(response.status, 429);
    assert_eq!(response.header("retry-after"), Some("3"));
    assert!(block_on(response.bytes()).expect("the body").starts_with(b"{\"error\""));
}

#[test]
fn the_body_arrives_chunk_by_chunk_before_it_ends() {
    let (go_tx, go_rx) = std_mpsc::channel::<()>();
    let (url, _server) = serve_once(move |s| {
        s.write_all(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n").expect("write");
        // The second chunk is sent only once the client has the first: proof that it streams.
        go_rx.recv_timeout(Duration::from_secs(10)).expect("the client read the first chunk");
        s.write_all(b"6\r\nsecond\r\n0\r\n\r\n").expect("write");
    });
    let mut response = block_on(client(5000).send(HttpRequest::post_json(url, vec![]))).expect("a response");
    let first = block_on(response.body.next()).expect("a chunk").expect("not an error");
    assert_eq!(first, b"first");
    go_tx.send(()).expect("server waiting");
    assert_eq!(block_on(response.bytes()).expect("the rest"), b"second");
}

#[test]
fn silence_longer_than_the_read_timeout_is_a_timeout() {
    let (done_tx, done_rx) = std_mpsc::channel::<()>();
    let (url, _server) = serve_once(move |s| {
        s.write_all(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nhi\r\n").expect("write");
        let _ = done_rx.recv_timeout(Duration::from_secs(10));
    });
    let mut response = block_on(client(200).send(HttpRequest::post_json(url, vec![]))).expect("a response");
    assert_eq!(block_on(response.body.next()).expect("a chunk").expect("data"), b"hi");
    let error = block_on(response.body.next()).expect("an item").expect_err("a timeout");
    assert_eq!(error.kind, HttpErrorKind::Timeout, "{error}");
    assert!(block_on(response.body.next()).is_none(), "the body ends after an error");
    let _ = done_tx.send(());
}

#[test]
fn no_response_head_within_the_read_timeout_is_a_timeout() {
    let (done_tx, done_rx) = std_mpsc::channel::<()>();
    let (url, _server) = serve_once(move |_| {
        let _ = done_rx.recv_timeout(Duration::from_secs(10));
    });
    let error = block_on(client(200).send(HttpRequest::post_json(url, vec![]))).err().expect("a timeout");
    assert_eq!(error.kind, HttpErrorKind::Timeout, "{error}");
    let _ = done_tx.send(());
}

#[test]
fn a_connection_cut_mid_body_is_a_body_error() {
    let (url, _server) = serve_once(|s| {
        s.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly ten b").expect("write");
    });
    let response = block_on(client(5000).send(HttpRequest::post_json(url, vec![]))).expect("a response");
    let error = block_on(response.bytes()).expect_err("a broken body");
    assert_eq!(error.kind, HttpErrorKind::Body, "{error}");
}

#[test]
fn a_refused_connection_is_a_connect_error_that_hides_the_query() {
    let port = TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("address").port();
    let url = format!("http://127.0.0.1:{port}/v1beta/models/m:generateContent?key=secret-key");
    let error = block_on(client(5000).send(HttpRequest::post_json(url, vec![]))).err().expect("refused");
    assert_eq!(error.kind, HttpErrorKind::Connect, "{error}");
    assert!(error.message.contains(&format!("http://127.0.0.1:{port}")), "{error}");
    assert!(!error.message.contains("secret") && !error.message.contains("v1beta"), "{error}");
}

#[test]
fn dropping_the_body_closes_the_connection() {
    let (url, server) = serve_once(|s| {
        s.write_all(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n").expect("write");
        // Keep streaming until the client hangs up; give up after a few seconds.
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if s.write_all(b"4\r\ndata\r\n").and_then(|()| s.flush()).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the client never closed the connection");
    });
    let mut response = block_on(client(5000).send(HttpRequest::post_json(url, vec![]))).expect("a response");
    assert!(block_on(response.body.next()).expect("a chunk").is_ok());
    drop(response);
    server.join().expect("the server saw the connection close");
}

#[test]
fn origin_keeps_scheme_and_host_only() {
    assert_eq!(origin("https://api.example.com/v1/messages?x=1"), "https://api.example.com");
    assert_eq!(origin("http://user:pw@127.0.0.1:8080"), "http://127.0.0.1:8080");
    assert_eq!(origin("http://h:1?key=k"), "http://h:1");
}

#[test]
fn a_pooled_connection_closed_by_the_server_is_replaced_transparently() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let url = format!("http://{}/v1/models", listener.local_addr().expect("local address"));
    let server = std::thread::spawn(move || {
        // First connection: answer with keep-alive; the next request on it finds the server
        // closing it for idleness, so it ends without an answer.
        let (mut first, _) = listener.accept().expect("accept");
        read_request(&mut first);
        first.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\none").expect("write");
        read_request(&mut first);
        drop(first);
        // The retry arrives on a second connection.
        let (mut second, _) = listener.accept().expect("accept the retry");
        read_request(&mut second);
        second.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\nconnection: close\r\n\r\ntwo").expect("write");
    });
    let http = client(5000);
    let get = || HttpRequest { method: Method::Get, url: url.clone(), headers: Vec::new(), body: Default::default() };
    let body = |response: HttpResponse| String::from_utf8(block_on(response.bytes()).expect("a body")).expect("UTF-8");
    assert_eq!(body(block_on(http.send(get())).expect("the first answer")), "one");
    assert_eq!(body(block_on(http.send(get())).expect("the second answer, on a fresh connection")), "two");
    server.join().expect("the server thread");
}
