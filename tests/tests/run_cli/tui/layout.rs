//! The screen at sizes it must survive: narrower than any input box, one row tall, and resized
//! with the terminal's scrollback holding what was there before the program started.

use openagent_tests::cli::Sandbox;
use openagent_tests::over_http::serve;
use openagent_tests::{Reply, Step};

use super::{ready, rules};
use crate::tmux::Tmux;
use crate::ANSWER;

/// At 10 columns nothing wraps by itself and no old input box stays behind; at one row the
/// input shows; at one column the session still takes input; back at full size all is laid out
/// again.
#[test]
fn a_terminal_of_any_size_is_laid_out_at_its_real_width() {
    if !Tmux::available("a_terminal_of_any_size_is_laid_out_at_its_real_width") {
        return;
    }
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text(ANSWER)), Step::reply(Reply::text("the second answer"))]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, "true");
    ready(&tmux);
    tmux.resize(10, 12);
    tmux.send_line("say it all");
    // A rule wider than the terminal would wrap onto a second row of rule, and the rows would
    // no longer be counted right: old input boxes would stay behind.
    tmux.wait_until("the run's end at 10 columns, under one input box", |screen| {
        screen.contains("calls ·") && rules(screen) == 2
    });
    tmux.type_text("abc");
    let screen = tmux.wait_for("› abc");
    assert_eq!(rules(&screen), 2, "still one input box:\n{screen}");
    tmux.keep("narrow");

    tmux.resize(30, 1);
    tmux.type_text("d");
    let screen = tmux.wait_for("› abcd");
    assert_eq!(screen.lines().count(), 1, "{screen:?}");
    tmux.resize(1, 6);
    tmux.type_text("e");
    let screen = tmux.wait_until("the input at one column", |screen| screen.lines().any(|line| line == "e"));
    assert!(screen.lines().all(|line| line.chars().count() <= 1), "{screen}");
    tmux.press(&["C-u"]);
    tmux.send_line("next");
    openagent_tests::cli::eventually("the task reaches the model", || server.requests().len() == 2);
    tmux.resize(100, 30);
    tmux.wait_until("all laid out again at 100 columns, under one input box", |screen| {
        rules(screen) == 2 && screen.contains("› next\nthe second answer") && screen.contains("The notes say hello, twice.")
    });
}

/// What the terminal showed before the program started stays in its scrollback through
/// resizes and `/clear`: the screen never clears the scrollback.
#[test]
fn resizing_and_clearing_keep_the_terminal_scrollback() {
    if !Tmux::available("resizing_and_clearing_keep_the_terminal_scrollback") {
        return;
    }
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text(ANSWER))]);
    let tmux = Tmux::start_after("seq 1 50", &sandbox.openagent(Some(&server), &[]), 100, 20, "true");
    ready(&tmux);
    tmux.send_line("say hi");
    tmux.wait_for("✓ completed");
    tmux.resize(60, 20);
    // Every row fits the new width (a row may fill it: the working directory's, by its length), and
    // the rules are drawn again.
    let fits = |screen: &str| screen.lines().all(|line| line.chars().count() <= 60);
    tmux.wait_until("laid out at 60 columns", |screen| fits(screen) && rules(screen) == 2);
    tmux.resize(100, 25);
    tmux.wait_until("laid out at 100 columns again", |screen| rules(screen) == 2 && screen.contains("› say hi"));
    tmux.send_line("/clear");
    tmux.wait_until("the screen is cleared", |screen| !screen.contains("› say hi"));
    let scrollback = tmux.scrollback();
    let numbers: Vec<&str> = scrollback.lines().filter(|line| line.parse::<u32>().is_ok()).collect();
    let expected: Vec<String> = (1..=50).map(|n| n.to_string()).collect();
    assert_eq!(numbers, expected, "the 50 lines from before are kept, once each:\n{scrollback}");
    assert!(scrollback.contains(ANSWER), "the cleared conversation went into the scrollback:\n{scrollback}");
}
