//! `openagent serve` and `openagent web`: start the server, print where it listens, serve until
//! a signal.

use std::process::ExitCode;

use openagent_runner::stdout::{Stdout, STDOUT_FAILED};
use openagent_serve as serve;

use crate::flags::ServeFlags;
use crate::options::data_dir;

pub fn web(port: u16) -> ExitCode {
    match serve::WebServer::start(serve::WebRoots::from_checkout(), port) {
        Ok(server) => {
            let mut out = Stdout::default();
            out.write(&format!("OpenAgent playground: {}\n", server.url()));
            if out.end(0) != 0 {
                return ExitCode::from(STDOUT_FAILED);
            }
            loop {
                std::thread::park();
            }
        }
        Err(err) => {
            eprintln!("openagent web: cannot listen on 127.0.0.1:{port}: {err} (try --port 0)");
            ExitCode::FAILURE
        }
    }
}

pub fn serve(flags: ServeFlags) -> ExitCode {
    let given = flags.token.or_else(|| std::env::var("OPENAGENT_SERVE_TOKEN").ok().filter(|t| !t.is_empty()));
    let (token, generated) = match given {
        Some(token) => (token, false),
        None => match serve::generate_token() {
            Ok(token) => (token, true),
            Err(e) => {
                eprintln!("openagent serve: cannot generate a token ({e}); give one with --token or OPENAGENT_SERVE_TOKEN");
                return ExitCode::FAILURE;
            }
        },
    };
    let options = serve::ServeOptions {
        port: flags.port,
        token: token.clone(),
        data_dir: match data_dir(flags.data_dir) {
            Ok(dir) => dir,
            Err(message) => {
                eprintln!("openagent serve: {message}");
                return ExitCode::from(2);
            }
        },
        cwd: flags.cwd,
        allowed_base_urls: flags.allow_base_url,
        env_pass: flags.env_pass,
        max_connections: flags.max_connections,
        head_within: flags.header_deadline_ms.map(std::time::Duration::from_millis),
        approval: flags.approval,
        sandbox: flags.sandbox.options(),
        session_idle: (flags.session_idle_timeout > 0).then(|| std::time::Duration::from_secs(flags.session_idle_timeout)),
    };
    match serve::Server::start(options) {
        Ok(server) => {
            let mut out = Stdout::default();
            out.write(&format!("OpenAgent API: {}\n", server.url()));
            if generated {
                out.write(&format!("token: {token}\n"));
            }
            out.write("Send \"Authorization: Bearer <token>\" with every request; GET /openapi.json describes the API.\n");
            // Without its URL and token nobody can use the server.
            if out.end(0) != 0 {
                return ExitCode::from(STDOUT_FAILED);
            }
            ExitCode::from(server.serve_until_signalled())
        }
        Err(message) => {
            eprintln!("openagent serve: {message}");
            ExitCode::FAILURE
        }
    }
}
