//! The screen's slash commands in tmux: what each says, what reaches the model, what a
//! conversation keeps across `/clear`, `/resume` and `/fork`, and commands typed during a run.

use openagent_tests::cli::{eventually, Sandbox};
use openagent_tests::over_http::serve;
use openagent_tests::{Reply, Step};
use serde_json::Value;

use super::{ready, shell};
use crate::tmux::Tmux;

/// The request's body as JSON.
fn body(request: &openagent_tests::RecordedRequest) -> &Value {
    &request.body
}

#[test]
fn help_and_unknown_commands_are_answered_here_and_never_sent_to_the_model() {
    if !Tmux::available("help_and_unknown_commands") {
        return;
    }
    let sandbox = Sandbox::new();
    let server = serve([]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 40, "true");
    ready(&tmux);
    tmux.type_text("/he");
    tmux.press(&["Tab"]);
    tmux.wait_for("› /help");
    tmux.press(&["Enter"]);
    let screen = tmux.wait_for("/resume");
    for command in ["/model", "/effort", "/clear", "/cost", "/status", "/compact", "/fork", "/approval", "/mcp", "/tools"] {
        assert!(screen.contains(command), "{command} is listed:\n{screen}");
    }
    tmux.keep("help");
    tmux.send_line("/x");
    tmux.wait_for("unknown command /x");
    // A bare `/`, or one before a space, is no command and no task either.
    for bare in ["/", "/ fix the bug"] {
        tmux.send_line(bare);
    }
    tmux.wait_until("both refused", |screen| screen.matches("✗ a command's name goes right after /").count() == 2);
    tmux.send_line("/status");
    tmux.wait_for("approval  auto-edit");
    // Without an argument, /model and /effort say what is set and how to change it.
    tmux.send_line("/model");
    tmux.wait_for("model     claude-sonnet-4-5");
    tmux.wait_for("/model NAME switches for the next input");
    tmux.send_line("/effort");
    tmux.wait_for("effort    the model's default");
    // A model of another provider is refused, saying how to use it.
    tmux.send_line("/model gpt-5");
    tmux.wait_for("✗ gpt-5 is a model of openai, and this session talks to anthropic");
    tmux.wait_for("--provider openai --model gpt-5");
    // Before any request, nothing is spent: that is not an unknown price.
    tmux.send_line("/cost");
    let screen = tmux.wait_for("cost      nothing spent yet");
    assert!(!screen.contains("no price known"), "{screen}");
    assert!(screen.contains("anthropic · claude-sonnet-4-5"), "the model stayed:\n{screen}");
    assert!(server.requests().is_empty(), "nothing reached the model");
}

/// `/compact` on a conversation long enough for it: the model writes the summary (the mock's
/// request log holds the summary request), the screen says what was compacted, and the next
/// request carries the summary instead of the turns it stands for. Then the `/resume` picker.
#[test]
fn compact_and_resume_work_from_the_screen() {
    if !Tmux::available("compact_and_resume_work_from_the_screen") {
        return;
    }
    let sandbox = Sandbox::new();
    let long_answer = format!("EARLY-ANSWER {}", "a long explanation ".repeat(400));
    let summary = "SUMMARY: the user asked two things; the first answer was long.";
    let server = serve([
        Step::reply(Reply::text("the earlier answer")),
        Step::reply(Reply::text(long_answer)),
        Step::reply(Reply::text("a short second answer")),
        Step::reply(Reply::text(summary)),
        Step::reply(Reply::text("the answer after compacting")),
        Step::reply(Reply::text("the answer after resuming")),
    ]);
    let earlier = sandbox.run(&server, "the earlier task", &[]);
    assert_eq!(earlier.code, Some(0), "{earlier:?}");

    // A window of 4000 tokens keeps the last 1000 whole; compaction only when asked.
    let args = ["--context-window", "4000", "--compact-at", "0"];
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &args), 100, 30, "true");
    ready(&tmux);
    tmux.send_line("/compact");
    tmux.wait_for("nothing to compact yet");
    tmux.send_line("explain it at length");
    tmux.wait_until("the first answer", |screen| screen.matches("✓ completed").count() == 1);
    tmux.send_line("now briefly");
    tmux.wait_for("a short second answer");
    tmux.send_line("/compact");
    let screen = tmux.wait_for("⇣ compacted: ");
    assert!(screen.contains("(2 turns summarised, 2 kept)"), "{screen}");
    assert!(!screen.contains("nothing old enough"), "{screen}");
    let requests = server.requests();
    let asked = body(&requests[3]).to_string();
    assert!(asked.contains("Summarise this conversation") && asked.contains("EARLY-ANSWER"), "the summary request: {asked:.600}");
    assert!(body(&requests[3]).get("tools").is_none_or(|tools| tools.as_array().is_some_and(Vec::is_empty)), "no tools");
    tmux.send_line("and then?");
    tmux.wait_for("the answer after compacting");
    let next = body(&server.requests()[4]).to_string();
    assert!(next.contains("SUMMARY: the user asked") && next.contains("now briefly"), "{next:.600}");
    assert!(!next.contains("EARLY-ANSWER") && !next.contains("explain it at length"), "summarised turns sent again: {next:.600}");

    tmux.send_line("/resume");
    tmux.wait_for("Resume which session?");
    tmux.keep("resume-picker");
    let screen = tmux.screen();
    assert!(screen.contains("the earlier task") && !screen.contains("› explain it at length  ("), "only others:\n{screen}");
    tmux.press(&["Enter"]);
    tmux.wait_for("resumed session");
    tmux.send_line("and now?");
    tmux.wait_for("the answer after resuming");
    let last = server.requests().last().unwrap().body.to_string();
    assert!(last.contains("the earlier task") && last.contains("the earlier answer"), "the resumed history went along: {last}");
    assert!(!last.contains("explain it at length"), "{last}");
}

