//! Time from process start to a ready prompt in the interactive screen: `openagent` is spawned
//! on a pseudo-terminal of 100 × 30 and timed until the screen's first draw (its hint line)
//! arrives; then Ctrl-D quits it. Then the same with a full input history: the largest file
//! earlier versions could write (2 000 pastes of 16 KB, 32 MB), which the screen must not read
//! before its prompt. Beside them, the time to spawn and reap `/bin/true`, the floor any process
//! start pays on this machine.
//!
//! `cargo bench -p openagent-cli --bench tui_startup` (the goal is under 50 ms).

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 20;
/// What the first draw shows once the prompt is ready.
const READY: &[u8] = b"/help lists the commands";

/// The full history: entries and the size of each.
const HISTORY: (usize, usize) = (2_000, 16 * 1024);

fn main() {
    let dir = std::env::temp_dir().join(format!("openagent-tui-startup-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("home")).expect("a temp dir");
    std::fs::create_dir_all(dir.join("data")).expect("a temp dir");
    let mut ready = start_up(&dir);
    let entry = serde_json::to_string(&"x".repeat(HISTORY.1)).expect("a string serialises") + "\n";
    std::fs::write(dir.join("data/history"), entry.repeat(HISTORY.0)).expect("the history is written");
    let mut with_history = start_up(&dir);
    let floor: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            Command::new("/bin/true").status().expect("/bin/true runs");
            started.elapsed()
        })
        .collect();
    println!("interactive screen, start to ready prompt ({RUNS} runs): {}", figures(&mut ready));
    let megabytes = (HISTORY.0 * (HISTORY.1 + 3)) as f64 / 1e6;
    println!("the same with a full history ({} entries, {megabytes:.0} MB): {}", HISTORY.0, figures(&mut with_history));
    println!("spawn and reap /bin/true, the floor: {}", figures(&mut floor.clone()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The time from spawning `openagent` in `dir` to its ready prompt, [`RUNS`] times.
fn start_up(dir: &std::path::Path) -> Vec<Duration> {
    let mut ready = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let (master, slave) = pty(100, 30);
        let started = Instant::now();
        let terminal = || Stdio::from(slave.try_clone().expect("the terminal's descriptor duplicates"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_openagent"))
            .arg("--data-dir")
            .arg(dir.join("data"))
            .current_dir(dir)
            .env_clear()
            .env("HOME", dir.join("home"))
            .env("TERM", "xterm-256color")
            // A key and a server that is never asked: starting needs neither to answer.
            .env("ANTHROPIC_API_KEY", "bench")
            .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
            .stdin(terminal())
            .stdout(terminal())
            .stderr(terminal())
            .spawn()
            .expect("openagent starts");
        drop(slave);
        let mut master = master;
        let mut shown = Vec::new();
        let mut chunk = [0; 4096];
        while !shown.windows(READY.len()).any(|w| w == READY) {
            let n = master.read(&mut chunk).expect("the screen is read");
            assert!(n > 0, "openagent ended before its prompt: {}", String::from_utf8_lossy(&shown));
            shown.extend_from_slice(&chunk[..n]);
        }
        ready.push(started.elapsed());
        master.write_all(b"\x04").expect("Ctrl-D is typed");
        // Drain until the process is gone, so its writes never block.
        std::thread::spawn(move || while matches!(master.read(&mut chunk), Ok(n) if n > 0) {});
        let status = child.wait().expect("openagent ends");
        assert!(status.success(), "Ctrl-D quits cleanly: {status}");
    }
    ready
}

fn figures(times: &mut [Duration]) -> String {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    format!("min {:.1} ms, median {:.1} ms, max {:.1} ms", ms(times[0]), ms(times[times.len() / 2]), ms(times[times.len() - 1]))
}

/// A pseudo-terminal of `columns` × `rows`: its master and its slave.
fn pty(columns: u16, rows: u16) -> (File, OwnedFd) {
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize { ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: openpty writes the two descriptors it opens into the two integers, and reads `size`.
    let opened = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &size) };
    assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and nothing else owns them.
    unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}
