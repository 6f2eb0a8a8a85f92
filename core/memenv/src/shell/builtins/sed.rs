//! `sed`: the stream editor, for the one-liners agents write: `-n`, `-i`, `-E`, `-e`;
//! addresses `N`, `$`, `/re/`, ranges and `!`; the commands `p`, `d`, `s///` (flags `g`, `p`,
//! `i`, N), `q`, `=`, and one-line `a`, `i`, `c`.

use super::super::describe;
use super::pattern::translate;
use super::Call;
use openagent_regex::Regex;

const SUPPORTED: &str = "supported: p, d, s, q, =, a, i, c";

enum Address {
    Line(usize),
    Last,
    Match(Regex),
}

enum Action {
    Print,
    Delete,
    Substitute { regex: Regex, replacement: Vec<Piece>, global: bool, nth: usize, print: bool },
    Quit(i32),
    LineNumber,
    Append(String),
    Insert(String),
    Change(String),
}

struct Command {
    from: Option<Address>,
    to: Option<Address>,
    negated: bool,
    action: Action,
    /// Inside a range that has started.
    active: bool,
}

impl Command {
    /// Whether the command applies to this line, and whether a range ends on it.
    fn selects(&mut self, space: &str, line: usize, last: bool) -> (bool, bool) {
        let hit = |address: &Address| match address {
            Address::Line(n) => line == *n,
            Address::Last => last,
            Address::Match(regex) => regex.is_match(space),
        };
        let (selected, ends) = match (&self.from, &self.to) {
            (None, _) => (true, true),
            (Some(from), None) => (hit(from), true),
            (Some(_), Some(to)) if self.active => {
                let ends = match to {
                    Address::Line(n) => line >= *n,
                    other => hit(other),
                };
                self.active = !ends;
                (true, ends)
            }
            (Some(from), Some(to)) if hit(from) => {
                // The end address is looked for from the next line on, except a line number
                // already reached, which makes a one-line range.
                let ends = matches!(to, Address::Line(n) if *n <= line) || (matches!(to, Address::Last) && last);
                self.active = !ends;
                (true, ends)
            }
            _ => (false, false),
        };
        (selected != self.negated, ends)
    }
}

/// Reads a sed script into commands.
struct ScriptParser {
    chars: Vec<char>,
    pos: usize,
    extended: bool,
}

