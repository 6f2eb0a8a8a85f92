//! The built-in shell's parser: command text to a syntax tree, following the POSIX shell grammar
//! for the parts the shell supports (see the module docs of [`super`]).

use std::cell::OnceCell;
use std::rc::Rc;

/// Commands separated by `;` or newlines.
pub(super) type List = Vec<AndOr>;

/// Pipelines joined by `&&` and `||`, evaluated left to right.
pub(super) struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(Connector, Pipeline)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Connector {
    And,
    Or,
}

pub(super) struct Pipeline {
    /// `! cmd` inverts the status.
    pub negated: bool,
    pub commands: Vec<Command>,
}

/// One simple command: `NAME=value ... word ... redirections`.
#[derive(Default)]
pub(super) struct Command {
    pub assignments: Vec<(String, Word)>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
}

pub(super) struct Redirect {
    pub fd: u32,
    pub op: RedirectOp,
}

pub(super) enum RedirectOp {
    Read(Word),
    Write(Word),
    Append(Word),
    /// `fd>&n`
    Duplicate(u32),
    /// The body is filled in when the parser reaches the end of the line holding `<<`.
    HereDoc(Rc<OnceCell<Word>>),
    HereString(Word),
}

/// A word before expansion: pieces that keep whether they were quoted, because quoting decides
/// field splitting and pathname expansion.
#[derive(Default)]
pub(super) struct Word(pub Vec<Part>);

pub(super) enum Part {
    Text { text: String, quoted: bool },
    Param { name: String, quoted: bool },
    Substitution { list: List, quoted: bool },
}

