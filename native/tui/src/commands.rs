//! The slash commands of the interactive session. A line that starts with `/` is a command,
//! never a task: an unknown one is an error that names the known ones.

/// A command: its name, what it takes, and what it does.
pub struct Command {
    pub name: &'static str,
    pub args: &'static str,
    pub help: &'static str,
}

pub const COMMANDS: [Command; 14] = [
    Command { name: "help", args: "", help: "list the commands and keys" },
    Command { name: "model", args: "[NAME]", help: "show the model, or switch to NAME for the next input" },
    Command { name: "effort", args: "[low|medium|high|off]", help: "show or set the reasoning effort" },
    Command { name: "clear", args: "", help: "start a new conversation" },
    Command { name: "cost", args: "", help: "tokens and cost of this conversation" },
    Command { name: "status", args: "", help: "provider, model, directory, session and context use" },
    Command { name: "compact", args: "", help: "summarise the older conversation to free context" },
    Command { name: "resume", args: "[ID]", help: "take up a stored session of this directory (a picker without ID)" },
    Command { name: "fork", args: "", help: "continue in a copy of this conversation, leaving it as it is" },
    Command { name: "approval", args: "[MODE]", help: "show or set the approval mode (read-only, auto-edit, full-auto)" },
    Command {
        name: "sandbox",
        args: "[MODE|network on|off]",
        help: "show or set what commands may reach (read-only, workspace-write, full-access)",
    },
    Command { name: "mcp", args: "", help: "the MCP servers and their tools" },
    Command { name: "tools", args: "[N]", help: "list the tool calls, or open or close call N's output" },
    Command { name: "quit", args: "", help: "end the session (also Ctrl-D, or Ctrl-C twice)" },
];

/// A line typed at the prompt, read as a command.
#[derive(Debug, PartialEq, Eq)]
pub enum Parsed<'a> {
    /// Not a command: a task (or steering).
    Task,
    Command {
        name: &'static str,
        arg: &'a str,
    },
    /// `/x` that is no command: the error to show.
    Unknown(String),
}

pub fn parse(line: &str) -> Parsed<'_> {
    // `//x`, a path like `/etc/hosts is wrong`, or a line that starts with a space is a task.
    let Some(rest) = line.trim_end().strip_prefix('/') else { return Parsed::Task };
    let (word, arg) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    if word.contains('/') {
        return Parsed::Task;
    }
    match COMMANDS.iter().find(|command| command.name == word) {
        Some(command) => Parsed::Command { name: command.name, arg: arg.trim() },
        None => {
            let what = if word.is_empty() {
                "a command's name goes right after /".to_owned()
            } else {
                format!("unknown command /{word}")
            };
            Parsed::Unknown(format!(
                "{what}; the commands are {} (/help says what each does). To send a line starting with / as a task, \
                 start it with a space.",
                COMMANDS.iter().map(|c| format!("/{}", c.name)).collect::<Vec<_>>().join(" ")
            ))
        }
    }
}

/// The commands whose names start with what follows the `/` of `partial`.
pub fn complete(partial: &str) -> Vec<&'static Command> {
    let Some(word) = partial.strip_prefix('/') else { return Vec::new() };
    COMMANDS.iter().filter(|command| command.name.starts_with(word)).collect()
}

/// The `/help` text: each command, then the keys.
pub fn help() -> Vec<String> {
    let mut lines: Vec<String> = COMMANDS.iter().map(|c| format!("/{:<9}{:<24}{}", c.name, c.args, c.help)).collect();
    lines.extend(
        [
            "",
            "Enter sends; Alt-Enter, Shift-Enter or Ctrl-J starts a new line; ↑/↓ go through earlier inputs.",
            "Tab completes /commands and @files. While a task runs, what you send steers it.",
            "Ctrl-O opens or closes the last tool call's output (/tools N an earlier one's).",
            "Ctrl-C stops the run (or clears the input); Ctrl-C twice, or Ctrl-D on an empty input, quits.",
        ]
        .map(str::to_owned),
    );
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_tasks_and_unknown_commands_are_told_apart() {
        assert_eq!(parse("/help"), Parsed::Command { name: "help", arg: "" });
        assert_eq!(parse("/model  gpt-5 "), Parsed::Command { name: "model", arg: "gpt-5" });
        assert_eq!(parse(" /x"), Parsed::Task);
        assert_eq!(parse("fix /help"), Parsed::Task);
        assert_eq!(parse("/etc/hosts looks wrong"), Parsed::Task);
        assert_eq!(parse(" plain"), Parsed::Task);
        let Parsed::Unknown(message) = parse("/x") else { panic!() };
        assert!(message.starts_with("unknown command /x;") && message.contains("/resume"), "{message}");
        // A bare `/`, or one before a space, names no command: an error, never a task.
        for bare in ["/", "/ ", "/ fix the bug", "/\nmore"] {
            let Parsed::Unknown(message) = parse(bare) else { panic!("{bare:?} is not an error") };
            assert!(message.starts_with("a command's name goes right after /;"), "{message}");
        }
        assert_eq!(parse(" / fix the bug"), Parsed::Task);
    }

    #[test]
    fn completion_lists_the_commands_that_start_so() {
        let names: Vec<_> = complete("/c").iter().map(|c| c.name).collect();
        assert_eq!(names, ["clear", "cost", "compact"]);
        assert!(complete("help").is_empty());
        assert!(help().iter().any(|line| line.starts_with("/resume")));
    }
}
