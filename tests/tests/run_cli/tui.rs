//! The interactive screen, in a real terminal (tmux): rendered markdown, diffs, steering,
//! Ctrl-C, approvals, thinking, tool output; the slash commands, the input and the layout at
//! odd sizes in the modules below. `UPDATE_SCREENS=1` keeps each main state in `screens/`.

mod commands;
mod input;
mod layout;
mod stream;

use openagent_tests::cli::{eventually, Sandbox};
use openagent_tests::over_http::serve;
use openagent_tests::{Reply, Step, ToolCall};
use serde_json::json;

use super::tmux::Tmux;
use super::{call, sandbox_with_notes, ANSWER, NOTES, TASK};

const MARKDOWN: &str = "# Plan\n\nFirst **do this**, then `that`.\n\n- one item\n- two items\n\n| step | time |\n|:-----|-----:|\n| build | 2s |\n| test | 14s |\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\nA closing paragraph long enough to wrap once the terminal is made narrow enough for it.";

/// Run in the terminal after `openagent`: says whether it is cooked again (icanon, echo).
const STTY: &str = "stty -a | tr ' ' '\\n' | grep -x -e -icanon -e icanon -e echo -e -echo; echo stty-done";

/// Rows that are nothing but a rule: the input box's top and bottom.
fn rules(screen: &str) -> usize {
    screen.lines().filter(|line| !line.is_empty() && line.chars().all(|c| c == '─')).count()
}

fn ready(tmux: &Tmux) {
    tmux.wait_for("/help lists the commands");
}

#[test]
fn a_streamed_markdown_answer_is_rendered_and_laid_out_again_on_resize() {
    if !Tmux::available("a_streamed_markdown_answer_is_rendered") {
        return;
    }
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text(MARKDOWN))]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, "true");
    ready(&tmux);
    tmux.send_line("make a plan");
    let screen = tmux.wait_for("✓ completed");
    for shown in [
        "# Plan",
        "First do this, then that.",
        "• one item",
        "• two items",
        "step  │ time\n──────┼─────\nbuild │   2s\ntest  │  14s",
        "▏ fn main() {",
        "▏     println!(\"hi\");",
    ] {
        assert!(screen.contains(shown), "{shown:?} is not on the screen:\n{screen}");
    }
    assert!(!screen.contains("**") && !screen.contains("```"), "the markdown is rendered, not shown raw:\n{screen}");
    let colours = tmux.screen_in_colour();
    assert!(colours.contains("\x1b[38;2;"), "the code is highlighted in colour:\n{colours}");
    tmux.keep("answer");

    tmux.resize(50, 30);
    // The terminal first cuts the old rows where they no longer fit; the screen then lays the
    // transcript out again, breaking between words.
    let screen = tmux.wait_until("the answer is laid out at 50 columns", |screen| {
        screen.lines().any(|line| line.starts_with("terminal is made narrow enough for it."))
    });
    assert!(screen.lines().all(|line| line.chars().count() <= 50), "nothing wraps by itself:\n{screen}");
    assert_eq!(screen.matches("# Plan").count(), 1, "laid out once, not twice:\n{screen}");
    assert_eq!(screen.matches("✓ completed").count(), 1, "{screen}");
    assert_eq!(screen.lines().filter(|line| line.starts_with('›')).count(), 2, "the task and the prompt, once each:\n{screen}");
    tmux.keep("resized");
}

