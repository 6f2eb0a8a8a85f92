//! Builtins that filter text: head, tail, wc, sort, uniq, cut, tr, basename, dirname.

use std::cmp::Ordering;

use super::super::escapes::unescape;
use super::{lines, Call};
use openagent_core::llm::sort::sorted_order;

/// Which part of the input `head`/`tail` keep.
enum Span {
    First(usize),
    AllButLast(usize),
    Last(usize),
    /// From the nth unit on (1-based), `tail -n +N`.
    From(usize),
}

pub(super) fn head(c: &mut Call) -> i32 {
    head_tail(c, true)
}

pub(super) fn tail(c: &mut Call) -> i32 {
    head_tail(c, false)
}

fn head_tail(c: &mut Call, head: bool) -> i32 {
    // `-5` is `-n 5`, unless it is the value of `-n` or `-c` (`head -n -5`).
    let mut args: Vec<String> = Vec::new();
    for arg in c.args {
        let value_of_previous = args.last().is_some_and(|previous| matches!(previous.as_str(), "-n" | "-c"));
        match arg.strip_prefix('-') {
            Some(digits) if !value_of_previous && !digits.is_empty() && digits.chars().all(|d| d.is_ascii_digit()) => {
                args.push(format!("-n{digits}"));
            }
            _ => args.push(arg.clone()),
        }
    }
    let long = [("lines", 'n'), ("bytes", 'c'), ("quiet", 'q'), ("silent", 'q'), ("verbose", 'v'), ("follow", 'f')];
    let Some(flags) = c.flags(&args, "qvf", "nc", &long) else { return 1 };
    if flags.has('f') {
        return c.fail("-f: following a file is not supported in the built-in shell");
    }
    let (count, bytes) = match (flags.value('c'), flags.value('n')) {
        (Some(count), _) => (count.to_owned(), true),
        (None, Some(count)) => (count.to_owned(), false),
        (None, None) => ("10".to_owned(), false),
    };
    let (sign, digits) = match count.strip_prefix(['+', '-']) {
        Some(digits) => (count.chars().next(), digits),
        None => (None, count.as_str()),
    };
    let Ok(n) = digits.parse::<usize>() else {
        return c.fail(format!("invalid number of {}: '{count}'", if bytes { "bytes" } else { "lines" }));
    };
    let span = match (head, sign) {
        (true, Some('-')) => Span::AllButLast(n),
        (true, _) => Span::First(n),
        (false, Some('+')) => Span::From(n),
        (false, _) => Span::Last(n),
    };
    let (inputs, failed) = c.inputs(&flags.operands);
    let headers = flags.has('v') || (flags.operands.len() > 1 && !flags.has('q'));
    for (i, (name, data)) in inputs.iter().enumerate() {
        if headers {
            let name = if name == "-" { "standard input" } else { name };
            c.out.out(format!("{}==> {name} <==\n", if i > 0 { "\n" } else { "" }));
        }
        let len = if bytes { data.len() } else { lines(data).count() };
        let range = match span {
            Span::First(n) => 0..n.min(len),
            Span::AllButLast(n) => 0..len.saturating_sub(n),
            Span::Last(n) => len.saturating_sub(n)..len,
            Span::From(n) => n.saturating_sub(1).min(len)..len,
        };
        // Where the nth byte or line starts.
        let offset = |n: usize| if bytes { n } else { lines(data).take(n).map(<[u8]>::len).sum() };
        c.out.out(&data[offset(range.start)..offset(range.end)]);
    }
    i32::from(failed)
}

