//! Tool calls as small models write them. A local model may wrap its arguments in a code fence,
//! leave a trailing comma, write Python's `True` and single quotes, encode the object twice, or
//! call `Read File` for `read_file`. Such a call is read as meant when there is exactly one
//! reading, and the session says what it changed in a warning: lenient, never silent. Anything
//! else stays as it was, and the call fails with the usual clear error.

use serde_json::Value;

use crate::llm::ToolCall;

/// The call as meant, and what was changed to read it so; `None` when it needs nothing, or
/// cannot be read.
pub(super) fn repair(call: &ToolCall, known: impl Fn(&str) -> bool) -> Option<(ToolCall, Vec<&'static str>)> {
    let mut fixed = call.clone();
    let mut changes = Vec::new();
    if !known(&call.name) {
        let name = normalised_name(&call.name);
        if name != call.name && known(&name) {
            fixed.name = name;
            changes.push("the tool name");
        }
    }
    match &call.arguments {
        Value::Null => {
            let (arguments, how) = read_object(call.raw_arguments.as_deref()?)?;
            fixed.arguments = arguments;
            changes.extend(how);
        }
        // The object encoded a second time, as a JSON string.
        Value::String(text) => {
            let (arguments, how) = read_object(text)?;
            fixed.arguments = arguments;
            changes.push("a JSON object sent as a string");
            changes.extend(how);
        }
        _ => {}
    }
    (!changes.is_empty()).then_some((fixed, changes))
}

/// `Read File`, `read-file`, `functions.read_file` -> `read_file`.
fn normalised_name(name: &str) -> String {
    let name = name.trim();
    let name = name.strip_prefix("functions.").unwrap_or(name);
    name.chars().map(|c| if c == ' ' || c == '-' { '_' } else { c.to_ascii_lowercase() }).collect()
}

/// One JSON object from near-JSON text, and the repairs it took.
fn read_object(text: &str) -> Option<(Value, Vec<&'static str>)> {
    let mut how = Vec::new();
    let mut text = text.trim();
    if let Some(fenced) = unfenced(text) {
        text = fenced;
        how.push("a code fence");
    }
    if let (Some(start), Some(end)) = (text.find('{'), text.rfind('}')) {
        if start < end && (start > 0 || end + 1 < text.len()) {
            text = &text[start..=end];
            how.push("text around the object");
        }
    }
    if let Some(value) = object(text) {
        return Some((value, how));
    }
    let (normalised, fixes) = normalise(text)?;
    how.extend(fixes);
    object(&normalised).map(|value| (value, how))
}

fn object(text: &str) -> Option<Value> {
    // `from_slice`, as response bodies are read: `from_str` would put a second JSON reader in the browser bundle.
    serde_json::from_slice::<Value>(text.as_bytes()).ok().filter(Value::is_object)
}

/// The text inside a Markdown code fence (```json ... ```).
fn unfenced(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("```")?;
    let body = &rest[rest.find('\n')? + 1..];
    Some(body.trim_end().strip_suffix("```")?.trim())
}