#[test]
fn an_edit_shows_its_diff() {
    if !Tmux::available("an_edit_shows_its_diff") {
        return;
    }
    let sandbox = Sandbox::new();
    sandbox.write("greeting.txt", "hello\nworld\n");
    let server = serve([
        call("toolu_read", "read_file", json!({"file_path": "greeting.txt"})),
        call("toolu_edit", "edit_file", json!({"file_path": "greeting.txt", "old_string": "hello", "new_string": "goodbye"})),
        Step::reply(Reply::text(ANSWER)),
    ]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, "true");
    ready(&tmux);
    tmux.send_line("say goodbye");
    let screen = tmux.wait_for("✓ completed");
    assert!(screen.contains("✓ edit_file greeting.txt"), "{screen}");
    assert!(screen.contains("edited greeting.txt +1 -1"), "{screen}");
    let before = std::fs::read_to_string(sandbox.cwd().join("greeting.txt")).unwrap();
    assert!(before.contains("goodbye"), "the edit was made: {before}");
    let removed = screen.lines().find(|line| line.contains("- ") && line.contains("hello")).map(str::trim);
    let added = screen.lines().find(|line| line.contains("+ ") && line.contains("goodbye")).map(str::trim);
    assert!(removed.is_some() && added.is_some(), "the diff's lines:\n{screen}");
    tmux.keep("diff");
}

#[test]
fn a_line_typed_during_a_run_steers_it() {
    if !Tmux::available("a_line_typed_during_a_run_steers_it") {
        return;
    }
    let sandbox = sandbox_with_notes();
    let read = ToolCall { name: "read_file".into(), arguments: json!({"file_path": NOTES}), id: Some("toolu_read".into()) };
    let slow_read = Step::slow_first_byte(1_500, Reply { tool_calls: vec![read], ..Reply::default() });
    let server = serve([slow_read, Step::reply(Reply::text(ANSWER))]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, "true");
    ready(&tmux);
    tmux.send_line(TASK);
    eventually("the task reaches the model", || server.requests().len() == 1);
    tmux.send_line("use British spelling");
    tmux.wait_for("✓ completed");
    tmux.wait_for("→ steering: use British spelling");
    let requests = server.requests();
    assert!(requests[1].body.to_string().contains("use British spelling"), "the second request carries the steering");
}

#[test]
fn ctrl_c_stops_the_run_and_twice_quits_with_the_terminal_restored() {
    if !Tmux::available("ctrl_c_stops_the_run") {
        return;
    }
    let sandbox = Sandbox::new();
    let server = serve([Step::slow_first_byte(30_000, Reply::text("too late")), Step::reply(Reply::text(ANSWER))]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, STTY);
    ready(&tmux);
    tmux.send_line("wait for me");
    eventually("the task reaches the model", || server.requests().len() == 1);
    tmux.press(&["C-c"]);
    let screen = tmux.wait_for("■ interrupted");
    assert!(!screen.contains("Ctrl-C again quits"), "the run's notice went with it:\n{screen}");
    tmux.send_line("again");
    tmux.wait_for(ANSWER);
    tmux.press(&["C-c"]);
    tmux.wait_for("Ctrl-C again, or Ctrl-D, to quit");
    tmux.press(&["C-c"]);
    let screen = tmux.wait_for("stty-done");
    assert!(screen.contains("exit=0\n"), "{screen}");
    assert!(screen.contains("\nicanon\n") && screen.contains("\necho\n"), "the terminal is cooked again:\n{screen}");
}

/// Ctrl-C twice in a row during a run: the first stops it (at once, so the second lands on the
/// prompt), the second quits, as the notice in between says; the terminal is cooked again.
#[test]
fn ctrl_c_twice_during_a_run_quits_with_the_terminal_restored() {
    if !Tmux::available("ctrl_c_twice_during_a_run_quits") {
        return;
    }
    let sandbox = Sandbox::new();
    let server = serve([Step::slow_first_byte(30_000, Reply::text("too late"))]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, STTY);
    ready(&tmux);
    tmux.send_line("wait for me");
    eventually("the task reaches the model", || server.requests().len() == 1);
    tmux.press(&["C-c", "C-c"]);
    let screen = tmux.wait_for("stty-done");
    assert!(screen.contains("exit=0\n") || screen.contains("exit=130\n"), "{screen}");
    assert!(screen.contains("\nicanon\n") && screen.contains("\necho\n"), "the terminal is cooked again:\n{screen}");
}