pub(super) fn wc(c: &mut Call) -> i32 {
    let long = [("lines", 'l'), ("words", 'w'), ("bytes", 'c'), ("chars", 'm')];
    let Some(flags) = c.flags(c.args, "lwcm", "", &long) else { return 1 };
    let mut columns: Vec<char> = ['l', 'w', 'm', 'c'].into_iter().filter(|column| flags.has(*column)).collect();
    if columns.is_empty() {
        columns = vec!['l', 'w', 'c'];
    }
    let (inputs, failed) = c.inputs(&flags.operands);
    let count = |data: &[u8], column: char| -> u64 {
        let n = match column {
            'l' => data.iter().filter(|b| **b == b'\n').count(),
            'w' => String::from_utf8_lossy(data).split_whitespace().count(),
            'm' => String::from_utf8_lossy(data).chars().count(),
            _ => data.len(),
        };
        n as u64
    };
    let mut rows: Vec<(Vec<u64>, Option<String>)> = inputs
        .iter()
        .map(|(name, data)| {
            (columns.iter().map(|column| count(data, *column)).collect(), (!flags.operands.is_empty()).then(|| name.clone()))
        })
        .collect();
    let total_bytes: usize = inputs.iter().map(|(_, data)| data.len()).sum();
    if rows.len() > 1 {
        let totals = (0..columns.len()).map(|i| rows.iter().map(|(counts, _)| counts[i]).sum()).collect();
        rows.push((totals, Some("total".to_owned())));
    }
    // GNU's widths: none for a single number, 7 for standard input, else the digits of the total size.
    let width = match (columns.len() == 1 && rows.len() == 1, flags.operands.is_empty()) {
        (true, _) => 1,
        (false, true) => 7,
        (false, false) => total_bytes.to_string().len(),
    };
    let mut text = String::new();
    for (counts, name) in rows {
        let numbers: Vec<String> = counts.iter().map(|n| format!("{n:>width$}")).collect();
        text.push_str(&numbers.join(" "));
        if let Some(name) = name {
            text.push(' ');
            text.push_str(&name);
        }
        text.push('\n');
    }
    c.out.out(text);
    i32::from(failed)
}

/// Compares the leading numbers of two sort keys as `sort -n` does (text without one counts as
/// zero), on the digits themselves: no floating point, and no precision limit.
fn compare_numbers(a: &str, b: &str) -> Ordering {
    /// (negative, integer digits without leading zeros, fraction digits without trailing zeros)
    fn number(key: &str) -> (bool, &str, &str) {
        let key = key.trim_start();
        let (negative, rest) = match key.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, key),
        };
        let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let int = rest[..int_len].trim_start_matches('0');
        let fraction = rest[int_len..].strip_prefix('.').unwrap_or("");
        let fraction = fraction[..fraction.bytes().take_while(u8::is_ascii_digit).count()].trim_end_matches('0');
        (negative && !(int.is_empty() && fraction.is_empty()), int, fraction)
    }
    let ((a_negative, a_int, a_fraction), (b_negative, b_int, b_fraction)) = (number(a), number(b));
    let magnitude = a_int.len().cmp(&b_int.len()).then_with(|| a_int.cmp(b_int)).then_with(|| a_fraction.cmp(b_fraction));
    match (a_negative, b_negative) {
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
    }
}

pub(super) fn sort(c: &mut Call) -> i32 {
    let long = [
        ("reverse", 'r'),
        ("numeric-sort", 'n'),
        ("unique", 'u'),
        ("ignore-case", 'f'),
        ("key", 'k'),
        ("field-separator", 't'),
        ("output", 'o'),
    ];
    let Some(flags) = c.flags(c.args, "rnufbs", "kto", &long) else { return 2 };
    let (mut numeric, mut reverse) = (flags.has('n'), flags.has('r'));
    // `-k 2`, `-k 2,3`, `-k2n`: fields counted from 1, letters set options for the key.
    let mut key_fields = None;
    if let Some(spec) = flags.value('k') {
        numeric |= spec.contains('n');
        reverse |= spec.contains('r');
        let spec: String = spec.chars().filter(|c| c.is_ascii_digit() || *c == ',').collect();
        let mut bounds = spec.split(',').map(|n| n.parse::<usize>().ok().filter(|n| *n > 0));
        match (bounds.next().flatten(), bounds.next()) {
            (Some(start), None) => key_fields = Some((start, usize::MAX)),
            (Some(start), Some(Some(end))) => key_fields = Some((start, end)),
            _ => return c.fail_with(2, format!("invalid key '{}'", flags.value('k').unwrap_or_default())),
        }
    }
    let separator = flags.value('t').and_then(|t| t.chars().next());
    let (text, failed) = c.text_inputs(&flags.operands);
    let key = |line: &str| -> String {
        let line = if flags.has('b') { line.trim_start() } else { line };
        let Some((start, end)) = key_fields else { return line.to_owned() };
        let fields: Vec<&str> = match separator {
            Some(sep) => line.split(sep).collect(),
            None => line.split_whitespace().collect(),
        };
        let glue = separator.map_or(" ".to_owned(), String::from);
        fields.get(start - 1..end.min(fields.len())).map_or(String::new(), |fields| fields.join(&glue))
    };
    let compare = |a: &str, b: &str| -> Ordering {
        let (a, b) = (key(a), key(b));
        if numeric {
            compare_numbers(&a, &b)
        } else if flags.has('f') {
            a.to_ascii_lowercase().cmp(&b.to_ascii_lowercase())
        } else {
            a.cmp(&b)
        }
    };
    let lines: Vec<&str> = text.lines().collect();
    let order = sorted_order(lines.len(), &|a, b| {
        let (a, b) = (lines[a], lines[b]);
        // Equal keys fall back to the whole line, as GNU sort does without -s or -u.
        let order = compare(a, b);
        let order = if order == Ordering::Equal && !flags.has('u') && !flags.has('s') { a.cmp(b) } else { order };
        if reverse {
            order.reverse()
        } else {
            order
        }
    });
    let mut sorted = String::new();
    let mut kept: Option<&str> = None;
    for line in order.into_iter().map(|i| lines[i]) {
        // `-u` keeps the first of each run of equal keys.
        if flags.has('u') && kept.is_some_and(|kept| compare(kept, line) == Ordering::Equal) {
            continue;
        }
        kept = Some(line);
        sorted.push_str(line);
        sorted.push('\n');
    }
    match flags.value('o') {
        Some(file) => {
            let now = c.shell.now();
            let written = c.shell.resolve(file).and_then(|path| c.shell.tree().write(&path, sorted.into_bytes(), now, false));
            if let Err(err) = written {
                return c.fail_with(2, format!("{file}: {}", super::super::describe(&err)));
            }
        }
        None => c.out.out(sorted),
    }
    if failed {
        2
    } else {
        0
    }
}

