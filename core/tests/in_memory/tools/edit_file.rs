#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde_json::{json, Value};

use crate::testing::{memory_env, read, run_err, run_ok, write};
use openagent_core::tools::EditFileTool;

const FILE: &str = "src/a.rs";

fn edit(old: &str, new: &str) -> Value {
    json!({"file_path": FILE, "old_string": old, "new_string": new})
}

#[test]
fn replaces_one_exact_occurrence() {
    let env = memory_env();
    write(&env, FILE, "fn a() {\n    one();\n}\n");
    assert_eq!(run_ok(&EditFileTool, &env, edit("    one();", "    two();\n    three();")), "Replaced 1 occurrence in src/a.rs.");
    assert_eq!(read(&env, FILE), "fn a() {\n    two();\n    three();\n}\n");
}

#[test]
fn missing_text_like_nothing_in_the_file_asks_to_read_it() {
    let env = memory_env();
    write(&env, FILE, "fn a() {}\n");
    assert_eq!(
        run_err(&EditFileTool, &env, edit("let y = 2;", "let y = 3;")),
        "old_string was not found in src/a.rs. Read the file to see its current content, \
         then retry with text that matches exactly."
    );
    assert_eq!(read(&env, FILE), "fn a() {}\n");
}

#[test]
fn several_matches_need_more_context_or_replace_all() {
    let env = memory_env();
    write(&env, FILE, "x = 1;\ny = 1;\nz = 1;\n");
    assert_eq!(
        run_err(&EditFileTool, &env, edit("= 1;", "= 2;")),
        "old_string matches 3 places in src/a.rs. Add surrounding lines to old_string so that it \
         matches exactly one place, or set replace_all to true to replace all 3."
    );
    assert_eq!(read(&env, FILE), "x = 1;\ny = 1;\nz = 1;\n");

    let all = json!({"file_path": FILE, "old_string": "= 1;", "new_string": "= 2;", "replace_all": true});
    assert_eq!(run_ok(&EditFileTool, &env, all), "Replaced 3 occurrences in src/a.rs.");
    assert_eq!(read(&env, FILE), "x = 2;\ny = 2;\nz = 2;\n");
}

#[test]
fn replace_all_with_one_match_says_one_occurrence() {
    let env = memory_env();
    write(&env, FILE, "a b c");
    let all = json!({"file_path": FILE, "old_string": "b", "new_string": "B", "replace_all": true});
    assert_eq!(run_ok(&EditFileTool, &env, all), "Replaced 1 occurrence in src/a.rs.");
    assert_eq!(read(&env, FILE), "a B c");
}

#[test]
fn a_normalised_match_is_reported_and_keeps_the_rest_of_the_file() {
    let env = memory_env();
    write(&env, FILE, "// say \u{201c}hi\u{201d}  \n\tgreet(\u{2018}hi\u{2019});\nrest\u{a0}stays\n");
    let out = run_ok(&EditFileTool, &env, edit("// say \"hi\"\n    greet('hi');", "greet(\"hello\");"));
    assert_eq!(out, "Replaced 1 occurrence in src/a.rs (matched after normalising whitespace/Unicode punctuation).");
    assert_eq!(read(&env, FILE), "greet(\"hello\");\nrest\u{a0}stays\n");
}

#[test]
fn normalised_matches_also_have_to_be_unique() {
    let env = memory_env();
    write(&env, FILE, "a\t= 1\nb\t= 1\n");
    assert_eq!(
        run_err(&EditFileTool, &env, edit(" = 1", " = 2")),
        "old_string matches 2 places in src/a.rs. Add surrounding lines to old_string so that it \
         matches exactly one place, or set replace_all to true to replace all 2."
    );
}

#[test]
fn crlf_files_keep_crlf() {
    let env = memory_env();
    write(&env, FILE, "one\r\ntwo\r\nthree\r\n");
    assert_eq!(run_ok(&EditFileTool, &env, edit("one\ntwo\n", "1\n2\n")), "Replaced 1 occurrence in src/a.rs.");
    assert_eq!(read(&env, FILE), "1\r\n2\r\nthree\r\n");
}