fn shell(id: &str, command: &str) -> Step {
    call(id, "shell", json!({ "command": command }))
}

/// Approval questions are asked in the screen: the command or the edit shown, one key to answer,
/// `n` then a reason the model reads.
#[test]
fn approval_questions_show_the_call_and_take_one_key() {
    if !Tmux::available("approval_questions_show_the_call_and_take_one_key") {
        return;
    }
    let sandbox = Sandbox::new();
    sandbox.write("greeting.txt", "hello\n");
    let server = serve([
        shell("toolu_1", "echo one > one.txt"),
        shell("toolu_2", "echo two > two.txt"),
        call("toolu_3", "read_file", json!({"file_path": "greeting.txt"})),
        call("toolu_4", "edit_file", json!({"file_path": "greeting.txt", "old_string": "hello", "new_string": "goodbye"})),
        shell("toolu_5", "touch three.txt"),
        shell("toolu_6", "touch four.txt"),
        Step::reply(Reply::text(ANSWER)),
    ]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &["--approval", "read-only"]), 100, 30, "true");
    ready(&tmux);
    tmux.send_line("make the files");
    tmux.wait_for("? Allow shell echo one > one.txt");
    tmux.wait_for("[y]es  [n]o  [a]lways for shell `echo one`");
    tmux.keep("approval");
    tmux.press(&["n"]);
    tmux.wait_for("Why not?");
    tmux.send_line("use the file tools");
    tmux.wait_for("? Allow shell echo two > two.txt");
    tmux.press(&["y"]);
    let screen = tmux.wait_for("? Allow edit_file greeting.txt");
    let diff = screen.lines().any(|line| line.contains("- hello")) && screen.lines().any(|line| line.contains("+ goodbye"));
    assert!(diff, "the edit is shown as a diff:\n{screen}");
    tmux.keep("approval-edit");
    tmux.press(&["y"]);
    tmux.wait_for("? Allow shell touch three.txt");
    tmux.press(&["a"]);
    tmux.wait_for(ANSWER);
    assert!(!tmux.screen().contains("? Allow shell touch four.txt"), "always covered the next touch");
    assert!(!sandbox.cwd().join("one.txt").exists(), "denied");
    for made in ["two.txt", "three.txt", "four.txt"] {
        assert!(sandbox.cwd().join(made).exists(), "{made}");
    }
    assert_eq!(std::fs::read_to_string(sandbox.cwd().join("greeting.txt")).unwrap(), "goodbye\n");
    let after_no = server.requests()[1].body.to_string();
    assert!(after_no.contains("the user denied this call: use the file tools"), "{after_no}");
}

/// Thinking is shown dimmed; Ctrl-O opens the last tool call's output; the status line counts
/// the tokens and the context used.
#[test]
fn thinking_is_dimmed_and_a_tool_output_opens_with_ctrl_o() {
    if !Tmux::available("thinking_is_dimmed_and_a_tool_output_opens_with_ctrl_o") {
        return;
    }
    let sandbox = sandbox_with_notes();
    let read = ToolCall { name: "read_file".into(), arguments: json!({"file_path": NOTES}), id: Some("toolu_read".into()) };
    let server = serve([
        Step::reply(Reply { tool_calls: vec![read], ..Reply::default() }.with_reasoning("the notes first")),
        Step::reply(Reply::text(ANSWER).with_usage(50_000, 20).with_reasoning("now the answer")),
    ]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, "true");
    ready(&tmux);
    tmux.send_line(TASK);
    let screen = tmux.wait_for("✓ completed");
    assert!(screen.contains("✻ thinking") && screen.contains("the notes first"), "{screen}");
    let thinking = screen.find("now the answer").expect("the second thinking");
    assert!(thinking < screen.find(ANSWER).expect("the answer"), "thinking shows before the answer:\n{screen}");
    assert!(tmux.screen_in_colour().contains("\x1b[2m"), "dimmed");
    assert!(screen.contains("✓ read_file notes.txt · 2 lines"), "{screen}");
    assert!(screen.contains("25% of 200.0k context"), "the status line: {screen}");
    assert!(!screen.contains("┌ #1 read_file"), "closed until asked");
    tmux.press(&["C-o"]);
    let screen = tmux.wait_for("┌ #1 read_file notes.txt");
    assert!(screen.matches("│").count() >= 2, "its lines:\n{screen}");
    tmux.keep("thinking-and-output");
    tmux.press(&["C-o"]);
    let screen = tmux.wait_until("the output closed again", |screen| !screen.contains("┌ #1 read_file"));
    assert!(screen.contains("✓ read_file notes.txt · 2 lines") && screen.contains(ANSWER), "the rest stays:\n{screen}");
}