impl ScriptParser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek();
        self.pos += usize::from(c.is_some());
        c
    }

    fn skip(&mut self, what: &str) {
        while self.peek().is_some_and(|c| what.contains(c)) {
            self.pos += 1;
        }
    }

    fn regex(&self, pattern: &str, case_insensitive: bool) -> Result<Regex, String> {
        Regex::new(&translate(pattern, self.extended), case_insensitive)
            .map_err(|err| format!("invalid regular expression '{pattern}': {err}"))
    }

    /// Text up to an unescaped `delimiter`; `\delimiter` stands for the delimiter itself.
    fn delimited(&mut self, delimiter: char) -> Result<String, String> {
        let mut text = String::new();
        loop {
            match self.bump() {
                None => return Err(format!("unterminated `{delimiter}'")),
                Some(c) if c == delimiter => return Ok(text),
                Some('\\') => match self.bump() {
                    Some(c) if c == delimiter => text.push(c),
                    Some('n') => text.push('\n'),
                    Some(c) => {
                        text.push('\\');
                        text.push(c);
                    }
                    None => return Err("unterminated escape".into()),
                },
                Some(c) => text.push(c),
            }
        }
    }

    fn address(&mut self) -> Result<Option<Address>, String> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                let mut digits = String::new();
                while let Some(digit) = self.peek().filter(char::is_ascii_digit) {
                    digits.push(digit);
                    self.pos += 1;
                }
                digits.parse().map(|n| Some(Address::Line(n))).map_err(|_| format!("invalid line number {digits}"))
            }
            Some('$') => {
                self.pos += 1;
                Ok(Some(Address::Last))
            }
            Some('/') => {
                self.pos += 1;
                let pattern = self.delimited('/')?;
                let case_insensitive = self.peek() == Some('I');
                self.pos += usize::from(case_insensitive);
                Ok(Some(Address::Match(self.regex(&pattern, case_insensitive)?)))
            }
            _ => Ok(None),
        }
    }

    /// The text of `a`, `i` and `c`: `a text` or `a\` followed by the text.
    fn text(&mut self) -> String {
        self.skip(" \t");
        if self.peek() == Some('\\') {
            self.pos += 1;
            self.skip("\n");
        }
        let mut text = String::new();
        while let Some(c) = self.peek().filter(|c| *c != '\n') {
            text.push(c);
            self.pos += 1;
        }
        text
    }

    fn parse(mut self) -> Result<Vec<Command>, String> {
        let mut commands = Vec::new();
        loop {
            self.skip(" \t\n;");
            if self.peek().is_none() {
                return Ok(commands);
            }
            let from = self.address()?;
            let to = if from.is_some() && self.peek() == Some(',') {
                self.pos += 1;
                Some(self.address()?.ok_or("expected an address after `,'")?)
            } else {
                None
            };
            self.skip(" \t");
            let negated = self.peek() == Some('!');
            self.pos += usize::from(negated);
            self.skip(" \t");
            let action = match self.bump() {
                Some('p') => Action::Print,
                Some('d') => Action::Delete,
                Some('=') => Action::LineNumber,
                Some('q') => {
                    let mut code = String::new();
                    while let Some(digit) = self.peek().filter(char::is_ascii_digit) {
                        code.push(digit);
                        self.pos += 1;
                    }
                    Action::Quit(code.parse().unwrap_or(0))
                }
                Some('a') => Action::Append(self.text()),
                Some('i') => Action::Insert(self.text()),
                Some('c') => Action::Change(self.text()),
                Some('s') => self.substitute()?,
                Some(other) => return Err(format!("unknown or unsupported command `{other}' ({SUPPORTED})")),
                None => return Err("missing command".into()),
            };
            commands.push(Command { from, to, negated, action, active: false });
            self.skip(" \t");
            if !matches!(self.peek(), None | Some(';' | '\n' | '}')) {
                return Err(format!("extra characters after command at `{}'", self.chars[self.pos..].iter().collect::<String>()));
            }
        }
    }

    fn substitute(&mut self) -> Result<Action, String> {
        let delimiter = self.bump().filter(|c| *c != '\\' && *c != '\n').ok_or("unterminated `s' command")?;
        let pattern = self.delimited(delimiter)?;
        let raw = self.delimited(delimiter)?;
        let (mut global, mut print, mut case_insensitive, mut nth) = (false, false, false, String::new());
        while let Some(flag) = self.peek().filter(|c| "gpiI0123456789".contains(*c)) {
            self.pos += 1;
            match flag {
                'g' => global = true,
                'p' => print = true,
                'i' | 'I' => case_insensitive = true,
                digit => nth.push(digit),
            }
        }
        let regex = self.regex(&pattern, case_insensitive)?;
        Ok(Action::Substitute { regex, replacement: replacement(&raw), global, nth: nth.parse().unwrap_or(1).max(1), print })
    }
}

/// A piece of a replacement: text, or a group of the match (0 for the whole match).
enum Piece {
    Text(String),
    Group(usize),
}

/// A sed replacement: `&` is the match, `\0`..`\9` the groups. Expanded here rather than by
/// regex-lite's `Captures::expand`, whose `$name` syntax would need escaping and whose code
/// would add to the bundle.
fn replacement(raw: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        let group = match c {
            '&' => 0,
            '\\' => match chars.next() {
                Some(digit @ '0'..='9') => digit as usize - '0' as usize,
                Some('t') => {
                    text.push('\t');
                    continue;
                }
                Some(other) => {
                    text.push(other);
                    continue;
                }
                None => {
                    text.push('\\');
                    continue;
                }
            },
            c => {
                text.push(c);
                continue;
            }
        };
        pieces.push(Piece::Text(std::mem::take(&mut text)));
        pieces.push(Piece::Group(group));
    }
    pieces.push(Piece::Text(text));
    pieces
}

fn substitute(space: &str, regex: &Regex, replacement: &[Piece], global: bool, nth: usize) -> Option<String> {
    let (mut result, mut last, mut changed) = (String::new(), 0, false);
    for (count, captures) in regex.captures_iter(space).enumerate() {
        let Some(whole) = captures.first().cloned().flatten() else { continue };
        if count + 1 < nth {
            continue;
        }
        result.push_str(&space[last..whole.start]);
        for piece in replacement {
            match piece {
                Piece::Text(text) => result.push_str(text),
                Piece::Group(group) => result.push_str(captures.get(*group).cloned().flatten().map_or("", |found| &space[found])),
            }
        }
        last = whole.end;
        changed = true;
        if !global {
            break;
        }
    }
    result.push_str(&space[last..]);
    changed.then_some(result)
}

