//! Agent configs: what loads, and for each way a file can be wrong, the problem it gets (its
//! field, its line, what to change).

mod loading;
mod problems;

use super::*;

/// The smallest config that loads, for the directory `a`.
const MINIMAL: &str = "schema: openagent.agent/1\nid: a\nname: A\nprovider: openai-compatible\nmodel: m\n";

/// `MINIMAL` with `extra` appended.
fn with(extra: &str) -> String {
    format!("{MINIMAL}{extra}")
}

/// The one problem `text` has.
fn problem(text: &str) -> Problem {
    let problems = parse(text, "a").expect_err("the config is refused");
    assert_eq!(problems.len(), 1, "{problems:?}");
    problems.into_iter().next().expect("one problem")
}

/// `(field, line)` and the message, for asserting both at once.
fn at(problem: &Problem) -> (&str, Option<usize>) {
    (problem.field.as_str(), problem.line)
}