/// Every tool call is numbered: `/tools` lists them, and `/tools N` opens one's output under
/// the transcript or closes it again, one at a time.
#[test]
fn earlier_tool_outputs_open_and_close_by_number() {
    if !Tmux::available("earlier_tool_outputs_open_and_close_by_number") {
        return;
    }
    let sandbox = sandbox_with_notes();
    let server = serve([
        call("toolu_read", "read_file", json!({"file_path": NOTES})),
        shell("toolu_echo", "echo first; echo second"),
        Step::reply(Reply::text(ANSWER)),
    ]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &["--approval", "full-auto"]), 100, 30, "true");
    ready(&tmux);
    tmux.send_line(TASK);
    let screen = tmux.wait_for("✓ completed");
    assert!(screen.contains("✓ read_file notes.txt · 2 lines") && screen.contains("· #1"), "{screen}");
    assert!(screen.contains("✓ shell echo first; echo second") && screen.contains("· #2"), "{screen}");
    tmux.send_line("/tools");
    tmux.wait_for("#1   ✓ read_file notes.txt · 2 lines");
    tmux.wait_for("#2   ✓ shell echo first; echo second");
    tmux.send_line("/tools 1");
    let screen = tmux.wait_for("┌ #1 read_file notes.txt");
    assert!(screen.contains("│    1 | hello"), "{screen}");
    tmux.keep("tool-output-by-number");
    tmux.send_line("/tools 2");
    let screen = tmux.wait_for("┌ #2 shell echo first; echo second");
    assert!(screen.contains("│ second") && !screen.contains("┌ #1"), "one open at a time:\n{screen}");
    tmux.send_line("/tools 2");
    tmux.wait_until("closed", |screen| !screen.contains("┌ #2"));
    tmux.send_line("/tools 9");
    tmux.wait_for("✗ there is no tool call #9: /tools lists them");
}

/// Ctrl-C in the screen is a key, not a signal: it still stops the run and ends its command.
#[test]
fn ctrl_c_ends_a_running_command_and_the_session_goes_on() {
    if !Tmux::available("ctrl_c_ends_a_running_command") {
        return;
    }
    let sandbox = Sandbox::new();
    let server = serve([super::signals::sleeper_call(), Step::reply(Reply::text(ANSWER))]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &["--approval", "full-auto"]), 100, 30, "true");
    ready(&tmux);
    tmux.send_line("run the sleeper");
    let pid = super::signals::sleeper_pid(&sandbox);
    tmux.wait_for("running shell");
    tmux.press(&["C-c"]);
    tmux.wait_for("■ interrupted");
    super::signals::assert_gone(pid, std::time::Duration::from_secs(3));
    tmux.send_line("then answer");
    tmux.wait_for(ANSWER);
    tmux.press(&["C-d"]);
    tmux.wait_for("exit=0");
}