/// Words that start compound commands the shell does not have.
const RESERVED: &[&str] =
    &["if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "function", "select", "{", "}"];

const UNSUPPORTED_SYNTAX: &str = "the built-in shell runs simple commands joined by ;, &&, || and | \
     (no if/for/while/case, functions, subshells or { } groups); run the steps as separate commands \
     or combine them with && and ||";

struct PendingHereDoc {
    delimiter: String,
    strip_tabs: bool,
    expand: bool,
    body: Rc<OnceCell<Word>>,
}

/// How deeply `$(...)` may nest; deeper input is refused rather than risking the stack.
const MAX_NESTING: usize = 64;

struct Parser {
    chars: Vec<char>,
    pos: usize,
    pending: Vec<PendingHereDoc>,
    nesting: usize,
}

/// Parses a whole command line (or script). The error is a message for `sh: syntax error: ...`.
pub(super) fn parse(source: &str) -> Result<List, String> {
    Parser::new(source).parse_list(None)
}

fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn push_text(parts: &mut Vec<Part>, c: char, quoted: bool) {
    match parts.last_mut() {
        Some(Part::Text { text, quoted: q }) if *q == quoted => text.push(c),
        _ => parts.push(Part::Text { text: c.to_string(), quoted }),
    }
}

impl Parser {
    fn new(source: &str) -> Self {
        Parser { chars: source.chars().collect(), pos: 0, pending: Vec::new(), nesting: 0 }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek();
        self.pos += usize::from(c.is_some());
        c
    }

    fn eat(&mut self, token: &str) -> bool {
        let matches = token.chars().enumerate().all(|(i, c)| self.peek_at(i) == Some(c));
        if matches {
            self.pos += token.chars().count();
        }
        matches
    }

    /// Skips spaces, tabs, line continuations and comments.
    fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\r') => self.pos += 1,
                Some('\\') if self.peek_at(1) == Some('\n') => self.pos += 2,
                Some('#') => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    fn skip_blank_lines(&mut self) -> Result<(), String> {
        loop {
            self.skip_blanks();
            if self.peek() != Some('\n') {
                return Ok(());
            }
            self.newline()?;
        }
    }

    /// Consumes a newline token; here-document bodies start on the next line.
    fn newline(&mut self) -> Result<(), String> {
        self.bump();
        for doc in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            while self.peek().is_some() {
                let mut line = String::new();
                while let Some(c) = self.bump() {
                    if c == '\n' {
                        break;
                    }
                    line.push(c);
                }
                let line = if doc.strip_tabs { line.trim_start_matches('\t') } else { &line };
                if line == doc.delimiter {
                    break;
                }
                body.push_str(line);
                body.push('\n');
            }
            let word = if doc.expand {
                let mut parser = Parser::new(&body);
                let mut parts = Vec::new();
                parser.double_quoted(None, &mut parts)?;
                Word(parts)
            } else {
                Word(vec![Part::Text { text: body, quoted: true }])
            };
            let _ = doc.body.set(word);
        }
        Ok(())
    }

    fn unexpected(&self) -> String {
        match self.peek() {
            None => "unexpected end of input".into(),
            Some('\n') => "unexpected newline".into(),
            Some(c) => format!("unexpected `{c}`"),
        }
    }

    /// Commands up to the end of input, or up to `closing` (left for the caller to consume).
    fn parse_list(&mut self, closing: Option<char>) -> Result<List, String> {
        let mut list = Vec::new();
        loop {
            self.skip_blank_lines()?;
            match self.peek() {
                None if closing.is_some() => return Err("unexpected end of input: missing `)`".into()),
                None => return Ok(list),
                Some(c) if Some(c) == closing => return Ok(list),
                _ => {}
            }
            list.push(self.parse_and_or()?);
            self.skip_blanks();
            match self.peek() {
                Some(';') if self.peek_at(1) == Some(';') => return Err(format!("unexpected `;;`: {UNSUPPORTED_SYNTAX}")),
                Some(';') => self.pos += 1,
                Some('\n') => self.newline()?,
                Some('&') => return Err("background jobs (`&`) are not supported; run the command in the foreground".into()),
                Some(c) if Some(c) == closing => {}
                None => {}
                Some(_) => return Err(self.unexpected()),
            }
        }
    }

    fn parse_and_or(&mut self) -> Result<AndOr, String> {
        let first = self.parse_pipeline()?;
        let mut rest = Vec::new();
        loop {
            self.skip_blanks();
            let connector = if self.eat("&&") {
                Connector::And
            } else if self.eat("||") {
                Connector::Or
            } else {
                return Ok(AndOr { first, rest });
            };
            self.skip_blank_lines()?;
            rest.push((connector, self.parse_pipeline()?));
        }
    }

    fn parse_pipeline(&mut self) -> Result<Pipeline, String> {
        self.skip_blanks();
        let negated = self.peek() == Some('!') && matches!(self.peek_at(1), Some(' ' | '\t'));
        if negated {
            self.pos += 1;
        }
        let mut commands = vec![self.parse_command()?];
        loop {
            self.skip_blanks();
            if self.peek() != Some('|') || self.peek_at(1) == Some('|') {
                return Ok(Pipeline { negated, commands });
            }
            self.pos += 1;
            if self.eat("&") {
                // `a |& b` is `a 2>&1 | b`.
                if let Some(last) = commands.last_mut() {
                    last.redirects.push(Redirect { fd: 2, op: RedirectOp::Duplicate(1) });
                }
            }
            self.skip_blank_lines()?;
            commands.push(self.parse_command()?);
        }
    }

    fn parse_command(&mut self) -> Result<Command, String> {
        let mut command = Command::default();
        loop {
            self.skip_blanks();
            match self.peek() {
                None | Some(';' | '\n' | '|' | ')') => break,
                Some('&') if self.peek_at(1) != Some('>') => break,
                Some('(') => return Err(format!("unexpected `(`: {UNSUPPORTED_SYNTAX}")),
                Some('<' | '>' | '&') => {
                    let redirects = self.parse_redirect(None)?;
                    command.redirects.extend(redirects);
                    continue;
                }
                _ => {}
            }
            if let Some(fd) = self.fd_prefix() {
                let redirects = self.parse_redirect(Some(fd))?;
                command.redirects.extend(redirects);
                continue;
            }
            let word = self.parse_word()?;
            if !command.words.is_empty() {
                command.words.push(word);
                continue;
            }
            match assignment(word) {
                Ok(pair) => command.assignments.push(pair),
                Err(word) => command.words.push(reserved_check(word)?),
            }
        }
        if command.words.is_empty() && command.assignments.is_empty() && command.redirects.is_empty() {
            return Err(self.unexpected());
        }
        Ok(command)
    }

    /// Digits directly followed by `<` or `>` name a file descriptor (`2>`).
    fn fd_prefix(&mut self) -> Option<u32> {
        let digits = self.chars[self.pos..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 || !matches!(self.peek_at(digits), Some('<' | '>')) {
            return None;
        }
        let fd: String = self.chars[self.pos..self.pos + digits].iter().collect();
        self.pos += digits;
        fd.parse().ok()
    }

    fn parse_redirect(&mut self, fd: Option<u32>) -> Result<Vec<Redirect>, String> {
        let at = |default: u32| fd.unwrap_or(default);
        if self.eat("&>>") {
            let target = self.redirect_target("&>>")?;
            return Ok(vec![
                Redirect { fd: 1, op: RedirectOp::Append(target) },
                Redirect { fd: 2, op: RedirectOp::Duplicate(1) },
            ]);
        }
        if self.eat("&>") {
            let target = self.redirect_target("&>")?;
            return Ok(vec![Redirect { fd: 1, op: RedirectOp::Write(target) }, Redirect { fd: 2, op: RedirectOp::Duplicate(1) }]);
        }
        let op = if self.eat(">>") {
            RedirectOp::Append(self.redirect_target(">>")?)
        } else if self.eat(">&") {
            let start = self.pos;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
            let digits: String = self.chars[start..self.pos].iter().collect();
            let target = digits.parse().map_err(|_| "only `N>&M` duplications of file descriptors are supported".to_owned())?;
            RedirectOp::Duplicate(target)
        } else if self.eat(">|") || self.eat(">") {
            RedirectOp::Write(self.redirect_target(">")?)
        } else if self.eat("<<<") {
            RedirectOp::HereString(self.redirect_target("<<<")?)
        } else if self.eat("<<") {
            let strip_tabs = self.eat("-");
            let word = self.redirect_target("<<")?;
            let body = Rc::new(OnceCell::new());
            let (delimiter, expand) = heredoc_delimiter(&word)?;
            self.pending.push(PendingHereDoc { delimiter, strip_tabs, expand, body: body.clone() });
            RedirectOp::HereDoc(body)
        } else if self.eat("<") && !matches!(self.peek(), Some('&' | '>')) {
            RedirectOp::Read(self.redirect_target("<")?)
        } else {
            return Err(format!("{}: only <, >, >>, 2>, 2>&1, &>, << and <<< redirections are supported", self.unexpected()));
        };
        let default_fd =
            if matches!(op, RedirectOp::Read(_) | RedirectOp::HereDoc(_) | RedirectOp::HereString(_)) { 0 } else { 1 };
        Ok(vec![Redirect { fd: at(default_fd), op }])
    }

    fn redirect_target(&mut self, operator: &str) -> Result<Word, String> {
        self.skip_blanks();
        let word = self.parse_word()?;
        if word.0.is_empty() {
            return Err(format!("{} after `{operator}`: expected a file name", self.unexpected()));
        }
        Ok(word)
    }

    /// A word: everything up to an unquoted blank or operator.
    fn parse_word(&mut self) -> Result<Word, String> {
        let mut parts = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')' => break,
                '\'' => {
                    self.pos += 1;
                    let mut text = String::new();
                    loop {
                        match self.bump() {
                            Some('\'') => break,
                            Some(c) => text.push(c),
                            None => return Err("unexpected end of input: unterminated single quote".into()),
                        }
                    }
                    parts.push(Part::Text { text, quoted: true });
                }
                '"' => {
                    self.pos += 1;
                    // An empty "" still makes a (quoted, empty) word.
                    parts.push(Part::Text { text: String::new(), quoted: true });
                    self.double_quoted(Some('"'), &mut parts)?;
                }
                '\\' => {
                    self.pos += 1;
                    match self.bump() {
                        Some('\n') => {}
                        Some(c) => push_text(&mut parts, c, true),
                        None => push_text(&mut parts, '\\', false),
                    }
                }
                '$' => self.dollar(false, &mut parts)?,
                '`' => self.backtick(false, &mut parts)?,
                '~' if parts.is_empty()
                    && matches!(self.peek_at(1), None | Some('/' | ' ' | '\t' | '\n' | ';' | '|' | '&' | ')')) =>
                {
                    self.pos += 1;
                    parts.push(Part::Param { name: "HOME".into(), quoted: true });
                }
                _ => {
                    self.pos += 1;
                    push_text(&mut parts, c, false);
                }
            }
        }
        Ok(Word(parts))
    }

    /// The inside of double quotes (up to `terminator`), or a whole here-document body (`None`).
    fn double_quoted(&mut self, terminator: Option<char>, parts: &mut Vec<Part>) -> Result<(), String> {
        loop {
            match self.peek() {
                None if terminator.is_some() => return Err("unexpected end of input: unterminated double quote".into()),
                None => return Ok(()),
                Some(c) if Some(c) == terminator => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some('\n') => self.pos += 1,
                        Some(c @ ('$' | '`' | '\\')) => {
                            self.pos += 1;
                            push_text(parts, c, true);
                        }
                        Some('"') if terminator == Some('"') => {
                            self.pos += 1;
                            push_text(parts, '"', true);
                        }
                        _ => push_text(parts, '\\', true),
                    }
                }
                Some('$') => self.dollar(true, parts)?,
                Some('`') => self.backtick(true, parts)?,
                Some(c) => {
                    self.pos += 1;
                    push_text(parts, c, true);
                }
            }
        }
    }

    /// `$NAME`, `${NAME}`, `$?`, `$(...)`, `$'...'`, or a lone `$`.
    fn dollar(&mut self, quoted: bool, parts: &mut Vec<Part>) -> Result<(), String> {
        self.pos += 1;
        match self.peek() {
            Some('(') if self.peek_at(1) == Some('(') => Err("arithmetic expansion $(( )) is not supported".into()),
            Some('(') => {
                self.pos += 1;
                self.nesting += 1;
                if self.nesting > MAX_NESTING {
                    return Err(format!("command substitutions nest more than {MAX_NESTING} deep"));
                }
                let list = self.parse_list(Some(')'))?;
                self.nesting -= 1;
                self.pos += 1;
                parts.push(Part::Substitution { list, quoted });
                Ok(())
            }
            Some('{') => {
                self.pos += 1;
                let mut name = String::new();
                loop {
                    match self.bump() {
                        Some('}') => break,
                        Some(c) => name.push(c),
                        None => return Err("unexpected end of input: missing `}`".into()),
                    }
                }
                let special = name.len() == 1 && "?$#@*!0123456789".contains(name.as_str());
                if !is_name(&name) && !special {
                    return Err(format!("${{{name}}}: only ${{NAME}} parameter expansion is supported"));
                }
                parts.push(Part::Param { name, quoted });
                Ok(())
            }
            Some(c @ ('?' | '$' | '#' | '@' | '*' | '!' | '0'..='9')) => {
                self.pos += 1;
                parts.push(Part::Param { name: c.to_string(), quoted });
                Ok(())
            }
            Some('\'') if !quoted => {
                self.pos += 1;
                let mut raw = String::new();
                loop {
                    match self.bump() {
                        Some('\'') => break,
                        Some('\\') => {
                            raw.push('\\');
                            raw.extend(self.bump());
                        }
                        Some(c) => raw.push(c),
                        None => return Err("unexpected end of input: unterminated $'...'".into()),
                    }
                }
                parts.push(Part::Text { text: super::escapes::unescape(&raw).0, quoted: true });
                Ok(())
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let mut name = String::new();
                while let Some(c) = self.peek().filter(|c| c.is_ascii_alphanumeric() || *c == '_') {
                    name.push(c);
                    self.pos += 1;
                }
                parts.push(Part::Param { name, quoted });
                Ok(())
            }
            _ => {
                push_text(parts, '$', quoted);
                Ok(())
            }
        }
    }

    /// `` `command` ``: the older spelling of `$(command)`.
    fn backtick(&mut self, quoted: bool, parts: &mut Vec<Part>) -> Result<(), String> {
        self.pos += 1;
        let mut inner = String::new();
        loop {
            match self.bump() {
                Some('`') => break,
                Some('\\') if matches!(self.peek(), Some('`' | '\\' | '$')) => inner.extend(self.bump()),
                Some(c) => inner.push(c),
                None => return Err("unexpected end of input: unterminated backquote".into()),
            }
        }
        parts.push(Part::Substitution { list: parse(&inner)?, quoted });
        Ok(())
    }
}

