//! `mock-llm --script FILE [--port N]`: serves a script (see the `openagent-tests` crate docs) on
//! 127.0.0.1 until killed, for tests outside Rust (the browser tests); `GET /mock/requests` lists the
//! requests it got, as `[{method, path, body}]`. It prints
//! `listening on http://127.0.0.1:PORT` once it accepts connections.

use std::io::Write;
use std::process::ExitCode;

use openagent_tests::{MockServer, Script};

const USAGE: &str = "usage: mock-llm --script FILE [--port N]";

fn main() -> ExitCode {
    match run() {
        Ok(never) => match never {},
        Err(message) => {
            eprintln!("mock-llm: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<std::convert::Infallible, String> {
    let (mut script, mut port) = (None, 0);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value; {USAGE}"));
        match arg.as_str() {
            "--script" => script = Some(value()?),
            "--port" => port = value()?.parse().map_err(|_| format!("--port takes a number from 0 to 65535; {USAGE}"))?,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}; {USAGE}")),
        }
    }
    let script = Script::from_file(script.ok_or(USAGE)?).map_err(|e| e.to_string())?;
    let server = MockServer::start_on(script, port).map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let mut stdout = std::io::stdout();
    // A test harness reads this line to learn the port, so it must not sit in a buffer.
    let _ = writeln!(stdout, "listening on {}", server.base_url()).and_then(|()| stdout.flush());
    loop {
        std::thread::park();
    }
}