/// Runs the script over text; returns the output and the status `q` asked for.
fn edit(commands: &mut [Command], text: &str, quiet: bool) -> (String, Option<i32>) {
    let mut lines: Vec<&str> = text.split('\n').collect();
    let ends_with_newline = text.ends_with('\n') || text.is_empty();
    if ends_with_newline {
        lines.pop();
    }
    let mut out = String::new();
    let put = |out: &mut String, text: &str| {
        out.push_str(text);
        out.push('\n');
    };
    let total = lines.len();
    for (i, line) in lines.into_iter().enumerate() {
        let (number, last) = (i + 1, i + 1 == total);
        let newline = if last && !ends_with_newline { "" } else { "\n" };
        let (mut space, mut deleted, mut quit, mut appended) = (line.to_owned(), false, None, Vec::new());
        for command in commands.iter_mut() {
            let (selected, range_ends) = command.selects(&space, number, last);
            if !selected {
                continue;
            }
            match &command.action {
                Action::Print => put(&mut out, &space),
                Action::Delete => deleted = true,
                Action::Substitute { regex, replacement, global, nth, print } => {
                    if let Some(changed) = substitute(&space, regex, replacement, *global, *nth) {
                        space = changed;
                        if *print {
                            put(&mut out, &space);
                        }
                    }
                }
                Action::Quit(code) => quit = Some(*code),
                Action::LineNumber => put(&mut out, &number.to_string()),
                Action::Append(text) => appended.push(text.clone()),
                Action::Insert(text) => put(&mut out, text),
                Action::Change(text) => {
                    if range_ends || command.negated {
                        put(&mut out, text);
                    }
                    deleted = true;
                }
            }
            if deleted || quit.is_some() {
                break;
            }
        }
        if !deleted && !quiet {
            out.push_str(&space);
            out.push_str(newline);
        }
        for text in appended {
            put(&mut out, &text);
        }
        if quit.is_some() {
            return (out, quit);
        }
    }
    (out, None)
}