/// The other commands: /model, /effort, /cost, /approval, /mcp, /clear and /fork; the model,
/// effort and approval mode chosen here stay through /fork and /clear.
#[test]
fn the_session_commands_change_what_they_say() {
    if !Tmux::available("the_session_commands_change_what_they_say") {
        return;
    }
    let sandbox = Sandbox::new();
    let server = serve([
        Step::reply(Reply::text("first answer").with_usage(1_000, 10)),
        shell("toolu_1", "touch made.txt"),
        Step::reply(Reply::text("second answer")),
        Step::reply(Reply::text("third answer")),
        Step::reply(Reply::text("fourth answer")),
    ]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 120, 40, "true");
    ready(&tmux);
    for (command, shown) in [
        ("/mcp", "no MCP servers are configured"),
        ("/effort high", "reasoning effort: high"),
        ("/model claude-haiku-4-5", "model: claude-haiku-4-5, from the next input"),
        ("/approval full-auto", "approval: full-auto"),
    ] {
        tmux.send_line(command);
        tmux.wait_for(shown);
    }
    tmux.send_line("one");
    tmux.wait_for("first answer");
    let first = server.requests()[0].body.to_string();
    assert!(first.contains("\"model\":\"claude-haiku-4-5\""), "{first:.400}");
    tmux.send_line("/cost");
    tmux.wait_for("1000 tokens");
    tmux.send_line("make a file");
    tmux.wait_for("second answer");
    assert!(sandbox.cwd().join("made.txt").exists(), "full-auto ran the command unasked");
    tmux.send_line("/fork");
    tmux.wait_for("forked from");
    tmux.send_line("in the fork");
    tmux.wait_for("third answer");
    assert!(server.requests()[3].body.to_string().contains("make a file"), "the fork has the history");
    tmux.send_line("/clear");
    tmux.wait_until("the screen is cleared", |screen| !screen.contains("third answer"));
    for (command, shown) in [("/effort", "effort    high"), ("/approval", "approval  full-auto")] {
        tmux.send_line(command);
        tmux.wait_for(shown);
    }
    tmux.send_line("fresh");
    tmux.wait_for("fourth answer");
    let requests = server.requests();
    for (index, request) in requests.iter().enumerate() {
        let thinking = &body(request)["thinking"]["type"];
        assert_eq!(thinking, "enabled", "request {index} has the effort chosen before: {}", body(request));
        assert_eq!(body(request)["model"], "claude-haiku-4-5", "request {index}");
    }
    let last = requests[4].body.to_string();
    assert!(!last.contains("make a file"), "a new conversation: {last:.400}");
    let listed = sandbox.sessions(&["list"]);
    assert_eq!(
        listed.stdout.lines().filter(|line| line.contains("interactive") || line.starts_with("r_")).count(),
        3,
        "{listed:?}"
    );
}

