//! The input in tmux: a multi-line task and a large paste, as sent and as echoed; inputs
//! recalled in the next session; Tab completion of `@paths`.

use openagent_tests::cli::Sandbox;
use openagent_tests::over_http::serve;
use openagent_tests::{Reply, Step};

use super::ready;
use crate::tmux::Tmux;

/// A task of several lines is echoed with its line breaks; a large paste is one input sent
/// whole but echoed collapsed; earlier inputs come back with ↑ in the next session (a paste too
/// large for the history file only in its own).
#[test]
fn a_paste_is_one_input_and_inputs_are_recalled_in_the_next_session() {
    if !Tmux::available("a_paste_is_one_input") {
        return;
    }
    let sandbox = Sandbox::new();
    let server =
        serve([Step::reply(Reply::text("first")), Step::reply(Reply::text("second")), Step::reply(Reply::text("third"))]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, "true");
    ready(&tmux);
    tmux.type_text("fix these two things:");
    tmux.press(&["M-Enter"]);
    tmux.send_line("the typo");
    let screen = tmux.wait_for("✓ completed");
    assert!(screen.contains("› fix these two things:\n  the typo\n"), "echoed on its two lines:\n{screen}");
    assert!(!screen.contains('␊'), "{screen}");

    let pasted: String = (1..=300).map(|n| format!("line {n} of the paste\n")).collect();
    tmux.paste(&pasted);
    tmux.wait_for("line 300 of the paste");
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("second");
    let body = server.requests()[1].body.to_string();
    assert!(body.contains("line 1 of the paste\\nline 2 of the paste") && body.contains("line 300 of the paste"), "{body:.300}");
    assert!(screen.contains("› line 1 of the paste\n  line 2 of the paste\n"), "its first lines:\n{screen}");
    assert!(screen.contains(&format!("[… pasted 300 lines, {} characters]", pasted.chars().count())), "{screen}");
    assert!(!screen.contains("line 6 of the paste"), "the rest is not echoed:\n{screen}");
    tmux.keep("paste");
    tmux.press(&["Up"]);
    tmux.wait_for("line 300 of the paste");
    tmux.press(&["C-c"]);
    tmux.send_line("a short one");
    tmux.wait_for("third");
    tmux.press(&["C-d"]);
    tmux.wait_for("exit=0");

    let again = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, "true");
    ready(&again);
    again.press(&["Up"]);
    again.wait_for("› a short one");
    again.press(&["Up"]);
    again.wait_for("› fix these two things:");
    let screen = again.wait_for("  the typo");
    assert!(!screen.contains("of the paste"), "the paste was too large to write down:\n{screen}");
}

/// Tab on `@` in a directory of hundreds of files fills in only what all of them share and says
/// how many it does not list; a path with a space is completed in quotes, as a mention reads it.
#[test]
fn at_completion_in_a_large_directory() {
    if !Tmux::available("at_completion_in_a_large_directory") {
        return;
    }
    let sandbox = Sandbox::new();
    for n in 1..=300 {
        sandbox.write(&format!("file_{n}.txt"), "");
    }
    std::fs::create_dir_all(sandbox.cwd().join("src")).expect("a directory");
    std::fs::create_dir_all(sandbox.cwd().join("my shots")).expect("a directory");
    sandbox.write("my shots/the plan.md", "");
    let server = serve([]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, "true");
    ready(&tmux);
    tmux.type_text("look at @");
    tmux.press(&["Tab"]);
    let screen = tmux.wait_for("more");
    assert!(screen.contains("› look at @\n"), "nothing is common to all:\n{screen}");
    assert!(screen.contains("@file_1.txt  @file_10.txt"), "{screen}");
    tmux.type_text("f");
    tmux.press(&["Tab"]);
    let screen = tmux.wait_for("› look at @file_\n");
    assert!(screen.contains("… "), "the list says there are more:\n{screen}");
    tmux.press(&["C-u"]);
    tmux.type_text("read @my");
    tmux.press(&["Tab"]);
    tmux.wait_for("› read @\"my shots/");
    tmux.press(&["Tab"]);
    // The space after it ends the mention (tmux shows no trailing space).
    tmux.wait_for("› read @\"my shots/the plan.md\"\n");
    assert!(server.requests().is_empty());
}
