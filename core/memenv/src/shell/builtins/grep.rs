//! `grep`: search files, directories (`-r`) or standard input, with GNU grep's output.

use openagent_core::glob::FileGlob;

use super::super::describe;
use super::pattern::translate;
use super::{Call, Flags};
use crate::fs::Kind;
use openagent_regex::{escape, Regex};

// Long options without a short form get private flag characters.
const INCLUDE: char = '\u{1}';
const EXCLUDE: char = '\u{2}';
const EXCLUDE_DIR: char = '\u{3}';

const LONG: &[(&str, char)] = &[
    ("ignore-case", 'i'),
    ("invert-match", 'v'),
    ("count", 'c'),
    ("line-number", 'n'),
    ("files-with-matches", 'l'),
    ("files-without-match", 'L'),
    ("recursive", 'r'),
    ("dereference-recursive", 'R'),
    ("with-filename", 'H'),
    ("no-filename", 'h'),
    ("quiet", 'q'),
    ("silent", 'q'),
    ("no-messages", 's'),
    ("extended-regexp", 'E'),
    ("fixed-strings", 'F'),
    ("basic-regexp", 'G'),
    ("word-regexp", 'w'),
    ("line-regexp", 'x'),
    ("only-matching", 'o'),
    ("regexp", 'e'),
    ("max-count", 'm'),
    ("after-context", 'A'),
    ("before-context", 'B'),
    ("context", 'C'),
    ("include", INCLUDE),
    ("exclude", EXCLUDE),
    ("exclude-dir", EXCLUDE_DIR),
];

/// How matches are reported.
struct Report {
    invert: bool,
    only: bool,
    number: bool,
    with_name: bool,
    before: usize,
    after: usize,
    max: Option<usize>,
    /// Counting, listing or quiet: only whether lines matched matters.
    summary: bool,
}

pub(super) fn grep(c: &mut Call) -> i32 {
    // Colour makes no sense without a terminal; accept and ignore it.
    let args: Vec<String> = c.args.iter().filter(|arg| !arg.starts_with("--colo")).cloned().collect();
    let values = format!("emABC{INCLUDE}{EXCLUDE}{EXCLUDE_DIR}");
    let Some(flags) = c.flags(&args, "ivcnlLrRHhqsEFGwxoI", &values, LONG) else { return 2 };
    let mut operands = flags.operands.clone();
    let patterns: Vec<String> = if flags.has('e') {
        flags.values('e').map(str::to_owned).collect()
    } else if operands.is_empty() {
        return c.fail_with(2, "usage: grep [OPTION]... PATTERNS [FILE]...");
    } else {
        vec![operands.remove(0)]
    };
    let regex = match build(&patterns, &flags) {
        Ok(regex) => regex,
        Err(message) => return c.fail_with(2, message),
    };
    let number = |flag: char| flags.value(flag).or(flags.value('C')).map_or(Ok(0), str::parse::<usize>);
    let (Ok(before), Ok(after)) = (number('B'), number('A')) else {
        return c.fail_with(2, "invalid context length argument");
    };
    let Ok(max) = flags.value('m').map(str::parse::<usize>).transpose() else {
        return c.fail_with(2, "invalid max count");
    };
    let recursive = flags.has('r') || flags.has('R');
    let implicit = operands.is_empty();
    if implicit {
        operands.push(if recursive { ".".into() } else { "-".into() });
    }
    let (inputs, searched_dir) = collect(c, &operands, &flags, recursive, implicit);
    let report = Report {
        invert: flags.has('v'),
        only: flags.has('o'),
        number: flags.has('n'),
        with_name: flags.has('H') || (!flags.has('h') && (inputs.len() > 1 || searched_dir)),
        before,
        after,
        max,
        summary: flags.has('c') || flags.has('l') || flags.has('L') || flags.has('q'),
    };
    let (mut matched, mut failed) = (false, false);
    for (name, content) in inputs {
        let bytes = match content {
            Ok(bytes) => bytes,
            Err(message) => {
                failed = true;
                if !flags.has('s') {
                    c.fail(message);
                }
                continue;
            }
        };
        let binary = bytes.contains(&0);
        let (count, found) = search(&String::from_utf8_lossy(&bytes), &name, &regex, &report);
        matched |= count > 0;
        if flags.has('q') {
            if matched {
                return 0;
            }
        } else if flags.has('l') {
            if count > 0 {
                c.out.out(format!("{name}\n"));
            }
        } else if flags.has('L') {
            if count == 0 {
                c.out.out(format!("{name}\n"));
            }
        } else if flags.has('c') {
            c.out.out(if report.with_name { format!("{name}:{count}\n") } else { format!("{count}\n") });
        } else if binary {
            if count > 0 {
                c.out.out(format!("Binary file {name} matches\n"));
            }
        } else {
            c.out.out(found);
        }
    }
    match (failed, matched) {
        (true, _) => 2,
        (false, true) => 0,
        (false, false) => 1,
    }
}

