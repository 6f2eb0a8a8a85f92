//! Builtins that print their arguments: echo and printf.

use super::super::escapes::unescape;
use super::Call;

pub(super) fn echo(c: &mut Call) -> i32 {
    let (mut newline, mut escapes, mut first) = (true, false, 0);
    // Only leading words made of n, e and E are options; anything else is text.
    while let Some(letters) = c.args.get(first).and_then(|arg| arg.strip_prefix('-')) {
        if letters.is_empty() || !letters.chars().all(|letter| "neE".contains(letter)) {
            break;
        }
        for letter in letters.chars() {
            match letter {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        first += 1;
    }
    let mut text = c.args[first..].join(" ");
    if escapes {
        let (unescaped, stop) = unescape(&text);
        text = unescaped;
        newline &= !stop;
    }
    if newline {
        text.push('\n');
    }
    c.out.out(text);
    0
}

pub(super) fn printf(c: &mut Call) -> i32 {
    let args = match c.args.first().map(String::as_str) {
        Some("--") => &c.args[1..],
        _ => c.args,
    };
    let Some((format, mut rest)) = args.split_first() else {
        return c.fail_with(2, "usage: printf format [arguments]");
    };
    let (mut text, mut errors) = (String::new(), Vec::new());
    // The format is reused while arguments remain, as in sh.
    loop {
        let before = rest.len();
        let stop = render(format, &mut rest, &mut text, &mut errors);
        if stop || rest.is_empty() || rest.len() == before {
            break;
        }
    }
    c.out.out(text);
    for error in &errors {
        c.fail(error);
    }
    i32::from(!errors.is_empty())
}

/// Renders one pass of a printf format; true when `\c` or a bad conversion stops output.
fn render(format: &str, args: &mut &[String], out: &mut String, errors: &mut Vec<String>) -> bool {
    let mut chars = format.chars().peekable();
    let mut literal = String::new();
    while let Some(c) = chars.next() {
        if c != '%' {
            literal.push(c);
            continue;
        }
        if chars.next_if_eq(&'%').is_some() {
            literal.push('%');
            continue;
        }
        if flush(&mut literal, out) {
            return true;
        }
        let mut flags = String::new();
        while let Some(flag) = chars.next_if(|c| "-+ 0#".contains(*c)) {
            flags.push(flag);
        }
        let width = read_number(&mut chars, args).unwrap_or(0);
        let precision = chars.next_if_eq(&'.').map(|_| read_number(&mut chars, args).unwrap_or(0));
        let Some(conversion) = chars.next() else {
            errors.push("missing format character".into());
            return true;
        };
        let arg = take_arg(args);
        let (body, numeric) = match conversion {
            's' => (precision.map_or(arg.clone(), |p| arg.chars().take(p).collect()), false),
            'b' => {
                let (text, stop) = unescape(&arg);
                out.push_str(&pad(&text, width, &flags, false));
                if stop {
                    return true;
                }
                continue;
            }
            'c' => (arg.chars().next().map(String::from).unwrap_or_default(), false),
            'd' | 'i' | 'u' => {
                let value = integer(&arg, errors);
                (if flags.contains('+') && value >= 0 { format!("+{value}") } else { value.to_string() }, true)
            }
            'x' => (format!("{:x}", integer(&arg, errors)), true),
            'X' => (format!("{:X}", integer(&arg, errors)), true),
            'o' => (format!("{:o}", integer(&arg, errors)), true),
            other => {
                errors.push(format!("%{other}: conversion not supported (supported: %s %b %c %d %i %u %x %X %o)"));
                return true;
            }
        };
        out.push_str(&pad(&body, width, &flags, numeric));
    }
    flush(&mut literal, out)
}

/// Writes pending literal text with its escapes; true when it held `\c`.
fn flush(literal: &mut String, out: &mut String) -> bool {
    let (text, stop) = unescape(&std::mem::take(literal));
    out.push_str(&text);
    stop
}

fn take_arg(args: &mut &[String]) -> String {
    match args.split_first() {
        Some((first, tail)) => {
            *args = tail;
            first.clone()
        }
        None => String::new(),
    }
}

/// A width or precision: digits, or `*` to take it from the arguments.
fn read_number(chars: &mut std::iter::Peekable<std::str::Chars>, args: &mut &[String]) -> Option<usize> {
    if chars.next_if_eq(&'*').is_some() {
        return take_arg(args).trim().parse().ok();
    }
    let mut digits = String::new();
    while let Some(digit) = chars.next_if(char::is_ascii_digit) {
        digits.push(digit);
    }
    digits.parse().ok()
}

fn integer(arg: &str, errors: &mut Vec<String>) -> i64 {
    parse_integer(arg).unwrap_or_else(|| {
        errors.push(format!("'{arg}': invalid number"));
        0
    })
}

fn pad(body: &str, width: usize, flags: &str, numeric: bool) -> String {
    if flags.contains('-') {
        format!("{body:<width$}")
    } else if flags.contains('0') && numeric {
        // Zeros go between the sign and the digits.
        let (sign, digits) = body.split_at(usize::from(body.starts_with(['-', '+'])));
        format!("{sign}{digits:0>0$}", width.saturating_sub(sign.len()))
    } else {
        format!("{body:>width$}")
    }
}

/// An integer argument as printf reads it: decimal, `0x` hex, or `'c` for a character code.
fn parse_integer(arg: &str) -> Option<i64> {
    let arg = arg.trim();
    if arg.is_empty() {
        return Some(0);
    }
    if let Some(quoted) = arg.strip_prefix(['\'', '"']) {
        return quoted.chars().next().map(|c| i64::from(u32::from(c)));
    }
    let (negative, digits) = match arg.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, arg.strip_prefix('+').unwrap_or(arg)),
    };
    let value = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<i64>().ok()?,
    };
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::super::{env_with, sh};

    fn out(command: &str) -> String {
        sh(&env_with(&[]), command).0
    }

    #[test]
    fn echo_joins_words_with_optional_escapes() {
        assert_eq!(out("echo a  b   c"), "a b c\n");
        assert_eq!(out("echo -n no newline"), "no newline");
        assert_eq!(out(r"echo -e 'a\tb\nc'"), "a\tb\nc\n");
        assert_eq!(out(r"echo 'a\tb'"), "a\\tb\n");
        assert_eq!(out(r"echo -e 'cut\chere'"), "cut");
        assert_eq!(out("echo -x -"), "-x -\n");
        assert_eq!(out("echo"), "\n");
    }

    #[test]
    fn printf_formats_and_reuses_its_format() {
        assert_eq!(out(r"printf '%s=%d\n' a 1 b 2"), "a=1\nb=2\n");
        assert_eq!(
            out(r"printf '[%5s][%-5s][%05d][%.2s][%x][%c][%+d]' ab cd -42 xyz 255 xyz 3"),
            "[   ab][cd   ][-0042][xy][ff][x][+3]"
        );
        assert_eq!(out(r"printf '%s\n'"), "\n");
        assert_eq!(out(r"printf '100%%\n'"), "100%\n");
        assert_eq!(out(r"printf '%b|%s' 'a\nb' 'a\nb'"), "a\nb|a\\nb");
        assert_eq!(out(r"printf '%*d|' 4 7"), "   7|");
        let (stdout, stderr, code) = sh(&env_with(&[]), "printf '%d' abc");
        assert_eq!((stdout.as_str(), stderr.as_str(), code), ("0", "printf: 'abc': invalid number\n", 1));
        assert_eq!(sh(&env_with(&[]), "printf").2, 2);
        assert!(sh(&env_with(&[]), "printf '%f' 1").1.contains("%f: conversion not supported"));
    }
}
