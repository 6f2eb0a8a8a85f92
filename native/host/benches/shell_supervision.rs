//! What supervising a command costs: `true` run through `LocalEnvironment::exec_command`, from
//! the call to its result (starting it, which for this line is exec'ing `true` without bash,
//! watching it, collecting its output and making sure nothing it started is left), in a PID
//! namespace of its own where the kernel allows it and with the /proc scan it falls back to,
//! beside spawning and reaping `/bin/true` directly, the floor any process start pays on this
//! machine, and `/bin/bash -c true`, the floor a line with shell syntax pays (goal: under 1.5 ms).
//!
//! `cargo bench -p openagent-host --bench shell_supervision`

use std::process::Command;
use std::time::{Duration, Instant};

use openagent_core::env::{ExecOptions, ExecutionEnvironment};
use openagent_host::{LocalEnvironment, NativeRuntime, Supervision};

const RUNS: usize = 200;

fn main() {
    let dir = std::env::temp_dir().join(format!("openagent-shell-supervision-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let runtime = NativeRuntime::new();
    let options = ExecOptions { timeout_ms: 10_000, ..ExecOptions::default() };
    let mut kinds = vec![Supervision::Scan];
    if Supervision::detect() == Supervision::Namespace {
        kinds.insert(0, Supervision::Namespace);
    }
    let envs: Vec<_> =
        kinds.iter().map(|&kind| LocalEnvironment::new(&dir).expect("the environment").with_supervision(kind)).collect();
    let mut supervised: Vec<_> = kinds.iter().map(|&kind| (kind, Vec::with_capacity(RUNS))).collect();
    let (mut bare, mut shell) = (Vec::with_capacity(RUNS), Vec::with_capacity(RUNS));
    // Round by round, each kind once, so that a machine whose speed drifts (a virtual machine's
    // neighbours) slows every figure alike and the floors stay comparable.
    for _ in 0..RUNS {
        for (env, (_, samples)) in envs.iter().zip(&mut supervised) {
            let started = Instant::now();
            let result = runtime.block_on(env.exec_command("true", &options)).expect("true runs");
            samples.push(started.elapsed());
            assert_eq!(result.exit_code, 0);
        }
        let started = Instant::now();
        Command::new("/bin/true").status().expect("/bin/true runs");
        bare.push(started.elapsed());
        // What the shell alone costs: a line with shell syntax goes to `/bin/bash -c`.
        let started = Instant::now();
        Command::new("/bin/bash").args(["-c", "true"]).status().expect("/bin/bash runs");
        shell.push(started.elapsed());
    }
    let _ = std::fs::remove_dir_all(&dir);

    println!("shell_supervision: `true` through LocalEnvironment, spawn to result ({RUNS} runs)");
    for (kind, samples) in &mut supervised {
        print_figures(&format!("exec_command, {kind:?}"), samples);
    }
    print_figures("spawn + reap /bin/true", &mut bare);
    print_figures("spawn + reap bash -c true", &mut shell);
    let (kind, samples) = &supervised[0];
    let median = samples[samples.len() / 2].as_secs_f64() * 1000.0;
    println!("goal: `true` through exec_command ({kind:?}) under 1.5 ms: {}", if median < 1.5 { "met" } else { "NOT met" });
}

fn print_figures(what: &str, samples: &mut [Duration]) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let pick = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    println!("  {what:<26} median {:.2} ms  p90 {:.2} ms  min {:.2} ms", ms(pick(0.5)), ms(pick(0.9)), ms(samples[0]));
}
