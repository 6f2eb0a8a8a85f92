//! `LocalEnvironment::grep` beside ripgrep (`rg`) on the same large tree, with the same matches:
//! the native host's goal is to stay within 1.2 times ripgrep's time.
//!
//! The tree is generated afresh in the temp dir from a fixed seed: ~30k source-like files
//! (~120 MB) with `.gitignore`d directories and files (`target/`, `node_modules/`, `*.log`),
//! hidden files, and binary files (a NUL byte up front) that hold matches neither tool may
//! report. Each search runs through the `ExecutionEnvironment` trait, as the agent's grep tool
//! calls it, with no result limit; `rg` runs with the options that mean the same
//! (`--hidden --no-require-git`, line numbers). Before any timing, both answers are compared
//! line for line (`path:line:text`); a difference fails the benchmark. Timings are warm (the
//! page cache holds the tree after the first run), alternating, best and median of several.
//!
//! `cargo bench -p openagent-host --bench grep_vs_rg`, or `scripts/bench`. Without `rg` it
//! prints the native figures only and says how to install it (Debian: `apt-get install ripgrep`).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use futures::executor::block_on;
use openagent_core::env::{ExecutionEnvironment, GrepOptions};
use openagent_host::LocalEnvironment;

const RUNS: usize = 5;
const PACKAGES: usize = 32;
const MODULES: usize = 24;
const FILES_PER_MODULE: usize = 40;

/// A search both tools run: a regex, case sensitivity and an optional glob filter.
struct Search {
    label: &'static str,
    pattern: &'static str,
    case_insensitive: bool,
    glob: Option<&'static str>,
}

const SEARCHES: [Search; 4] = [
    Search { label: "regex, rare", pattern: r"needle_[0-9]+", case_insensitive: false, glob: None },
    Search { label: "word, -i", pattern: "todo", case_insensitive: true, glob: None },
    Search { label: "regex, *.rs", pattern: r"struct [A-Z][a-z]+Config", case_insensitive: false, glob: Some("*.rs") },
    Search { label: "word, common", pattern: r"\bparse_error\b", case_insensitive: false, glob: None },
];

/// xorshift64: the same tree on every machine, without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: [&str; 24] = [
    "let",
    "self",
    "return",
    "value",
    "config",
    "parse",
    "error",
    "result",
    "match",
    "async",
    "await",
    "impl",
    "handler",
    "request",
    "response",
    "buffer",
    "index",
    "count",
    "parse_error",
    "Some(x)",
    "None",
    "{",
    "}",
    "=>",
];

/// About `bytes` of source-like text: indented lines of words, with the searched-for tokens
/// sprinkled in at fixed rates.
fn text(rng: &mut Rng, bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 120);
    while out.len() < bytes {
        out.push_str(&"    "[..rng.below(3) * 2]);
        for _ in 0..3 + rng.below(8) {
            match rng.below(1000) {
                0..=1 => write!(out, "needle_{} ", rng.below(10_000)).unwrap(),
                2..=3 => out.push_str(["TODO: ", "todo ", "ToDo "][rng.below(3)]),
                4 => out.push_str("struct ParserConfig "),
                _ => {
                    out.push_str(WORDS[rng.below(WORDS.len())]);
                    out.push(' ');
                }
            }
        }
        out.pop();
        out.push('\n');
    }
    out
}

fn put(path: &Path, content: &[u8]) {
    fs::create_dir_all(path.parent().expect("a file has a parent")).expect("create the bench tree");
    fs::write(path, content).expect("write the bench tree");
}

/// What the tree holds, for the report.
#[derive(Default)]
struct TreeStats {
    searched_files: usize,
    searched_bytes: usize,
    skipped_files: usize,
}