pub(super) fn uniq(c: &mut Call) -> i32 {
    let long = [("count", 'c'), ("repeated", 'd'), ("unique", 'u'), ("ignore-case", 'i')];
    let Some(flags) = c.flags(c.args, "cdui", "", &long) else { return 1 };
    if flags.operands.len() > 1 {
        return c.fail("writing to an output file is not supported; redirect with > instead");
    }
    let (text, failed) = c.text_inputs(&flags.operands);
    let same = |a: &str, b: &str| if flags.has('i') { a.eq_ignore_ascii_case(b) } else { a == b };
    let mut groups: Vec<(usize, &str)> = Vec::new();
    for line in text.lines() {
        match groups.last_mut() {
            Some((count, first)) if same(first, line) => *count += 1,
            _ => groups.push((1, line)),
        }
    }
    let mut out = String::new();
    for (count, line) in groups {
        if (flags.has('d') && count < 2) || (flags.has('u') && count > 1) {
            continue;
        }
        if flags.has('c') {
            out.push_str(&format!("{count:>7} "));
        }
        out.push_str(line);
        out.push('\n');
    }
    c.out.out(out);
    i32::from(failed)
}

/// Positions picked by a `cut` list such as `1,3-5,7-` (1-based, ranges inclusive); `None`
/// when the list is invalid.
fn positions(list: &str) -> Option<Vec<(usize, usize)>> {
    let number = |text: &str, default: usize| match text {
        "" => Some(default),
        _ => text.parse::<usize>().ok().filter(|n| *n > 0),
    };
    let mut spans = Vec::new();
    for item in list.split(',') {
        spans.push(match item.split_once('-') {
            Some(("", "")) => return None,
            Some((from, to)) => (number(from, 1)?, number(to, usize::MAX)?),
            None => {
                let n = number(item, 0).filter(|n| *n > 0)?;
                (n, n)
            }
        });
    }
    Some(spans)
}

