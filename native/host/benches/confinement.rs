//! What confining a command costs: `true` run through `LocalEnvironment::exec_command`, from the
//! call to its result, in full access (its own PID namespace, nothing more) beside read-only and
//! workspace-write with the network off, on and to an allow-list (the same namespace, plus the
//! mounts, Landlock, seccomp and the dropped capabilities; the allow-list's proxy is not used by
//! `true`). The confinement is prepared once per environment and
//! policy, as a session does; the first command of each mode, which prepares it, is left out,
//! and the modes take turns, run by run.
//! The target: under 1 ms more per command, or under 1.3 times full access.
//!
//! `cargo bench -p openagent-host --bench confinement`

use std::time::{Duration, Instant};

use openagent_core::env::{ExecOptions, ExecutionEnvironment};
use openagent_core::sandbox::{Network, SandboxMode, SandboxPolicy};
use openagent_host::local_env::check_sandbox;
use openagent_host::{LocalEnvironment, NativeRuntime, Supervision};

const RUNS: usize = 300;

fn main() {
    let dir = std::env::temp_dir().join(format!("openagent-confinement-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let write = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
    if Supervision::detect() != Supervision::Namespace || check_sandbox(&write, &dir).is_err() {
        println!("confinement: skipped, this machine cannot confine commands ({:?})", check_sandbox(&write, &dir).err());
        return;
    }
    let modes = [
        ("full-access", SandboxPolicy::full_access()),
        ("read-only", SandboxPolicy::new(SandboxMode::ReadOnly)),
        ("workspace-write, network off", write.clone()),
        ("workspace-write, network on", SandboxPolicy { network: Network::On, ..write.clone() }),
        ("workspace-write, allow-list", SandboxPolicy { network: Network::Hosts(vec!["crates.io".into()]), ..write }),
    ];
    let runtime = NativeRuntime::new();
    let runs: Vec<(LocalEnvironment, ExecOptions)> = modes
        .iter()
        .map(|(_, policy)| {
            let env = LocalEnvironment::new(&dir).expect("the environment");
            let options = ExecOptions { timeout_ms: 10_000, sandbox: Some(policy.clone()), ..ExecOptions::default() };
            runtime.block_on(env.exec_command("true", &options)).expect("true runs");
            (env, options)
        })
        .collect();
    // Round after round through the modes, so that the machine's drift falls on all alike.
    let mut samples = vec![Vec::with_capacity(RUNS); modes.len()];
    for _ in 0..RUNS {
        for ((env, options), samples) in runs.iter().zip(&mut samples) {
            let started = Instant::now();
            let result = runtime.block_on(env.exec_command("true", options)).expect("true runs");
            samples.push(started.elapsed());
            assert_eq!(result.exit_code, 0, "{result:?}");
        }
    }
    let figures: Vec<(&str, Vec<Duration>)> = modes
        .iter()
        .zip(samples)
        .map(|((name, _), mut samples)| {
            samples.sort();
            (*name, samples)
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let pick = |samples: &[Duration], q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    let base = pick(&figures[0].1, 0.5);
    println!("confinement: `true` through LocalEnvironment, spawn to result ({RUNS} runs per mode)");
    for (name, samples) in &figures {
        let median = pick(samples, 0.5);
        println!(
            "  {name:<30} median {:.2} ms  p90 {:.2} ms  {:.2}x full-access ({:+.2} ms)",
            ms(median),
            ms(pick(samples, 0.9)),
            median.as_secs_f64() / base.as_secs_f64(),
            ms(median) - ms(base)
        );
    }
}