/// Without the full screen (stdin a pipe here), the commands are still never tasks.
#[test]
fn the_plain_session_answers_help_and_refuses_unknown_commands() {
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text(ANSWER))]);
    let mut session = openagent_tests::cli::Running::with_stdin(sandbox.openagent(Some(&server), &[]));
    session.write("/help\n/x\n/model\nsay hi\n");
    let run = session.finish();
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.contains("/resume") && run.stderr.contains("error: unknown command /x"), "{}", run.stderr);
    assert!(run.stderr.contains("/model needs the full-screen session"), "{}", run.stderr);
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "only the task went to the model");
    assert!(!requests[0].body.to_string().contains("/help"));
}

/// Whether `screen` (as `capture-pane -e` gives it) sets a colour: an SGR parameter 30-38,
/// 40-48, 90-97 or 100-107.
fn has_colour(screen: &str) -> bool {
    screen.split("\x1b[").skip(1).any(|sequence| {
        let Some(end) = sequence.find(|c: char| !c.is_ascii_digit() && c != ';') else { return false };
        sequence[end..].starts_with('m')
            && sequence[..end]
                .split(';')
                .filter_map(|p| p.parse::<u32>().ok())
                .any(|p| matches!(p, 30..=38 | 40..=48 | 90..=97 | 100..=107))
    })
}

/// `NO_COLOR` keeps the full screen and only drops its colours; a dumb terminal gets plain lines.
#[test]
fn no_color_drops_the_colours_and_a_dumb_terminal_gets_plain_lines() {
    if !Tmux::available("no_color_drops_the_colours_and_a_dumb_terminal_gets_plain_lines") {
        return;
    }
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text(MARKDOWN)), Step::reply(Reply::text(ANSWER))]);
    let mut command = sandbox.openagent(Some(&server), &[]);
    command.env("NO_COLOR", "1");
    let tmux = Tmux::start(&command, 100, 30, "true");
    ready(&tmux);
    tmux.send_line("make a plan");
    let screen = tmux.wait_for("✓ completed");
    assert!(screen.contains("────") && screen.contains("▏ fn main() {"), "the full screen:\n{screen}");
    let shown = tmux.screen_in_colour();
    assert!(!has_colour(&shown), "no colour:\n{shown}");
    assert!(shown.contains("\x1b[1m"), "bold stays:\n{shown}");
    assert!(has_colour(&tmux_coloured(&sandbox)), "the same screen has colours without NO_COLOR");

    let server = serve([Step::reply(Reply::text(ANSWER))]);
    let mut command = sandbox.openagent(Some(&server), &[]);
    command.env("TERM", "dumb");
    let tmux = Tmux::start(&command, 100, 30, "true");
    tmux.wait_for("Type a task and press Enter. While it runs");
    tmux.send_line("say hi");
    let screen = tmux.wait_for(ANSWER);
    assert!(!screen.contains("────") && !has_colour(&tmux.screen_in_colour()), "plain:\n{screen}");
}

/// The screen of [`no_color_drops_the_colours_and_a_dumb_terminal_gets_plain_lines`] with
/// colours, to show the check sees them.
fn tmux_coloured(sandbox: &Sandbox) -> String {
    let server = serve([Step::reply(Reply::text(MARKDOWN))]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, "true");
    ready(&tmux);
    tmux.send_line("make a plan");
    tmux.wait_for("✓ completed");
    tmux.screen_in_colour()
}

/// The screen's terminal hung up mid-command: the session ends, and so does its command.
#[test]
fn a_hang_up_ends_the_screen_and_its_command() {
    let sandbox = Sandbox::new();
    let server = serve([super::signals::sleeper_call()]);
    let mut command = sandbox.openagent(Some(&server), &["--approval", "full-auto"]);
    command.env("TERM", "xterm-256color");
    let mut terminal = super::terminal::Terminal::start(command, None, None);
    // The prompt's mark (this terminal has no size: the screen takes the narrowest).
    terminal.wait_for("› ");
    terminal.type_bytes(b"run the sleeper\r");
    let pid = super::signals::sleeper_pid(&sandbox);
    terminal.hang_up();
    assert_eq!(terminal.exit_code(), Some(0));
    super::signals::assert_gone(pid, std::time::Duration::from_secs(3));
}