pub(super) fn cut(c: &mut Call) -> i32 {
    let long = [("delimiter", 'd'), ("fields", 'f'), ("characters", 'c'), ("bytes", 'b'), ("only-delimited", 's')];
    let Some(flags) = c.flags(c.args, "s", "dfcb", &long) else { return 1 };
    let (list, by_field) = match (flags.value('f'), flags.value('c').or(flags.value('b'))) {
        (Some(list), None) => (list, true),
        (None, Some(list)) => (list, false),
        _ => return c.fail("you must specify one list of fields (-f) or characters (-c)"),
    };
    let Some(spans) = positions(list) else { return c.fail(format!("invalid field list '{list}'")) };
    let delimiter = match flags.value('d').map(|d| d.chars().collect::<Vec<_>>()).as_deref() {
        None => '\t',
        Some([d]) => *d,
        Some(_) => return c.fail("the delimiter must be a single character"),
    };
    let picked = |index: usize| spans.iter().any(|(from, to)| (*from..=*to).contains(&(index + 1)));
    let (inputs, failed) = c.inputs(&flags.operands);
    let mut out = String::new();
    for (_, data) in &inputs {
        for line in String::from_utf8_lossy(data).lines() {
            if !by_field {
                out.extend(line.chars().enumerate().filter(|(i, _)| picked(*i)).map(|(_, c)| c));
            } else if !line.contains(delimiter) {
                // A line without the delimiter passes whole, unless -s.
                if flags.has('s') {
                    continue;
                }
                out.push_str(line);
            } else {
                let fields: Vec<&str> = line.split(delimiter).enumerate().filter(|(i, _)| picked(*i)).map(|(_, f)| f).collect();
                out.push_str(&fields.join(&delimiter.to_string()));
            }
            out.push('\n');
        }
    }
    c.out.out(out);
    i32::from(failed)
}

/// A `tr` set with escapes, ranges (`a-z`) and classes (`[:upper:]`) spelled out.
fn char_set(spec: &str) -> Result<Vec<char>, String> {
    let (text, _) = unescape(spec);
    let chars: Vec<char> = text.chars().collect();
    let mut set = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '[' && chars.get(i + 1) == Some(&':') {
            let rest: String = chars[i..].iter().collect();
            let Some(end) = rest.find(":]") else { return Err(format!("unterminated class in '{spec}'")) };
            let class = &rest[2..end];
            let members: fn(&char) -> bool = match class {
                "lower" => char::is_ascii_lowercase,
                "upper" => char::is_ascii_uppercase,
                "digit" => char::is_ascii_digit,
                "alpha" => char::is_ascii_alphabetic,
                "alnum" => char::is_ascii_alphanumeric,
                "space" => char::is_ascii_whitespace,
                "punct" => char::is_ascii_punctuation,
                _ => return Err(format!("invalid character class '{class}'")),
            };
            set.extend((0u8..128).map(char::from).filter(members));
            i += rest[..end + 2].chars().count();
        } else if chars.get(i + 1) == Some(&'-') && i + 2 < chars.len() {
            let (from, to) = (chars[i], chars[i + 2]);
            if from > to {
                return Err(format!("range-endpoints of '{from}-{to}' are in reverse collating sequence order"));
            }
            set.extend(from..=to);
            i += 3;
        } else {
            set.push(chars[i]);
            i += 1;
        }
    }
    Ok(set)
}

pub(super) fn tr(c: &mut Call) -> i32 {
    let long = [("delete", 'd'), ("squeeze-repeats", 's'), ("complement", 'c')];
    let Some(flags) = c.flags(c.args, "dscC", "", &long) else { return 1 };
    let (delete, squeeze, complement) = (flags.has('d'), flags.has('s'), flags.has('c') || flags.has('C'));
    let mut sets = Vec::new();
    for spec in &flags.operands {
        match char_set(spec) {
            Ok(set) => sets.push(set),
            Err(message) => return c.fail(message),
        }
    }
    let (first, second) = match (sets.as_slice(), delete || squeeze) {
        ([first], true) => (first.clone(), Vec::new()),
        ([first, second], _) if !second.is_empty() || delete => (first.clone(), second.clone()),
        ([], _) => return c.fail("missing operand"),
        ([_], false) => return c.fail(format!("missing operand after '{}'", flags.operands[0])),
        _ => return c.fail("extra operand, or an empty second set"),
    };
    if complement && !delete && !second.is_empty() {
        return c.fail("-c is only supported with -d or -s");
    }
    let in_first = |ch: char| first.contains(&ch) != complement;
    // -s squeezes runs from the last set given: the second when there is one.
    let squeezes = |ch: char| squeeze && if second.is_empty() { in_first(ch) } else { second.contains(&ch) };
    let text = String::from_utf8_lossy(&c.stdin).into_owned();
    let mut out = String::new();
    for ch in text.chars() {
        let mapped = match first.iter().position(|member| *member == ch) {
            _ if delete && in_first(ch) => continue,
            Some(i) if !delete && !second.is_empty() => second[i.min(second.len() - 1)],
            _ => ch,
        };
        if !(squeezes(mapped) && out.ends_with(mapped)) {
            out.push(mapped);
        }
    }
    c.out.out(out);
    0
}