/// One regex for all the patterns, in the dialect the flags ask for.
fn build(patterns: &[String], flags: &Flags) -> Result<Regex, String> {
    let alternatives: Vec<String> = patterns
        .iter()
        .flat_map(|pattern| pattern.split('\n'))
        .map(|pattern| {
            let translated = if flags.has('F') { escape(pattern) } else { translate(pattern, flags.has('E')) };
            format!("(?:{translated})")
        })
        .collect();
    let mut joined = alternatives.join("|");
    if flags.has('w') {
        joined = format!(r"\b(?:{joined})\b");
    }
    if flags.has('x') {
        joined = format!("^(?:{joined})$");
    }
    Regex::new(&joined, flags.has('i')).map_err(|err| format!("invalid regular expression: {err}"))
}

/// An input's display name, and its content or the error to report.
type Input = (String, Result<Vec<u8>, String>);

/// The inputs named by the operands (directories expanded with `-r`). The flag says whether a
/// directory was searched.
fn collect(c: &mut Call, operands: &[String], flags: &Flags, recursive: bool, implicit: bool) -> (Vec<Input>, bool) {
    let globs = |flag| flags.values(flag).map(FileGlob::new).collect::<Vec<_>>();
    let (includes, excludes, excluded_dirs) = (globs(INCLUDE), globs(EXCLUDE), globs(EXCLUDE_DIR));
    let wanted = |name: &str| {
        (includes.is_empty() || includes.iter().any(|glob| glob.is_match(name)))
            && !excludes.iter().any(|glob| glob.is_match(name))
    };
    let excluded_dir = |dirs: &str| dirs.split('/').any(|dir| excluded_dirs.iter().any(|glob| glob.is_match(dir)));
    let (mut inputs, mut searched_dir) = (Vec::new(), false);
    for operand in operands {
        if operand == "-" {
            inputs.push(("(standard input)".to_owned(), Ok(std::mem::take(&mut c.stdin))));
            continue;
        }
        let tree = c.shell.tree();
        let found = c.shell.resolve(operand).and_then(|path| tree.get(&path).map(|node| (path.clone(), node)));
        let (path, node) = match found {
            Ok(found) => found,
            Err(err) => {
                inputs.push((operand.clone(), Err(format!("{operand}: {}", describe(&err)))));
                continue;
            }
        };
        if let Kind::File(content) = &node.kind {
            if wanted(operand.rsplit('/').next().unwrap_or(operand)) {
                inputs.push((operand.clone(), Ok(content.bytes().to_vec())));
            }
            continue;
        }
        if !recursive {
            inputs.push((operand.clone(), Err(format!("{operand}: Is a directory"))));
            continue;
        }
        searched_dir = true;
        for (rel, node, _) in tree.walk(&path, usize::MAX).unwrap_or_default() {
            let (dirs, name) = rel.rsplit_once('/').unwrap_or(("", &rel));
            let Kind::File(content) = &node.kind else { continue };
            if excluded_dir(dirs) || !wanted(name) {
                continue;
            }
            // `grep -r x` shows paths as found; `grep -r x dir` prefixes the operand.
            let shown = if implicit { rel.clone() } else { format!("{}/{rel}", operand.trim_end_matches('/')) };
            inputs.push((shown, Ok(content.bytes().to_vec())));
        }
    }
    (inputs, searched_dir)
}