/// A conversation taken up with `--continue`, then `/fork`ed, and forked again: each is in the
/// store already, so `/fork` and `/status` treat it so. `/resume ID` takes up a named one.
#[test]
fn a_resumed_or_forked_conversation_forks_again() {
    if !Tmux::available("a_resumed_or_forked_conversation_forks_again") {
        return;
    }
    let sandbox = Sandbox::new();
    let server = serve([
        Step::reply(Reply::text("the other answer")),
        Step::reply(Reply::text("the earlier answer")),
        Step::reply(Reply::text("the answer in the fork")),
        Step::reply(Reply::text("the answer after /resume")),
    ]);
    let with_id = |id: &str, task: &str| {
        let run = sandbox.run_with_env(&server, &["run", task], &[("OPENAGENT_RUN_ID", id)]);
        assert_eq!(run.code, Some(0), "{run:?}");
    };
    with_id("r_other", "the other task");
    with_id("r_earlier", "the earlier task");
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &["--continue"]), 100, 30, "true");
    tmux.wait_for("↺ resumed session r_earlier");
    tmux.send_line("/status");
    let screen = tmux.wait_for("session   r_earlier");
    assert!(!screen.contains("stored at its first input"), "{screen}");
    tmux.send_line("/fork");
    tmux.wait_for("⑂ forked from r_earlier");
    tmux.send_line("/fork");
    let screen = tmux.wait_until("forked twice", |screen| screen.matches("⑂ forked from").count() == 2);
    assert!(!screen.contains("nothing to fork yet"), "{screen}");
    tmux.send_line("in the fork of the fork");
    tmux.wait_for("the answer in the fork");
    let sent = server.requests()[2].body.to_string();
    assert!(sent.contains("the earlier task") && sent.contains("the earlier answer"), "{sent:.400}");
    assert_eq!(sandbox.sessions(&["show", "r_earlier"]).code, Some(0), "the original stays");

    tmux.send_line("/resume r_other");
    tmux.wait_for("↺ resumed session r_other (2 turns): the other task");
    tmux.send_line("back to the other");
    tmux.wait_for("the answer after /resume");
    let sent = server.requests()[3].body.to_string();
    assert!(sent.contains("the other task") && !sent.contains("the earlier task"), "{sent:.400}");
}

/// A command typed while a run goes on: one that only reads answers at once; one that changes
/// the session says it waits, and runs when the run ends. Nothing typed is lost.
#[test]
fn a_command_typed_during_a_run_runs_when_it_ends() {
    if !Tmux::available("a_command_typed_during_a_run_runs_when_it_ends") {
        return;
    }
    let sandbox = Sandbox::new();
    let server =
        serve([Step::slow_first_byte(2_000, Reply::text("the slow answer")), Step::reply(Reply::text("the next answer"))]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, "true");
    ready(&tmux);
    tmux.send_line("take your time");
    eventually("the task reaches the model", || server.requests().len() == 1);
    tmux.send_line("/cost");
    tmux.send_line("/effort high");
    let screen = tmux.wait_for("· /effort high runs when this run ends");
    assert!(screen.contains("cost      nothing spent yet"), "/cost answered at once:\n{screen}");
    assert!(!screen.contains("the slow answer") && !screen.contains("reasoning effort: high"), "{screen}");
    let screen = tmux.wait_for("reasoning effort: high");
    let (answered, set) = (screen.find("✓ completed").unwrap(), screen.find("reasoning effort: high").unwrap());
    assert!(answered < set, "after the run:\n{screen}");
    tmux.send_line("again");
    tmux.wait_for("the next answer");
    assert_eq!(server.requests()[1].body["thinking"]["type"], "enabled", "the effort reached the next request");
}

/// The `/resume` picker waits for a key, but a SIGTERM still ends the session at once.
#[test]
fn the_resume_picker_ends_on_sigterm() {
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text("the earlier answer"))]);
    assert_eq!(sandbox.run(&server, "the earlier task", &[]).code, Some(0));
    let mut command = sandbox.openagent(Some(&server), &[]);
    command.env("TERM", "xterm-256color");
    let mut terminal = crate::terminal::Terminal::start(command, None, None);
    terminal.wait_for("/help lists the commands");
    terminal.type_bytes(b"/resume\r");
    terminal.wait_for("Resume which session?");
    // SAFETY: kill(2) has no memory effects; the pid is the test's own child.
    assert_eq!(unsafe { libc::kill(terminal.pid(), libc::SIGTERM) }, 0);
    assert_eq!(terminal.exit_code(), Some(0));
}
