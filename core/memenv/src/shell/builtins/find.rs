//! `find`: walk directories and print the paths that pass its tests.

use openagent_regex::Regex;

use super::super::describe;
use super::pattern::wildcard;
use super::Call;
use crate::fs::Node;

const SUPPORTED: &str = "supported: -name, -iname, -path, -ipath, -type f|d, -maxdepth, -mindepth, -empty, !, -not, -o, -print";

enum Test {
    Name(Regex),
    Path(Regex),
    Type { dir: bool },
    Empty,
}

impl Test {
    fn passes(&self, name: &str, shown: &str, node: &Node) -> bool {
        match self {
            Test::Name(regex) => regex.is_match(name),
            Test::Path(regex) => regex.is_match(shown),
            Test::Type { dir } => node.is_dir() == *dir,
            Test::Empty => node.size() == 0 && node.children().is_none_or(|entries| entries.is_empty()),
        }
    }
}

/// The expression: alternatives (`-o`) of tests that must all pass, each maybe negated.
struct Expression {
    alternatives: Vec<Vec<(bool, Test)>>,
    min_depth: usize,
    max_depth: usize,
}

impl Expression {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut expression = Expression { alternatives: vec![Vec::new()], min_depth: 0, max_depth: usize::MAX };
        let mut negated = false;
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value = || args.next().map(String::as_str).ok_or_else(|| format!("missing argument to `{arg}'"));
            let depth = |text: &str| text.parse::<usize>().map_err(|_| format!("{arg}: invalid depth '{text}'"));
            let test = match arg.as_str() {
                "!" | "-not" => {
                    negated = !negated;
                    continue;
                }
                "-o" | "-or" => {
                    expression.alternatives.push(Vec::new());
                    continue;
                }
                "-a" | "-and" | "-print" => continue,
                "-maxdepth" => {
                    expression.max_depth = depth(value()?)?;
                    continue;
                }
                "-mindepth" => {
                    expression.min_depth = depth(value()?)?;
                    continue;
                }
                "-name" => Test::Name(wildcard(value()?, false)?),
                "-iname" => Test::Name(wildcard(value()?, true)?),
                "-path" | "-wholename" => Test::Path(wildcard(value()?, false)?),
                "-ipath" => Test::Path(wildcard(value()?, true)?),
                "-type" => match value()? {
                    "f" => Test::Type { dir: false },
                    "d" => Test::Type { dir: true },
                    other => return Err(format!("-type {other}: not supported (supported: f, d)")),
                },
                "-empty" => Test::Empty,
                "-exec" | "-execdir" | "-delete" | "-ok" => {
                    return Err(format!("{arg}: not supported by the built-in shell; pipe the paths to xargs instead (find . -name '*.tmp' | xargs rm)"))
                }
                other => return Err(format!("{other}: not supported by the built-in shell ({SUPPORTED})")),
            };
            if let Some(tests) = expression.alternatives.last_mut() {
                tests.push((std::mem::take(&mut negated), test));
            }
        }
        Ok(expression)
    }

    fn passes(&self, name: &str, shown: &str, node: &Node, depth: usize) -> bool {
        (self.min_depth..=self.max_depth).contains(&depth)
            && self
                .alternatives
                .iter()
                .any(|tests| tests.iter().all(|(negated, test)| test.passes(name, shown, node) != *negated))
    }
}

pub(super) fn find(c: &mut Call) -> i32 {
    let split = c.args.iter().position(|arg| arg.starts_with('-') || arg == "!" || arg == "(").unwrap_or(c.args.len());
    let (starts, expression) = c.args.split_at(split);
    let starts = if starts.is_empty() { vec![".".to_owned()] } else { starts.to_vec() };
    let expression = match Expression::parse(expression) {
        Ok(expression) => expression,
        Err(message) => return c.fail(message),
    };
    let mut status = 0;
    for start in &starts {
        let mut found = String::new();
        {
            let tree = c.shell.tree();
            let walked = c.shell.resolve(start).and_then(|path| Ok((tree.get(&path)?, tree.walk(&path, expression.max_depth)?)));
            let (root, below) = match walked {
                Ok(walked) => walked,
                Err(err) => {
                    c.out.err(format!("find: '{start}': {}\n", describe(&err)));
                    status = 1;
                    continue;
                }
            };
            let name = start.trim_end_matches('/').rsplit('/').next().filter(|name| !name.is_empty()).unwrap_or("/");
            if expression.passes(name, start, root, 0) {
                found.push_str(&format!("{start}\n"));
            }
            for (rel, node, depth) in below {
                let shown = if start.ends_with('/') { format!("{start}{rel}") } else { format!("{start}/{rel}") };
                let name = rel.rsplit('/').next().unwrap_or(&rel);
                if expression.passes(name, &shown, node, depth) {
                    found.push_str(&shown);
                    found.push('\n');
                }
            }
        }
        c.out.out(found);
    }
    status
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::super::super::{env_with, sh};

    #[test]
    fn walks_with_name_type_and_depth_tests() {
        let env =
            env_with(&[("src/main.rs", ""), ("src/lib/Util.RS", "x"), ("README.md", "hi"), ("node_modules/m/index.js", "")]);
        env.mkdir_p("empty").unwrap();
        assert_eq!(sh(&env, "find src").0, "src\nsrc/lib\nsrc/lib/Util.RS\nsrc/main.rs\n");
        assert_eq!(sh(&env, "find . -name '*.rs'").0, "./src/main.rs\n");
        assert_eq!(sh(&env, "find . -iname '*.rs' -type f").0, "./src/lib/Util.RS\n./src/main.rs\n");
        assert_eq!(sh(&env, "find . -maxdepth 1 -type d").0, ".\n./empty\n./node_modules\n./src\n");
        assert_eq!(sh(&env, "find src -mindepth 2").0, "src/lib/Util.RS\n");
        assert_eq!(
            sh(&env, "find . -type f -not -path './node_modules/*' -name '*.*'").0,
            "./README.md\n./src/lib/Util.RS\n./src/main.rs\n"
        );
        assert_eq!(sh(&env, "find . -name '*.md' -o -name '*.js'").0, "./README.md\n./node_modules/m/index.js\n");
        assert_eq!(sh(&env, "find . -empty").0, "./empty\n./node_modules/m/index.js\n./src/main.rs\n");
        assert_eq!(sh(&env, "find /workspace/src/ -name main.rs").0, "/workspace/src/main.rs\n");
        assert_eq!(sh(&env, "find src -name '*.rs' | xargs grep -l x").0, "");
        assert_eq!(sh(&env, "find src -iname '*.rs' | xargs grep -l x").0, "src/lib/Util.RS\n");
    }

    #[test]
    fn reports_missing_paths_and_unsupported_predicates() {
        let env = env_with(&[("a", "")]);
        assert_eq!(sh(&env, "find nope a"), ("a\n".into(), "find: 'nope': No such file or directory\n".into(), 1));
        let (out, err, code) = sh(&env, "find . -name a -exec rm {} \\;");
        assert_eq!((out.as_str(), code), ("", 1));
        assert!(err.starts_with("find: -exec: not supported by the built-in shell; pipe the paths to xargs"), "{err}");
        assert!(sh(&env, "find . -newer a")
            .1
            .starts_with("find: -newer: not supported by the built-in shell (supported: -name,"));
        assert_eq!(sh(&env, "find . -type l").1, "find: -type l: not supported (supported: f, d)\n");
        assert_eq!(sh(&env, "find . -name").1, "find: missing argument to `-name'\n");
    }
}
