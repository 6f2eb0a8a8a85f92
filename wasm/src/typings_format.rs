//! Lays out ts-rs's one-line declarations for people: a field per line once an object has docs or
//! is too long for one, a member per line for a long union, and short doc comments on one line.
//! (ts-rs's own formatter, its `format` feature, would bring a TypeScript parser into the tests.)

/// Lines longer than this are broken.
const WIDTH: usize = 100;

/// `docs` (a `/** */` comment or nothing) and `decl` (`type Name = ...;`) laid out.
pub fn declaration(docs: &str, decl: &str) -> String {
    let (head, ty) = decl.split_once(" = ").unwrap_or_else(|| panic!("not a type declaration: {decl}"));
    let ty = ty.trim_end().strip_suffix(';').unwrap_or(ty);
    let body = layout(ty, 0, "export  = ".len() + head.len());
    let separator = if body.starts_with('\n') { "" } else { " " };
    format!("{}export {head} ={separator}{body};\n", doc_comment(docs, 0))
}

/// A type laid out in a block indented by `indent`, its first line starting at `column`.
fn layout(ty: &str, indent: usize, column: usize) -> String {
    let ty = ty.trim();
    let pad = " ".repeat(indent);
    for separator in ['|', '&'] {
        let members = split(ty, separator);
        if members.len() > 1 {
            let inline: Vec<String> = members.iter().map(|member| layout(member, indent, column)).collect();
            let line = inline.join(&format!(" {separator} "));
            if !line.contains('\n') && column + line.len() <= WIDTH {
                return line;
            }
            let members = members.iter().map(|member| layout(member, indent + 4, indent + 4));
            return members.map(|member| format!("\n{pad}  {separator} {member}")).collect();
        }
    }
    if let Some(inner) = enclosed(ty, '(', ')') {
        let inner = layout(inner, indent, column + 1);
        return match inner.starts_with('\n') {
            true => format!("({inner}\n{pad})"),
            false => format!("({inner})"),
        };
    }
    if let Some(inner) = enclosed(ty, '{', '}') {
        return object(inner, indent, column);
    }
    ty.to_owned()
}

/// An object type's fields, on one line when they fit and have no docs.
fn object(fields: &str, indent: usize, column: usize) -> String {
    let fields: Vec<(&str, String)> = split(fields, ',')
        .into_iter()
        .map(str::trim)
        .filter(|field| !field.is_empty())
        .map(|field| {
            let (docs, field) = match field.strip_prefix("/**").and_then(|rest| rest.split_once("*/")) {
                Some((docs, field)) => (docs, field.trim()),
                None => ("", field),
            };
            let name_and_type = split(field, ':');
            let (name, ty) = name_and_type.split_first().unwrap_or_else(|| panic!("not a field: {field}"));
            (docs, format!("{name}: {}", layout(&ty.join(":"), indent + 2, indent + 2 + name.len() + 2)))
        })
        .collect();
    let line = format!("{{ {} }}", fields.iter().map(|(_, field)| field.as_str()).collect::<Vec<_>>().join("; "));
    if fields.iter().all(|(docs, field)| docs.is_empty() && !field.contains('\n')) && column + line.len() <= WIDTH {
        return line;
    }
    let pad = " ".repeat(indent + 2);
    let fields: String = fields.iter().map(|(docs, field)| format!("{}{pad}{field};\n", doc_comment(docs, indent + 2))).collect();
    format!("{{\n{fields}{}}}", " ".repeat(indent))
}