#[test]
fn lf_files_are_left_lf() {
    let env = memory_env();
    write(&env, FILE, "one\ntwo\n");
    assert_eq!(run_ok(&EditFileTool, &env, edit("one\n", "1\n1b\n")), "Replaced 1 occurrence in src/a.rs.");
    assert_eq!(read(&env, FILE), "1\n1b\ntwo\n");
}

#[test]
fn empty_old_string_creates_a_missing_or_empty_file_and_refuses_one_with_text() {
    let env = memory_env();
    let new = json!({"file_path": "src/new.rs", "old_string": "", "new_string": "fn n() {}\n"});
    let wrote = "Wrote new_string to src/new.rs as its whole content (old_string was empty).";
    assert_eq!(run_ok(&EditFileTool, &env, new.clone()), wrote);
    assert_eq!(read(&env, "src/new.rs"), "fn n() {}\n");
    // The model meant to replace something it never copied: nothing is appended or lost.
    assert_eq!(
        run_err(&EditFileTool, &env, new.clone()),
        "old_string is empty, but src/new.rs is not: put the exact text to replace in old_string \
         (read_file shows it), or use write_file to replace the whole file."
    );
    assert_eq!(read(&env, "src/new.rs"), "fn n() {}\n");
    write(&env, "src/new.rs", "");
    assert_eq!(run_ok(&EditFileTool, &env, new), wrote);
    assert_eq!(
        run_err(&EditFileTool, &env, edit("", "")),
        "old_string and new_string are both empty, so the edit would change nothing."
    );
}

#[test]
fn missing_text_shows_the_closest_lines_numbered() {
    let env = memory_env();
    write(&env, FILE, "fn a() {\n    let x = 1;\n    x + 1\n}\n\nfn b() {}\n");
    assert_eq!(
        run_err(&EditFileTool, &env, edit("    let x = 2;\n    x + 2", "    let x = 3;")),
        "old_string was not found in src/a.rs. The closest text is at lines 2-3:\n\
         2 |     let x = 1;\n\
         3 |     x + 1\n\
         Copy the text you want to change from there exactly (without the `N | ` prefixes) into old_string and retry."
    );
    assert_eq!(read(&env, FILE), "fn a() {\n    let x = 1;\n    x + 1\n}\n\nfn b() {}\n");
}

#[test]
fn identical_strings_not_in_the_file_are_reported_as_not_found() {
    let env = memory_env();
    write(&env, FILE, "def f(n):\n    return sum(range(n))\n");
    let guess = "def f(n):\n    return 1 + n";
    let error = run_err(&EditFileTool, &env, edit(guess, guess));
    assert!(
        error.starts_with("old_string was not found in src/a.rs. The closest text is at lines 1-2:\n1 | def f(n):\n"),
        "{error}"
    );
}

#[test]
fn identical_strings_are_refused() {
    let env = memory_env();
    write(&env, FILE, "x");
    assert_eq!(
        run_err(&EditFileTool, &env, edit("x", "x")),
        "old_string and new_string are identical, so the edit would change nothing. \
         Put the text you want in new_string."
    );
}

#[test]
fn deleting_text_works() {
    let env = memory_env();
    write(&env, FILE, "keep\ndrop\nkeep\n");
    assert_eq!(run_ok(&EditFileTool, &env, edit("drop\n", "")), "Replaced 1 occurrence in src/a.rs.");
    assert_eq!(read(&env, FILE), "keep\nkeep\n");
}

#[test]
fn a_missing_file_is_reported() {
    let env = memory_env();
    let args = json!({"file_path": "/workspace/none.rs", "old_string": "a", "new_string": "b"});
    assert_eq!(
        run_err(&EditFileTool, &env, args),
        "file not found: /workspace/none.rs. Check the path, or use glob to find the file."
    );
}
