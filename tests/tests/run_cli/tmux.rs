//! `openagent` in a real terminal emulator: tmux runs it in a detached pane of a set size, keys
//! are typed with `send-keys` and the screen is read back with `capture-pane`, as a person would
//! see it. Each test has a tmux server of its own, killed when it is dropped.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use openagent_tests::cli::DEADLINE;

pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Whether tmux is here; CI installs it, so there a missing tmux fails the test.
    pub fn available(test: &str) -> bool {
        let found = Command::new("tmux").arg("-V").output().is_ok_and(|out| out.status.success());
        if !found {
            assert!(std::env::var_os("CI").is_none(), "tmux is missing: scripts/test-all installs it");
            println!("skipped {test}: tmux is not installed");
        }
        found
    }

    /// Starts `command` (with its environment, which must be cleared, and its directory) in a
    /// pane of `columns` × `rows`, with a terminal type that has colours; when it ends, `after`
    /// runs in the same terminal (to see the state it left the terminal in).
    pub fn start(command: &Command, columns: u16, rows: u16, after: &str) -> Self {
        Self::start_after("true", command, columns, rows, after)
    }

    /// [`Tmux::start`], with the shell command `before` run in the terminal first (output the
    /// terminal had before `openagent` started).
    pub fn start_after(before: &str, command: &Command, columns: u16, rows: u16, after: &str) -> Self {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let socket = format!("openagent-tui-{}-{}", std::process::id(), NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst));
        let mut line = vec!["env".to_owned(), "-i".to_owned(), "TERM=xterm-256color".to_owned()];
        for (key, value) in command.get_envs() {
            if let Some(value) = value {
                line.push(quote(&format!("{}={}", key.to_string_lossy(), value.to_string_lossy())));
            }
        }
        line.push(quote(&command.get_program().to_string_lossy()));
        line.extend(command.get_args().map(|arg| quote(&arg.to_string_lossy())));
        let script = format!("{before}; {}; echo \"exit=$?\"; {after}; sleep 600", line.join(" "));
        let dir = command.get_current_dir().unwrap_or(Path::new("/"));
        let tmux = Self { socket };
        tmux.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            &columns.to_string(),
            "-y",
            &rows.to_string(),
            "-c",
            &dir.display().to_string(),
            "sh",
            "-c",
            &script,
        ]);
        tmux
    }

    pub fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().expect("tmux runs");
        assert!(out.status.success(), "tmux {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen as text, one line per row.
    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p"])
    }

    /// The scrollback and the screen, as text.
    pub fn scrollback(&self) -> String {
        self.run(&["capture-pane", "-p", "-S", "-"])
    }

    /// The screen with its colours, as escape sequences: `cat` shows it as it looked.
    pub fn screen_in_colour(&self) -> String {
        self.run(&["capture-pane", "-p", "-e"])
    }

    /// Waits until the screen shows `text`; the screen then.
    pub fn wait_for(&self, text: &str) -> String {
        self.wait_until(&format!("the screen shows {text:?}"), |screen| screen.contains(text))
    }

    pub fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            assert!(started.elapsed() < DEADLINE / 2, "never: {what}. The screen:\n{screen}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Types `text` as it is (no key names).
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-l", "--", text]);
    }

    /// Types `text` and presses Enter, as a person sends a line.
    pub fn send_line(&self, text: &str) {
        self.type_text(text);
        self.press(&["Enter"]);
    }

    /// Pastes `text` as a terminal does, in bracketed-paste markers.
    pub fn paste(&self, text: &str) {
        self.run(&["set-buffer", "--", text]);
        self.run(&["paste-buffer", "-p", "-d"]);
    }

    /// Presses keys by tmux's names: `Enter`, `C-c`, `M-Enter`, `Up`, `Tab`.
    pub fn press(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend(keys);
        self.run(&args);
    }

    pub fn resize(&self, columns: u16, rows: u16) {
        self.run(&["resize-window", "-x", &columns.to_string(), "-y", &rows.to_string()]);
    }

    /// Keeps the screen beside the tests as `screens/NAME.txt` when `UPDATE_SCREENS` is set.
    pub fn keep(&self, name: &str) {
        if std::env::var_os("UPDATE_SCREENS").is_some() {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/run_cli/screens").join(format!("{name}.txt"));
            std::fs::write(path, self.screen_in_colour()).expect("the screens directory is writable");
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-L").arg(&self.socket).arg("kill-server").output();
    }
}

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}