/// Searches one input; returns the number of selected lines and the lines to print.
fn search(text: &str, name: &str, regex: &Regex, report: &Report) -> (usize, String) {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.is_empty() || text.ends_with('\n') {
        lines.pop();
    }
    // One line of output: `name:number:text`, with `-` instead of `:` around context lines.
    let print = |out: &mut String, number: usize, separator: char, text: &str| {
        if report.with_name {
            out.push_str(name);
            out.push(separator);
        }
        if report.number {
            out.push_str(&number.to_string());
            out.push(separator);
        }
        out.push_str(text);
        out.push('\n');
    };
    let (mut count, mut out, mut last_printed, mut after_left) = (0, String::new(), None::<usize>, 0);
    for (i, line) in lines.iter().enumerate() {
        if report.max.is_some_and(|max| count >= max) {
            break;
        }
        if regex.is_match(line) == report.invert {
            if after_left > 0 {
                print(&mut out, i + 1, '-', line);
                last_printed = Some(i);
                after_left -= 1;
            }
            continue;
        }
        count += 1;
        if report.summary {
            continue;
        }
        let from = last_printed.map_or(i.saturating_sub(report.before), |last| i.saturating_sub(report.before).max(last + 1));
        if report.before + report.after > 0 && last_printed.is_some_and(|last| from > last + 1) {
            out.push_str("--\n");
        }
        for (j, context) in lines.iter().enumerate().take(i).skip(from) {
            print(&mut out, j + 1, '-', context);
        }
        if report.only {
            for found in regex.find_iter(line).filter(|found| !found.is_empty() && !report.invert) {
                print(&mut out, i + 1, ':', found);
            }
        } else {
            print(&mut out, i + 1, ':', line);
        }
        last_printed = Some(i);
        after_left = report.after;
    }
    (count, out)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::super::{env_with, sh};
    use crate::MemoryEnvironment;

    fn project() -> MemoryEnvironment {
        let env = env_with(&[
            ("src/main.rs", "fn main() {\n    let total = add(1, 2);\n    println!(\"{total}\");\n}\n"),
            ("src/math.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n// TODO: subtract\n"),
            ("notes.md", "Remember the TODO list\ntodo: lower case\n"),
            ("target/debug/out.rs", "fn add() {}\n"),
        ]);
        env.write_bytes("logo.bin", b"add\0binary").unwrap();
        env
    }

    #[test]
    fn searches_files_with_line_numbers_and_names() {
        let env = project();
        assert_eq!(sh(&env, "grep add src/math.rs").0, "pub fn add(a: i32, b: i32) -> i32 {\n");
        assert_eq!(
            sh(&env, "grep -n add src/main.rs src/math.rs").0,
            "src/main.rs:2:    let total = add(1, 2);\nsrc/math.rs:1:pub fn add(a: i32, b: i32) -> i32 {\n"
        );
        assert_eq!(
            sh(&env, "grep -h -n add src/math.rs src/main.rs").0,
            "1:pub fn add(a: i32, b: i32) -> i32 {\n2:    let total = add(1, 2);\n"
        );
        assert_eq!(
            sh(&env, "grep -H total src/main.rs").0,
            "src/main.rs:    let total = add(1, 2);\nsrc/main.rs:    println!(\"{total}\");\n"
        );
        assert_eq!(sh(&env, "grep nothing src/main.rs"), (String::new(), String::new(), 1));
        assert_eq!(sh(&env, "grep x missing.rs"), (String::new(), "grep: missing.rs: No such file or directory\n".into(), 2));
        assert_eq!(sh(&env, "grep -s x missing.rs"), (String::new(), String::new(), 2));
        assert_eq!(sh(&env, "grep x src").1, "grep: src: Is a directory\n");
    }

    #[test]
    fn flags_change_matching_and_reporting() {
        let env = project();
        assert_eq!(sh(&env, "grep -i todo notes.md | wc -l").0, "2\n");
        assert_eq!(sh(&env, "grep -c -i todo notes.md").0, "2\n");
        assert_eq!(sh(&env, "grep -v TODO notes.md").0, "todo: lower case\n");
        assert_eq!(sh(&env, "grep -w add src/main.rs | wc -l").0, "1\n");
        assert_eq!(sh(&env, "grep -w ad src/main.rs").2, 1);
        assert_eq!(sh(&env, "grep -x '}' src/main.rs").0, "}\n");
        assert_eq!(sh(&env, "grep -o 'a[a-z]*' src/main.rs").0, "ain\nal\nadd\nal\n");
        assert_eq!(sh(&env, "grep -E 'add|sub' src/math.rs | wc -l").0, "2\n");
        assert_eq!(sh(&env, "grep 'add\\|sub' src/math.rs | wc -l").0, "2\n");
        assert_eq!(sh(&env, "grep 'add|sub' src/math.rs").2, 1, "| is literal in a basic expression");
        assert_eq!(sh(&env, "grep -F 'add(1,' src/main.rs").0, "    let total = add(1, 2);\n");
        assert_eq!(sh(&env, "grep -e fn -e TODO src/math.rs | wc -l").0, "2\n");
        assert_eq!(sh(&env, "grep -m 1 -i todo notes.md").0, "Remember the TODO list\n");
        assert_eq!(sh(&env, "grep -q add src/math.rs && echo found").0, "found\n");
        assert_eq!(sh(&env, "grep -l add src/main.rs src/math.rs notes.md").0, "src/main.rs\nsrc/math.rs\n");
        assert_eq!(sh(&env, "grep -L add src/main.rs notes.md").0, "notes.md\n");
        assert_eq!(sh(&env, "grep '(unclosed' -E notes.md").2, 2);
        assert_eq!(sh(&env, "grep --color=auto TODO notes.md").0, "Remember the TODO list\n");
    }

    #[test]
    fn recursive_search_filters_and_names_paths() {
        let env = project();
        assert_eq!(
            sh(&env, "grep -rn 'fn add'").0,
            "src/math.rs:1:pub fn add(a: i32, b: i32) -> i32 {\ntarget/debug/out.rs:1:fn add() {}\n"
        );
        assert_eq!(sh(&env, "grep -r 'fn add' .").0.lines().next(), Some("./src/math.rs:pub fn add(a: i32, b: i32) -> i32 {"));
        assert_eq!(sh(&env, "grep -rl add src/").0, "src/main.rs\nsrc/math.rs\n");
        assert_eq!(sh(&env, "grep -rl add --include='*.rs' --exclude-dir=target").0, "src/main.rs\nsrc/math.rs\n");
        assert_eq!(sh(&env, "grep -rl add --exclude=main.rs src").0, "src/math.rs\n");
        assert_eq!(sh(&env, "grep -r binary .").0, "Binary file ./logo.bin matches\n");
        assert_eq!(sh(&env, "grep -rc TODO --include=*.md").0, "notes.md:1\n");
    }

    #[test]
    fn reads_standard_input_and_prints_context() {
        let env = project();
        assert_eq!(sh(&env, "cat notes.md | grep -n lower").0, "2:todo: lower case\n");
        assert_eq!(sh(&env, "echo x | grep -H x").0, "(standard input):x\n");
        let text = "printf 'a\\nb\\nmatch1\\nc\\nd\\ne\\nmatch2\\nf\\n'";
        assert_eq!(sh(&env, &format!("{text} | grep -A1 match")).0, "match1\nc\n--\nmatch2\nf\n");
        assert_eq!(sh(&env, &format!("{text} | grep -n -B 1 match2")).0, "6-e\n7:match2\n");
        assert_eq!(sh(&env, &format!("{text} | grep -C 2 match1")).0, "a\nb\nmatch1\nc\nd\n");
        assert_eq!(sh(&env, &format!("{text} | grep -C 3 match")).0, "a\nb\nmatch1\nc\nd\ne\nmatch2\nf\n");
    }
}