fn build_tree(root: &Path) -> TreeStats {
    let mut rng = Rng(0x5eed_0f0a_9ee7);
    let mut stats = TreeStats::default();
    put(&root.join(".gitignore"), b"target/\nnode_modules/\n*.log\n");
    let extensions = ["rs", "py", "ts", "go", "md", "txt"];
    for package in 0..PACKAGES {
        let dir = root.join(format!("pkg{package:02}"));
        for module in 0..MODULES {
            for file in 0..FILES_PER_MODULE {
                let size = 1_000 + rng.below(6_000);
                let content = text(&mut rng, size);
                let mut name = format!("mod{module:02}/file{file:02}.{}", extensions[(file + module) % extensions.len()]);
                if file % 97 == 0 {
                    // Binary: a NUL byte before the text, so that no match in it may be reported.
                    name = format!("mod{module:02}/blob{file:02}.bin");
                    put(&dir.join(&name), &[b"\x7fELF\0\0".as_slice(), content.as_bytes()].concat());
                    stats.skipped_files += 1;
                    continue;
                }
                put(&dir.join(name), content.as_bytes());
                stats.searched_files += 1;
                stats.searched_bytes += content.len();
            }
            put(&dir.join(format!("mod{module:02}/run.log")), text(&mut rng, 4_000).as_bytes());
            stats.skipped_files += 1;
        }
        for dep in 0..20 {
            put(&dir.join(format!("node_modules/dep{dep}/index.js")), text(&mut rng, 4_000).as_bytes());
            stats.skipped_files += 1;
        }
        put(&dir.join(".config/settings.toml"), text(&mut rng, 2_000).as_bytes());
        stats.searched_files += 1;
    }
    for file in 0..2_000 {
        put(&root.join(format!("target/debug/gen{file:04}.rs")), text(&mut rng, 4_000).as_bytes());
        stats.skipped_files += 1;
    }
    stats
}

fn native(env: &LocalEnvironment, search: &Search) -> String {
    let options = GrepOptions {
        glob_filter: search.glob.map(Into::into),
        case_insensitive: search.case_insensitive,
        max_results: usize::MAX,
    };
    block_on(env.grep(search.pattern, ".", &options)).expect("native grep")
}

/// `rg` with the options that mean what `LocalEnvironment::grep` does; `None` when not installed.
fn ripgrep(root: &Path, search: &Search) -> Option<String> {
    let mut rg = Command::new("rg");
    rg.args(["--no-config", "--hidden", "--no-require-git", "--line-number", "--with-filename", "--no-heading"]).args([
        "--color",
        "never",
        "--no-messages",
        "--glob",
        "!.git",
    ]);
    if search.case_insensitive {
        rg.arg("--ignore-case");
    }
    if let Some(glob) = search.glob {
        rg.args(["--glob", glob]);
    }
    rg.args(["--regexp", search.pattern, "."]).current_dir(root).stdin(Stdio::null());
    let output = rg.output().ok()?;
    // 1 means no match, which is still an answer.
    assert!(output.status.code().is_some_and(|code| code <= 1), "rg failed: {}", String::from_utf8_lossy(&output.stderr));
    Some(String::from_utf8(output.stdout).expect("rg printed UTF-8"))
}

/// The `path:line:text` lines of an answer, `./` dropped from rg's paths.
fn matches(answer: &str) -> BTreeSet<&str> {
    answer.lines().map(|line| line.strip_prefix("./").unwrap_or(line)).collect()
}

fn check_same(search: &Search, ours: &str, theirs: &str) -> usize {
    // Counted as well as compared as sets, so that a line reported twice is caught too.
    let counts = (ours.lines().count(), theirs.lines().count());
    let (ours, theirs) = (matches(ours), matches(theirs));
    if ours != theirs || counts.0 != counts.1 {
        let only_ours: Vec<_> = ours.difference(&theirs).take(5).collect();
        let only_rg: Vec<_> = theirs.difference(&ours).take(5).collect();
        // A panic, not an exit, so that the tree is removed on the way out.
        panic!(
            "grep_vs_rg: {}: the answers differ ({} lines native, {} rg)\n  only native: {only_ours:#?}\n  only rg: {only_rg:#?}",
            search.label, counts.0, counts.1
        );
    }
    ours.len()
}