/// Escape sequences in a model's answer or a file are shown, never obeyed: they cannot clear the
/// screen, retitle the terminal or write the clipboard.
#[test]
fn escape_sequences_in_an_answer_or_a_file_are_shown_not_obeyed() {
    if !Tmux::available("escape_sequences_in_an_answer_or_a_file_are_shown_not_obeyed") {
        return;
    }
    let sandbox = Sandbox::new();
    sandbox.write("trap.txt", "before\x1b[2J\x1b]52;c;ZXZpbA==\x07after\n");
    let server = serve([
        call("toolu_read", "read_file", json!({"file_path": "trap.txt"})),
        Step::reply(Reply::text("clear\x1b[2J\x1b[H\x1b]0;pwned\x07 done")),
    ]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, "true");
    ready(&tmux);
    tmux.send_line("read the trap");
    let screen = tmux.wait_for("✓ completed");
    assert!(screen.contains("clear␛[2J␛[H␛]0;pwned␇ done"), "{screen}");
    assert!(screen.contains("OpenAgent · anthropic"), "nothing was cleared:\n{screen}");
    tmux.press(&["C-o"]);
    let screen = tmux.wait_for("before␛[2J␛]52;c;ZXZpbA==␇after");
    assert!(screen.contains("› read the trap"), "{screen}");
    let title = tmux.run(&["display-message", "-p", "#{pane_title}"]);
    assert!(!title.contains("pwned"), "the title was not set: {title}");
}

/// `/fork` while another process holds the store: the fork is refused with the store's reason,
/// and the conversation goes on as it was.
#[test]
fn a_fork_the_locked_store_refuses_leaves_the_conversation_going() {
    if !Tmux::available("a_fork_the_locked_store_refuses_leaves_the_conversation_going") {
        return;
    }
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text("first answer")), Step::reply(Reply::text("second answer"))]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 100, 30, "true");
    ready(&tmux);
    tmux.send_line("remember the number 7");
    tmux.wait_for("first answer");
    let db = rusqlite::Connection::open(sandbox.data_dir().join("openagent.db")).expect("the store");
    db.execute_batch("BEGIN IMMEDIATE").expect("the lock");
    tmux.send_line("/fork");
    let screen = tmux.wait_for("✗ cannot open the session store");
    assert!(screen.contains("database is locked"), "{screen}");
    // The store's own warning is a note of the screen, not written over it.
    let warned = screen.lines().find(|line| line.contains("the session store refused a write"));
    assert!(warned.is_some_and(|line| line.starts_with("· warning:")), "{screen}");
    db.execute_batch("COMMIT").expect("the lock released");
    tmux.send_line("which number?");
    tmux.wait_for("second answer");
    let last = server.requests()[1].body.to_string();
    assert!(last.contains("remember the number 7"), "the same conversation: {last:.300}");
    assert!(!tmux.screen().contains("forked from"), "no fork was made");
}

/// `--continue` opens the screen on the directory's latest session, its history sent along.
#[test]
fn the_screen_opens_on_a_continued_session() {
    if !Tmux::available("the_screen_opens_on_a_continued_session") {
        return;
    }
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text("the earlier answer")), Step::reply(Reply::text("the later answer"))]);
    assert_eq!(sandbox.run(&server, "the earlier task", &[]).code, Some(0));
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &["--continue"]), 100, 30, "true");
    tmux.wait_for("↺ resumed session");
    tmux.send_line("and then?");
    tmux.wait_for("the later answer");
    let last = server.requests()[1].body.to_string();
    assert!(last.contains("the earlier task") && last.contains("the earlier answer"), "{last:.400}");
}