pub(super) fn basename(c: &mut Call) -> i32 {
    let Some(flags) = c.flags(c.args, "a", "s", &[("multiple", 'a'), ("suffix", 's')]) else { return 1 };
    let (names, suffix) = match (flags.has('a') || flags.has('s'), flags.operands.as_slice()) {
        (_, []) => return c.fail("missing operand"),
        (true, names) => (names, flags.value('s')),
        (false, [name]) => (std::slice::from_ref(name), None),
        (false, [name, suffix]) => (std::slice::from_ref(name), Some(suffix.as_str())),
        (false, [_, _, extra, ..]) => return c.fail(format!("extra operand '{extra}'")),
    };
    let mut text = String::new();
    for name in names {
        let trimmed = name.trim_end_matches('/');
        let base = match trimmed.rsplit('/').next() {
            _ if trimmed.is_empty() && !name.is_empty() => "/",
            Some(base) => base,
            None => "",
        };
        let base = suffix.filter(|suffix| base != *suffix).and_then(|suffix| base.strip_suffix(suffix)).unwrap_or(base);
        text.push_str(base);
        text.push('\n');
    }
    c.out.out(text);
    0
}

pub(super) fn dirname(c: &mut Call) -> i32 {
    if c.args.is_empty() {
        return c.fail("missing operand");
    }
    let mut text = String::new();
    for name in c.args {
        let trimmed = name.trim_end_matches('/');
        let dir = match trimmed.rfind('/') {
            _ if trimmed.is_empty() && name.starts_with('/') => "/",
            None => ".",
            Some(i) => match trimmed[..i].trim_end_matches('/') {
                "" => "/",
                dir => dir,
            },
        };
        text.push_str(dir);
        text.push('\n');
    }
    c.out.out(text);
    0
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::super::{env_with, sh};

    fn out(command: &str) -> String {
        sh(&env_with(&[("n.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n")]), command).0
    }

    #[test]
    fn head_and_tail_take_lines_or_bytes() {
        assert_eq!(out("head n.txt | wc -l"), "10\n");
        assert_eq!(out("head -n 2 n.txt"), "1\n2\n");
        assert_eq!(out("head -3 n.txt"), "1\n2\n3\n");
        assert_eq!(out("head -n -10 n.txt"), "1\n2\n");
        assert_eq!(out("head -c 3 n.txt"), "1\n2");
        assert_eq!(out("tail -n 2 n.txt"), "11\n12\n");
        assert_eq!(out("tail -2 n.txt"), "11\n12\n");
        assert_eq!(out("tail -n +11 n.txt"), "11\n12\n");
        assert_eq!(out("tail -c 3 n.txt"), "12\n");
        assert_eq!(out("cat n.txt | tail -n 1"), "12\n");
        assert_eq!(out("head -n 1 n.txt n.txt"), "==> n.txt <==\n1\n\n==> n.txt <==\n1\n");
        assert_eq!(sh(&env_with(&[]), "head -n x").1, "head: invalid number of lines: 'x'\n");
        assert_eq!(sh(&env_with(&[]), "tail -f log").2, 1);
    }

    #[test]
    fn wc_counts_lines_words_and_bytes() {
        let env = env_with(&[("a.txt", "one two\nthree\n"), ("b.txt", "x\n")]);
        assert_eq!(sh(&env, "wc -l a.txt").0, "2 a.txt\n");
        assert_eq!(sh(&env, "wc a.txt").0, " 2  3 14 a.txt\n");
        assert_eq!(sh(&env, "wc -w < a.txt").0, "3\n");
        assert_eq!(sh(&env, "cat a.txt | wc").0, "      2       3      14\n");
        assert_eq!(sh(&env, "wc -lc a.txt b.txt").0, " 2 14 a.txt\n 1  2 b.txt\n 3 16 total\n");
        assert_eq!(sh(&env, "printf 'héllo' | wc -m").0, "5\n");
    }

    #[test]
    fn sort_orders_lines() {
        let env = env_with(&[("d.txt", "b 2\na 10\nc 1\na 10\nB 3\n")]);
        assert_eq!(sh(&env, "sort d.txt").0, "B 3\na 10\na 10\nb 2\nc 1\n");
        assert_eq!(sh(&env, "sort -u d.txt").0, "B 3\na 10\nb 2\nc 1\n");
        assert_eq!(sh(&env, "sort -r d.txt | head -1").0, "c 1\n");
        assert_eq!(sh(&env, "sort -f d.txt | head -n 3 | tail -n 1").0, "b 2\n");
        assert_eq!(sh(&env, "sort -k2 -n d.txt").0, "c 1\nb 2\nB 3\na 10\na 10\n");
        assert_eq!(sh(&env, "sort -k 2nr d.txt | head -n 1").0, "a 10\n");
        assert_eq!(sh(&env, "printf '10\\n9\\n-1\\nx\\n' | sort -n").0, "-1\nx\n9\n10\n");
        assert_eq!(
            sh(&env, "printf '2.50\\n-3\\n2.5\\n002.25\\n-0\\n-0.5\\n99999999999999999999\\n' | sort -n").0,
            "-3\n-0.5\n-0\n002.25\n2.5\n2.50\n99999999999999999999\n"
        );
        assert_eq!(sh(&env, "printf 'a:3\\nb:1\\n' | sort -t: -k2").0, "b:1\na:3\n");
        assert_eq!(sh(&env, "sort -o d.txt d.txt && head -n 1 d.txt").0, "B 3\n");
    }

    #[test]
    fn uniq_collapses_adjacent_lines() {
        let input = "printf 'a\\na\\nb\\nA\\nc\\nc\\n'";
        assert_eq!(out(&format!("{input} | uniq")), "a\nb\nA\nc\n");
        assert_eq!(out(&format!("{input} | uniq -c")), "      2 a\n      1 b\n      1 A\n      2 c\n");
        assert_eq!(out(&format!("{input} | uniq -d")), "a\nc\n");
        assert_eq!(out(&format!("{input} | uniq -u")), "b\nA\n");
        assert_eq!(out(&format!("{input} | uniq -i -c | head -n 2")), "      2 a\n      1 b\n");
        assert_eq!(out("printf 'x\\nX\\n' | uniq -ic"), "      2 x\n");
    }

    #[test]
    fn cut_picks_fields_and_characters() {
        assert_eq!(out("printf 'a:b:c\\nd:e:f\\nnone\\n' | cut -d: -f1,3"), "a:c\nd:f\nnone\n");
        assert_eq!(out("printf 'a:b:c\\nnone\\n' | cut -s -d : -f 2-"), "b:c\n");
        assert_eq!(out("printf 'one\\ttwo\\n' | cut -f2"), "two\n");
        assert_eq!(out("echo abcdef | cut -c 2-4,6"), "bcdf\n");
        assert_eq!(out("echo abcdef | cut -c -2"), "ab\n");
        assert_eq!(sh(&env_with(&[]), "cut -f 0 x").1, "cut: invalid field list '0'\n");
        assert_eq!(sh(&env_with(&[]), "cut x").2, 1);
    }

    #[test]
    fn tr_translates_deletes_and_squeezes() {
        assert_eq!(out("echo 'a,b,c' | tr , '\\n'"), "a\nb\nc\n");
        assert_eq!(out("echo Hello | tr a-z A-Z"), "HELLO\n");
        assert_eq!(out("echo Hello | tr '[:upper:]' '[:lower:]'"), "hello\n");
        assert_eq!(out("echo 'a1b2c3' | tr -d 0-9"), "abc\n");
        assert_eq!(out("echo 'a1b2c3' | tr -cd '[:digit:]'"), "123");
        assert_eq!(out("echo 'a   b  c' | tr -s ' '"), "a b c\n");
        assert_eq!(out("echo 'aabbcc' | tr -s a-c x"), "x\n");
        assert_eq!(out("echo abc | tr abc x"), "xxx\n");
        assert_eq!(out("echo 'a11b22' | tr -ds ab 0-9"), "12\n");
        assert_eq!(sh(&env_with(&[]), "tr a").1, "tr: missing operand after 'a'\n");
        assert_eq!(sh(&env_with(&[]), "tr z-a x").2, 1);
    }

    #[test]
    fn basename_and_dirname_split_paths() {
        assert_eq!(out("basename /a/b/file.rs"), "file.rs\n");
        assert_eq!(out("basename /a/b/file.rs .rs"), "file\n");
        assert_eq!(out("basename -s .rs x.rs y.rs"), "x\ny\n");
        assert_eq!(out("basename dir/ && basename /"), "dir\n/\n");
        assert_eq!(out("dirname /a/b/file.rs a/b/ file /file / ."), "/a/b\na\n.\n/\n/\n.\n");
    }
}