/// Wall-clock milliseconds of each run, and the CPU time of them all.
#[derive(Default)]
struct Runs {
    wall_ms: Vec<f64>,
    cpu_ms: f64,
}

impl Runs {
    /// Times `f`, charging it the CPU time `who` (this process, or its waited-for children) spent.
    fn time(&mut self, who: libc::c_int, f: impl FnOnce()) {
        let (start, cpu) = (Instant::now(), cpu_ms(who));
        f();
        self.wall_ms.push(start.elapsed().as_secs_f64() * 1000.0);
        self.cpu_ms += cpu_ms(who) - cpu;
    }

    /// The best and the median wall-clock time, and the mean CPU time.
    fn figures(mut self) -> (f64, f64, f64) {
        self.wall_ms.sort_by(f64::total_cmp);
        (self.wall_ms[0], self.wall_ms[self.wall_ms.len() / 2], self.cpu_ms / self.wall_ms.len() as f64)
    }
}

/// User and system time so far, all threads, of `who`: `RUSAGE_SELF` or `RUSAGE_CHILDREN`.
fn cpu_ms(who: libc::c_int) -> f64 {
    // SAFETY: getrusage only fills the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(who, &mut usage) };
    let ms = |time: libc::timeval| time.tv_sec as f64 * 1000.0 + time.tv_usec as f64 / 1000.0;
    ms(usage.ru_utime) + ms(usage.ru_stime)
}

/// Removes the tree however the benchmark ends.
struct TempTree(PathBuf);

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn main() {
    let tree = TempTree(std::env::temp_dir().join(format!("openagent-grep-bench-{}", std::process::id())));
    let started = Instant::now();
    let stats = build_tree(&tree.0);
    println!(
        "grep_vs_rg: tree of {} searched files ({} MB) and {} ignored or binary ones, built in {:.1} s",
        stats.searched_files,
        stats.searched_bytes >> 20,
        stats.skipped_files,
        started.elapsed().as_secs_f64()
    );
    println!(
        "grep_vs_rg: times are the best / the median of {RUNS} runs, wall clock; cpu is the mean CPU time of a run \
         (user and system, every thread)"
    );
    let env = LocalEnvironment::new(&tree.0).expect("the bench tree is a directory");
    let has_rg = ripgrep(&tree.0, &SEARCHES[0]).is_some();
    if !has_rg {
        println!("grep_vs_rg: rg not found, so native figures only; install ripgrep (Debian: apt-get install ripgrep)");
    }
    for search in &SEARCHES {
        // The first runs warm the page cache and give the answers to compare.
        let ours = native(&env, search);
        let found = match has_rg.then(|| ripgrep(&tree.0, search)).flatten() {
            Some(theirs) => check_same(search, &ours, &theirs),
            None => ours.lines().count(),
        };
        let (mut ours, mut theirs) = (Runs::default(), Runs::default());
        for _ in 0..RUNS {
            ours.time(libc::RUSAGE_SELF, || drop(native(&env, search)));
            if has_rg {
                theirs.time(libc::RUSAGE_CHILDREN, || drop(ripgrep(&tree.0, search)));
            }
        }
        let (best, median, cpu) = ours.figures();
        let mut line = format!(
            "grep_vs_rg: {:<13} {found:>6} matches  native {best:>6.1} / {median:>6.1} ms (cpu {cpu:>4.0})",
            search.label
        );
        if has_rg {
            let (rg_best, rg_median, rg_cpu) = theirs.figures();
            let ratios = (best / rg_best, median / rg_median);
            write!(
                line,
                "  rg {rg_best:>6.1} / {rg_median:>6.1} ms (cpu {rg_cpu:>4.0})  ratio {:.2} / {:.2}",
                ratios.0, ratios.1
            )
            .unwrap();
        }
        println!("{line}");
    }
}