/// A doc comment's text (what stands between `/**` and `*/`) as a comment at `indent`: on one
/// line when it is one line.
fn doc_comment(docs: &str, indent: usize) -> String {
    let docs = docs.trim().trim_start_matches("/**").trim_end_matches("*/");
    let lines: Vec<String> = docs
        .lines()
        .map(|line| line.trim().trim_start_matches('*').trim())
        .filter(|l| !l.is_empty())
        .map(in_json_words)
        .collect();
    let pad = " ".repeat(indent);
    match lines.as_slice() {
        [] => String::new(),
        [line] if indent + line.len() + 7 <= WIDTH => format!("{pad}/** {line} */\n"),
        lines => format!("{pad}/**\n{}{pad} */\n", lines.iter().map(|line| format!("{pad} * {line}\n")).collect::<String>()),
    }
}

/// A doc line in the words of the JSON a page sees: rustdoc's links become plain code, and
/// `None` (an absent `Option`) is `null`.
fn in_json_words(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find("[`") {
        let Some(end) = rest[start..].find("`]").map(|end| start + end) else { break };
        out += &rest[..start];
        out += &rest[start + 1..end + 1];
        rest = &rest[end + 2..];
        // The target of `[`text`](target)`.
        if rest.starts_with('(') {
            rest = rest.find(')').map_or(rest, |close| &rest[close + 1..]);
        }
    }
    out += rest;
    out.replace("`None`", "`null`").replace("`Value::Null`", "`null`")
}

/// `ty` without `open` and `close` when they enclose all of it.
fn enclosed(ty: &str, open: char, close: char) -> Option<&str> {
    let inner = ty.strip_prefix(open)?.strip_suffix(close)?;
    // The braces of `{ a } & { b }` are not one pair.
    balanced(inner).then_some(inner)
}

/// Whether every bracket in `text` closes (outside strings and comments).
fn balanced(text: &str) -> bool {
    let mut depth = 0i32;
    scan(text, |_, byte| {
        match byte {
            b'{' | b'(' | b'[' | b'<' => depth += 1,
            b'}' | b')' | b']' | b'>' => depth -= 1,
            _ => {}
        }
        depth >= 0
    });
    depth == 0
}

/// `text` cut at each `separator` outside brackets, strings and comments.
fn split(text: &str, separator: char) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    scan(text, |at, byte| {
        match byte {
            b'{' | b'(' | b'[' | b'<' => depth += 1,
            b'}' | b')' | b']' | b'>' => depth -= 1,
            _ if byte == separator as u8 && depth == 0 => {
                parts.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
        true
    });
    parts.push(&text[start..]);
    parts
}

/// Calls `visit` with each byte of `text` outside string literals and `/** */` comments, until it
/// returns false.
fn scan(text: &str, mut visit: impl FnMut(usize, u8) -> bool) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'"' {
            at += 1;
            while at < bytes.len() && bytes[at] != b'"' {
                at += if bytes[at] == b'\\' { 2 } else { 1 };
            }
        } else if text[at..].starts_with("/**") {
            at += text[at..].find("*/").map_or(text.len() - at, |end| end + 1);
        } else if !visit(at, bytes[at]) {
            return;
        }
        at += 1;
    }
}

#[test]
fn long_objects_and_unions_take_a_line_per_part() {
    let decl = r#"type T = { "kind": "a", "data": { x: number, } } | { "kind": "b", "data": { 
/**
 * Why, with a | bar.
 */
why: string | null, list: Array<{ [key in string]: number }>, } };"#;
    let expected = r#"export type T =
  | { "kind": "a"; "data": { x: number } }
  | {
      "kind": "b";
      "data": {
        /** Why, with a | bar. */
        why: string | null;
        list: Array<{ [key in string]: number }>;
      };
    };
"#;
    assert_eq!(declaration("", decl), expected);
    assert_eq!(
        declaration("/**\n * Short.\n */\n", "type U = \"a\" | \"b\";"),
        "/** Short. */\nexport type U = \"a\" | \"b\";\n"
    );
}

#[test]
fn doc_comments_speak_of_json_not_rust() {
    assert_eq!(
        in_json_words("See [`Session::abort`](super::Session::abort) and [`X`]; `None` = default."),
        "See `Session::abort` and `X`; `null` = default."
    );
}