/// Splits `NAME=value` off a command's leading word; gives the word back when it is not one.
fn assignment(word: Word) -> Result<(String, Word), Word> {
    let Word(mut parts) = word;
    let Some(Part::Text { text, quoted: false }) = parts.first() else { return Err(Word(parts)) };
    let Some((name, value)) = text.split_once('=').filter(|(name, _)| is_name(name)) else {
        return Err(Word(parts));
    };
    let (name, value) = (name.to_owned(), value.to_owned());
    parts[0] = Part::Text { text: value, quoted: false };
    Ok((name, Word(parts)))
}

fn reserved_check(word: Word) -> Result<Word, String> {
    if let [Part::Text { text, quoted: false }] = word.0.as_slice() {
        if RESERVED.contains(&text.as_str()) {
            return Err(format!("`{text}` is not supported: {UNSUPPORTED_SYNTAX}"));
        }
        if text == "[[" {
            return Err("`[[ ... ]]` is not supported; use `[ ... ]` (test) instead".into());
        }
    }
    Ok(word)
}

/// A here-document delimiter is plain text; quoting any of it turns expansion off in the body.
fn heredoc_delimiter(word: &Word) -> Result<(String, bool), String> {
    let mut delimiter = String::new();
    let mut expand = true;
    for part in &word.0 {
        match part {
            Part::Text { text, quoted } => {
                delimiter.push_str(text);
                expand &= !quoted;
            }
            _ => return Err("a here-document delimiter must be a plain word".into()),
        }
    }
    Ok((delimiter, expand))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn text(word: &Word) -> String {
        word.0
            .iter()
            .map(|part| match part {
                Part::Text { text, quoted: false } => text.clone(),
                Part::Text { text, quoted: true } => format!("'{text}'"),
                Part::Param { name, .. } => format!("${name}"),
                Part::Substitution { .. } => "$(...)".into(),
            })
            .collect()
    }

    fn only_command(source: &str) -> Command {
        let mut list = parse(source).unwrap();
        assert_eq!(list.len(), 1);
        let item = list.remove(0);
        assert!(item.rest.is_empty());
        let mut pipeline = item.first;
        assert_eq!(pipeline.commands.len(), 1);
        pipeline.commands.remove(0)
    }

    #[test]
    fn splits_assignments_words_and_redirections() {
        let command = only_command("A=1 B=\"x y\" cmd a\"b\"'c' 2>&1 >out 12abc a2>f");
        let assigned: Vec<(String, String)> =
            command.assignments.iter().map(|(name, value)| (name.clone(), text(value))).collect();
        assert_eq!(assigned, [("A".to_owned(), "1".to_owned()), ("B".to_owned(), "'x y'".to_owned())]);
        let words: Vec<String> = command.words.iter().map(text).collect();
        assert_eq!(words, ["cmd", "a'b''c'", "12abc", "a2"]);
        let fds: Vec<(u32, &str)> = command
            .redirects
            .iter()
            .map(|redirect| {
                let kind = match redirect.op {
                    RedirectOp::Duplicate(1) => "dup1",
                    RedirectOp::Write(_) => "write",
                    _ => "other",
                };
                (redirect.fd, kind)
            })
            .collect();
        assert_eq!(fds, [(2, "dup1"), (1, "write"), (1, "write")]);
    }

    #[test]
    fn builds_lists_of_and_or_pipelines() {
        let list = parse("a | b && ! c || d; e\nf").unwrap();
        assert_eq!(list.len(), 3);
        assert_eq!(list[0].first.commands.len(), 2);
        let connectors: Vec<Connector> = list[0].rest.iter().map(|(connector, _)| *connector).collect();
        assert!(connectors == [Connector::And, Connector::Or]);
        assert!(list[0].rest[0].1.negated);
        assert!(parse("").unwrap().is_empty());
        assert!(parse("  # only a comment\n\n").unwrap().is_empty());
    }

    #[test]
    fn reads_here_document_bodies_after_the_line() {
        let command = only_command("cat <<EOF\nline $X\nEOF");
        let RedirectOp::HereDoc(body) = &command.redirects[0].op else { panic!("not a here-document") };
        assert_eq!(text(body.get().unwrap()), "'line '$X'\n'");
        assert_eq!(parse("cat <<EOF").map(|list| list.len()), Ok(1), "an unterminated here-document is empty");
    }

    #[test]
    fn rejects_what_it_does_not_support() {
        for source in
            ["while true; do x; done", "{ echo; }", "a &", "a ;; b", "echo $((2))", "x=(1 2)", "cat <&3", "echo `unterminated"]
        {
            assert!(parse(source).is_err(), "{source}");
        }
    }
}
