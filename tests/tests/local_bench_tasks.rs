//! The local-model task set (`tests/local-bench/tasks/`, run by `local-bench`) proves its own
//! checks: each fails on the untouched files and passes once the task's reference solution has
//! run. A model's failure on the benchmark is then the model's, never a broken check.

use std::path::Path;
use std::process::Command;

use openagent_tests::local_bench::{load, tasks_dir, Task};

/// The checks run Python 3.11 (for `tomllib`) and Node.
fn interpreters() -> Result<(), String> {
    let python = Command::new("python3").args(["-c", "import sys, tomllib; print(sys.version_info >= (3, 11))"]).output();
    if !python.is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "True") {
        return Err("python3 3.11 or later".into());
    }
    if !Command::new("node").arg("--version").output().is_ok_and(|out| out.status.success()) {
        return Err("node".into());
    }
    Ok(())
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("local-bench-tasks-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// What is wrong with one task's check, if anything.
fn prove(task: &Task, dir: &Path) -> Result<(), String> {
    let answer = dir.join("answer.txt");
    std::fs::write(&answer, "").map_err(|e| e.to_string())?;
    let untouched = dir.join("untouched");
    task.seed(&untouched)?;
    if task.check(&untouched, &answer).is_ok() {
        return Err("passes with nothing done".into());
    }
    let solved = dir.join("solved");
    task.seed(&solved)?;
    task.solve(&solved, &answer)?;
    task.check(&solved, &answer).map_err(|why| format!("fails after solve.sh: {why}"))
}

#[test]
fn every_check_fails_before_and_passes_after_the_reference_solution() {
    if let Err(missing) = interpreters() {
        println!("skipped: the task checks need {missing}");
        return;
    }
    let tasks = load(&tasks_dir()).expect("the task set loads");
    assert!(tasks.len() >= 20, "the issue asks for at least 20 tasks, found {}", tasks.len());
    let failures: Vec<String> = tasks
        .iter()
        .filter_map(|task| {
            let dir = scratch(&task.name);
            let result = prove(task, &dir);
            let _ = std::fs::remove_dir_all(&dir);
            result.err().map(|why| format!("{}: {why}", task.name))
        })
        .collect();
    assert!(failures.is_empty(), "broken tasks:\n{}", failures.join("\n"));
}

#[test]
fn every_task_says_what_to_do_in_a_few_sentences() {
    for task in load(&tasks_dir()).expect("the task set loads") {
        assert!(!task.prompt.is_empty() && task.prompt.len() < 600, "{}: a prompt of {} bytes", task.name, task.prompt.len());
        assert!(std::fs::read_dir(task.dir.join("files")).expect("files/").next().is_some(), "{}: no files", task.name);
    }
}