/// Python and JavaScript habits made JSON: single-quoted strings, `True`/`False`/`None`, and
/// commas before a closing bracket. `None` when the text needs none of it.
fn normalise(text: &str) -> Option<(String, Vec<&'static str>)> {
    let mut out = String::with_capacity(text.len());
    let (mut quotes, mut literals, mut commas) = (false, false, false);
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' | '\'' => {
                quotes |= c == '\'';
                out.push('"');
                // A string, copied to its closing quote; a double quote inside a single-quoted
                // one is escaped, an escaped single quote needs no escape in JSON.
                while let Some((_, inner)) = chars.next() {
                    match inner {
                        '\\' => match chars.next() {
                            Some((_, '\'')) if c == '\'' => out.push('\''),
                            Some((_, escaped)) => {
                                out.push('\\');
                                out.push(escaped);
                            }
                            None => return None,
                        },
                        '"' if c == '\'' => out.push_str("\\\""),
                        end if end == c => break,
                        other => out.push(other),
                    }
                }
                out.push('"');
            }
            ',' => {
                let next = text[at + 1..].trim_start().chars().next();
                if matches!(next, Some('}' | ']')) {
                    commas = true;
                } else {
                    out.push(',');
                }
            }
            c if c.is_ascii_alphabetic() => {
                let word_end = text[at..].find(|c: char| !c.is_ascii_alphanumeric() && c != '_').map_or(text.len(), |n| at + n);
                let word = &text[at..word_end];
                let json = match word {
                    "True" => "true",
                    "False" => "false",
                    "None" => "null",
                    other => other,
                };
                literals |= json != word;
                out.push_str(json);
                while chars.peek().is_some_and(|&(next, _)| next < word_end) {
                    chars.next();
                }
            }
            other => out.push(other),
        }
    }
    let fixes: Vec<&'static str> = [(quotes, "single quotes"), (literals, "Python literals"), (commas, "trailing commas")]
        .into_iter()
        .filter_map(|(done, what)| done.then_some(what))
        .collect();
    (!fixes.is_empty()).then_some((out, fixes))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;

    fn raw(name: &str, text: &str) -> ToolCall {
        ToolCall::from_raw("c1", name, text)
    }

    fn repaired(call: &ToolCall) -> Option<(String, Value, Vec<&'static str>)> {
        repair(call, |name| ["read_file", "write_file"].contains(&name)).map(|(call, how)| (call.name, call.arguments, how))
    }

    #[test]
    fn a_fenced_object_is_read() {
        let call = raw("read_file", "```json\n{\"file_path\": \"a.py\"}\n```");
        assert_eq!(repaired(&call), Some(("read_file".into(), json!({"file_path": "a.py"}), vec!["a code fence"])));
    }

    #[test]
    fn trailing_commas_python_literals_and_single_quotes() {
        let call = raw("write_file", "{'file_path': 'a.py', 'content': 'say \"hi\"\\n', 'append': True, 'x': None,}");
        let (_, arguments, how) = repaired(&call).expect("repaired");
        assert_eq!(arguments, json!({"file_path": "a.py", "content": "say \"hi\"\n", "append": true, "x": null}));
        assert_eq!(how, ["single quotes", "Python literals", "trailing commas"]);
        let nested = raw("write_file", r#"{"a": [1, 2,], "b": {"c": "d",},}"#);
        assert_eq!(repaired(&nested).map(|r| r.1), Some(json!({"a": [1, 2], "b": {"c": "d"}})));
    }

    #[test]
    fn words_inside_strings_are_left_alone() {
        let call = raw("write_file", "{\"content\": \"True, None, it's\",}");
        assert_eq!(repaired(&call).map(|r| r.1), Some(json!({"content": "True, None, it's"})));
    }

    #[test]
    fn prose_around_the_object_and_a_doubly_encoded_object() {
        let call = raw("read_file", "Sure! {\"file_path\": \"a.py\"} Let me know.");
        assert_eq!(repaired(&call).map(|r| (r.1, r.2)), Some((json!({"file_path": "a.py"}), vec!["text around the object"])));
        let twice = ToolCall::new("c1", "read_file", json!("{\"file_path\": \"a.py\"}"));
        assert_eq!(
            repaired(&twice).map(|r| (r.1, r.2)),
            Some((json!({"file_path": "a.py"}), vec!["a JSON object sent as a string"]))
        );
    }

    #[test]
    fn a_tool_name_with_spaces_capitals_or_a_prefix() {
        for name in ["Read File", " read-file ", "functions.read_file"] {
            let call = ToolCall::new("c1", name, json!({"file_path": "a"}));
            assert_eq!(repaired(&call).map(|r| (r.0, r.2)), Some(("read_file".into(), vec!["the tool name"])), "{name}");
        }
        assert_eq!(repaired(&ToolCall::new("c1", "Delete Everything", json!({}))), None);
    }

    #[test]
    fn what_cannot_be_read_or_needs_nothing_is_left_alone() {
        assert_eq!(repaired(&raw("read_file", "{\"file_path\": \"a.py\"}")), None);
        assert_eq!(repaired(&raw("read_file", "{\"open")), None);
        assert_eq!(repaired(&raw("read_file", "[1, 2,]")), None, "not an object");
        assert_eq!(repaired(&raw("read_file", "{'unterminated: 1}")), None);
        assert_eq!(repaired(&raw("read_file", "```\n{\"a\": \n```")), None);
        assert_eq!(repaired(&raw("", "")), None, "an empty call stays for the registry to refuse");
    }
}