pub(super) fn sed(c: &mut Call) -> i32 {
    // `-i` takes an optional backup suffix glued to it (`-i.bak`); BSD's `-i ''` means none.
    let (mut in_place, mut args, mut rest) = (None, Vec::new(), c.args.iter().peekable());
    while let Some(arg) = rest.next() {
        if let Some(suffix) = arg.strip_prefix("--in-place") {
            in_place = Some(suffix.trim_start_matches('=').to_owned());
        } else if let Some(suffix) = arg.strip_prefix("-i").filter(|_| !arg.starts_with("--")) {
            in_place = Some(suffix.to_owned());
            rest.next_if(|next| next.is_empty());
        } else {
            args.push(arg.clone());
        }
    }
    let long = [("quiet", 'n'), ("silent", 'n'), ("expression", 'e'), ("regexp-extended", 'E')];
    let Some(flags) = c.flags(&args, "nErs", "e", &long) else { return 1 };
    let mut operands = flags.operands.clone();
    let script = match flags.values('e').collect::<Vec<_>>() {
        scripts if !scripts.is_empty() => scripts.join("\n"),
        _ if operands.is_empty() => return c.fail("usage: sed [-n] [-i] [-E] script [file...]"),
        _ => operands.remove(0),
    };
    let parser = ScriptParser { chars: script.chars().collect(), pos: 0, extended: flags.has('E') || flags.has('r') };
    let mut commands = match parser.parse() {
        Ok(commands) => commands,
        Err(message) => return c.fail(format!("-e expression: {message}")),
    };
    let quiet = flags.has('n');
    let Some(suffix) = in_place else {
        let (text, failed) = c.text_inputs(&operands);
        let (out, quit) = edit(&mut commands, &text, quiet);
        c.out.out(out);
        return quit.unwrap_or(if failed { 2 } else { 0 });
    };
    if operands.is_empty() {
        return c.fail("no input files");
    }
    let mut status = 0;
    for operand in &operands {
        let input = match c.input(operand) {
            Ok(bytes) => bytes,
            Err(message) => {
                status = c.fail_with(2, format!("can't read {message}"));
                continue;
            }
        };
        commands.iter_mut().for_each(|command| command.active = false);
        let (out, _) = edit(&mut commands, &String::from_utf8_lossy(&input), quiet);
        let now = c.shell.now();
        let written = c.shell.resolve(operand).and_then(|path| {
            let mut tree = c.shell.tree();
            if !suffix.is_empty() {
                tree.write(&format!("{path}{suffix}"), input, now, false)?;
            }
            tree.write(&path, out.into_bytes(), now, false)
        });
        if let Err(err) = written {
            status = c.fail(format!("couldn't edit {operand}: {}", describe(&err)));
        }
    }
    status
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::super::{env_with, sh};
    use crate::MemoryEnvironment;

    fn env() -> MemoryEnvironment {
        env_with(&[("f.txt", "alpha\nbeta\ngamma\ndelta\nepsilon\n")])
    }

    fn out(command: &str) -> String {
        sh(&env(), command).0
    }

    #[test]
    fn prints_line_ranges_and_matches() {
        assert_eq!(out("sed -n '2,3p' f.txt"), "beta\ngamma\n");
        assert_eq!(out("sed -n 4p f.txt"), "delta\n");
        assert_eq!(out("sed -n '$p' f.txt"), "epsilon\n");
        assert_eq!(out("sed -n '/mm/p' f.txt"), "gamma\n");
        assert_eq!(out("sed -n '/beta/,/delta/p' f.txt"), "beta\ngamma\ndelta\n");
        assert_eq!(out("sed -n '3,$p' f.txt | head -n 1"), "gamma\n");
        assert_eq!(out("sed -n '4,2p' f.txt"), "delta\n");
        assert_eq!(out("sed -n '2!p' f.txt | wc -l"), "4\n");
        assert_eq!(out("sed -n '/^[ab]/=' f.txt"), "1\n2\n");
        assert_eq!(out("cat f.txt | sed -n 1p"), "alpha\n");
        assert_eq!(out("sed 2q f.txt"), "alpha\nbeta\n");
        assert_eq!(out("sed -n -e 1p -e 5p f.txt"), "alpha\nepsilon\n");
    }

    #[test]
    fn substitutes_with_groups_and_flags() {
        assert_eq!(out("echo 'a-b-c' | sed 's/-/+/'"), "a+b-c\n");
        assert_eq!(out("echo 'a-b-c' | sed 's/-/+/g'"), "a+b+c\n");
        assert_eq!(out("echo 'a-b-c' | sed 's/-/+/2'"), "a-b+c\n");
        assert_eq!(out("echo 'hello world' | sed 's/\\(hello\\) \\(world\\)/\\2 \\1/'"), "world hello\n");
        assert_eq!(out("echo 'hello world' | sed -E 's/(\\w+) (\\w+)/[\\2] & $1/'"), "[world] hello world $1\n");
        assert_eq!(out("echo 'Path' | sed 's|path|/usr/bin|I'"), "/usr/bin\n");
        assert_eq!(out("echo 'a.b' | sed 's/\\./\\//'"), "a/b\n");
        assert_eq!(out("sed -n 's/^g\\(.*\\)/G\\1/p' f.txt"), "Gamma\n");
        assert_eq!(out("sed '/beta/d; s/a$/A/' f.txt"), "alphA\ngammA\ndeltA\nepsilon\n");
        assert_eq!(out("printf 'no newline' | sed 's/no/a/'"), "a newline");
    }

    #[test]
    fn appends_inserts_and_changes_lines() {
        assert_eq!(out("sed '2a\\\nafter beta' f.txt | head -n 3"), "alpha\nbeta\nafter beta\n");
        assert_eq!(out("sed '1i first' f.txt | head -n 2"), "first\nalpha\n");
        assert_eq!(out("sed '2,4c replaced' f.txt"), "alpha\nreplaced\nepsilon\n");
    }

    #[test]
    fn edits_files_in_place() {
        let env = env();
        assert_eq!(sh(&env, "sed -i 's/alpha/ALPHA/' f.txt && head -n 1 f.txt").0, "ALPHA\n");
        assert_eq!(
            sh(&env, "sed -i.bak '1d' f.txt && head -n 1 f.txt f.txt.bak").0,
            "==> f.txt <==\nbeta\n\n==> f.txt.bak <==\nALPHA\n"
        );
        assert_eq!(sh(&env, "sed -i '' -e 's/beta/B/' f.txt && head -n 1 f.txt").0, "B\n");
    }

    #[test]
    fn reports_bad_scripts_and_missing_files() {
        assert_eq!(
            sh(&env(), "sed 'y/a/b/' f.txt").1,
            "sed: -e expression: unknown or unsupported command `y' (supported: p, d, s, q, =, a, i, c)\n"
        );
        assert_eq!(sh(&env(), "sed 's/a/b' f.txt").1, "sed: -e expression: unterminated `/'\n");
        assert_eq!(sh(&env(), "sed 's/(/x/' -E f.txt").2, 1);
        assert_eq!(sh(&env(), "sed p nope").2, 2);
    }
}
