//! Running the syntax tree: lists, pipelines, simple commands and their redirections.

use futures::future::LocalBoxFuture;

use super::parse::{AndOr, Command, Connector, List, Pipeline, Redirect, RedirectOp, Word};
use super::{builtins, describe, Output, Shell, Stream, MAX_DEPTH, TIMED_OUT};
use openagent_core::env::EnvError;
use openagent_core::sorted_map::SortedMap;

/// Where fd 1 or fd 2 of a command goes.
#[derive(Clone)]
enum Target {
    Out,
    Err,
    Null,
    File(String),
}

/// What a subshell may change and must give back.
pub(super) struct Saved {
    cwd: String,
    vars: SortedMap<String, String>,
    errexit: bool,
    pipefail: bool,
}

impl Shell {
    /// Runs commands until the list ends, `exit` is called or the time is up. `on_output` sees
    /// each command's output as soon as it is complete.
    pub(super) fn run_list<'a>(
        &'a mut self,
        list: &'a List,
        output: &'a mut Output,
        on_output: Option<&'a dyn Fn(&str)>,
    ) -> LocalBoxFuture<'a, ()> {
        Box::pin(async move {
            if self.depth >= MAX_DEPTH {
                output.err(format!("sh: scripts nest more than {MAX_DEPTH} deep; is a script running itself?\n"));
                self.exit = Some(2);
                return;
            }
            self.depth += 1;
            for item in list {
                if self.stopped() {
                    break;
                }
                let seen = output.chunks.len();
                self.run_and_or(item, output).await;
                if let Some(on_output) = on_output {
                    for (_, bytes) in &output.chunks[seen..] {
                        on_output(&String::from_utf8_lossy(bytes));
                    }
                }
            }
            self.depth -= 1;
        })
    }

    /// Subshells (pipeline stages, `$(...)`, `sh -c`) keep their `cd`, variables and `exit` to themselves.
    pub(super) fn save(&self) -> Saved {
        Saved { cwd: self.cwd.clone(), vars: self.vars.clone(), errexit: self.errexit, pipefail: self.pipefail }
    }

    /// Restores the state saved before a subshell and gives the subshell's exit status.
    pub(super) fn restore(&mut self, saved: Saved) -> i32 {
        let status = self.exit.take().unwrap_or(self.status);
        Saved { cwd: self.cwd, vars: self.vars, errexit: self.errexit, pipefail: self.pipefail } = saved;
        status
    }

    /// `$(list)`: the list's standard output without trailing newlines; its errors pass through.
    pub(super) async fn substitute(&mut self, list: &List, output: &mut Output) -> String {
        let saved = self.save();
        let mut captured = Output::default();
        self.run_list(list, &mut captured, None).await;
        self.status = self.restore(saved);
        self.substitutions += 1;
        output.err(captured.collect(Stream::Err));
        let text = String::from_utf8_lossy(&captured.collect(Stream::Out)).into_owned();
        text.trim_end_matches('\n').to_owned()
    }

    async fn run_and_or(&mut self, item: &AndOr, output: &mut Output) {
        let mut status = self.run_pipeline(&item.first, output).await;
        // `set -e` ignores failures that a `&&`/`||` tests, or that `!` inverts.
        let mut decisive = item.rest.is_empty() && !item.first.negated;
        for (i, (connector, pipeline)) in item.rest.iter().enumerate() {
            if self.stopped() {
                return;
            }
            if (*connector == Connector::And) == (status == 0) {
                status = self.run_pipeline(pipeline, output).await;
                decisive = i + 1 == item.rest.len() && !pipeline.negated;
            }
        }
        if self.errexit && status != 0 && decisive && self.exit.is_none() {
            self.exit = Some(status);
        }
    }

    async fn run_pipeline(&mut self, pipeline: &Pipeline, output: &mut Output) -> i32 {
        let status = match pipeline.commands.as_slice() {
            [command] => self.run_command(command, Vec::new(), output).await,
            commands => {
                let (mut input, mut status, mut failed) = (Vec::new(), 0, 0);
                for (i, command) in commands.iter().enumerate() {
                    let saved = self.save();
                    let mut stage = Output::default();
                    self.status = self.run_command(command, std::mem::take(&mut input), &mut stage).await;
                    status = self.restore(saved);
                    if status != 0 {
                        failed = status;
                    }
                    let last = i + 1 == commands.len();
                    for (stream, bytes) in stage.chunks {
                        match stream {
                            Stream::Out if !last => input.extend(bytes),
                            _ => output.push(stream, &bytes),
                        }
                    }
                    if self.timed_out {
                        status = TIMED_OUT;
                        break;
                    }
                }
                if self.pipefail {
                    failed
                } else {
                    status
                }
            }
        };
        self.status = if pipeline.negated { i32::from(status == 0) } else { status };
        self.status
    }

    async fn run_command(&mut self, command: &Command, stdin: Vec<u8>, output: &mut Output) -> i32 {
        if self.past_deadline() {
            return TIMED_OUT;
        }
        let substitutions = self.substitutions;
        let mut argv = Vec::new();
        for word in &command.words {
            argv.extend(self.expand(word, output).await);
        }
        let mut assignments = Vec::new();
        for (name, value) in &command.assignments {
            assignments.push((name.clone(), self.expand_joined(value, output).await));
        }
        if argv.is_empty() {
            for (name, value) in assignments {
                self.vars.insert(name, value);
            }
            // `x=$(cmd)` reports cmd's status; redirections alone still create files.
            let status = if self.substitutions == substitutions { 0 } else { self.status };
            return match self.open_redirects(&command.redirects, stdin, output).await {
                Ok(_) => status,
                Err(message) => {
                    output.err(message);
                    1
                }
            };
        }
        let previous: Vec<(String, Option<String>)> =
            assignments.iter().map(|(name, _)| (name.clone(), self.vars.get(name).cloned())).collect();
        for (name, value) in assignments {
            self.vars.insert(name, value);
        }
        let status = match self.open_redirects(&command.redirects, stdin, output).await {
            Err(message) => {
                output.err(message);
                1
            }
            Ok((stdin, targets)) => {
                let mut produced = Output::default();
                let status = builtins::run(self, &argv, stdin, &mut produced).await;
                self.deliver(produced, &targets, output);
                status
            }
        };
        for (name, value) in previous {
            match value {
                Some(value) => self.vars.insert(name, value),
                None => self.vars.remove(&name),
            };
        }
        status
    }

    /// Applies redirections left to right: the command's standard input, and where its fds 1 and
    /// 2 go. Files opened with `>` are truncated now, even if the command then fails, as in sh.
    async fn open_redirects(
        &mut self,
        redirects: &[Redirect],
        mut stdin: Vec<u8>,
        output: &mut Output,
    ) -> Result<(Vec<u8>, [Target; 2]), String> {
        let mut targets = [Target::Out, Target::Err];
        let slot = |fd: u32| match fd {
            1 | 2 => Ok(fd as usize - 1),
            _ => Err(format!("sh: redirecting file descriptor {fd} is not supported (only 0, 1 and 2)\n")),
        };
        for redirect in redirects {
            let fd = redirect.fd;
            match &redirect.op {
                RedirectOp::Read(_) | RedirectOp::HereDoc(_) | RedirectOp::HereString(_) if fd != 0 => {
                    return Err(format!("sh: reading into file descriptor {fd} is not supported (only 0)\n"));
                }
                RedirectOp::Read(word) => {
                    let name = self.redirect_name(word, output).await?;
                    stdin = self.read_for_redirect(&name)?;
                }
                RedirectOp::Write(word) | RedirectOp::Append(word) => {
                    let name = self.redirect_name(word, output).await?;
                    targets[slot(fd)?] = self.open_for_write(&name, matches!(redirect.op, RedirectOp::Append(_)))?;
                }
                RedirectOp::Duplicate(to) => targets[slot(fd)?] = targets[slot(*to)?].clone(),
                RedirectOp::HereDoc(body) => {
                    stdin = match body.get() {
                        Some(word) => self.expand_joined(word, output).await.into_bytes(),
                        None => Vec::new(),
                    };
                }
                RedirectOp::HereString(word) => stdin = format!("{}\n", self.expand_joined(word, output).await).into_bytes(),
            }
        }
        Ok((stdin, targets))
    }

    async fn redirect_name(&mut self, word: &Word, output: &mut Output) -> Result<String, String> {
        match self.expand(word, output).await.as_slice() {
            [name] => Ok(name.clone()),
            _ => Err(format!("sh: {}: ambiguous redirect\n", self.expand_joined(word, output).await)),
        }
    }

    fn read_for_redirect(&self, name: &str) -> Result<Vec<u8>, String> {
        if name == "/dev/null" {
            return Ok(Vec::new());
        }
        let path = self.resolve(name).map_err(|err| format!("sh: {name}: {}\n", describe(&err)))?;
        self.tree().read(&path).map(|content| content.bytes().to_vec()).map_err(|err| format!("sh: {name}: {}\n", describe(&err)))
    }

    fn open_for_write(&self, name: &str, append: bool) -> Result<Target, String> {
        match name {
            "/dev/null" => return Ok(Target::Null),
            "/dev/stdout" => return Ok(Target::Out),
            "/dev/stderr" => return Ok(Target::Err),
            _ => {}
        }
        let fail = |err: EnvError| format!("sh: {name}: {}\n", describe(&err));
        let path = self.resolve(name).map_err(fail)?;
        let now = self.now();
        let mut tree = self.tree();
        match tree.get(&path) {
            Ok(node) if node.is_dir() => return Err(fail(EnvError::IsADirectory(path))),
            Ok(_) if append => tree.allow(&path).map_err(fail)?,
            _ => tree.write(&path, Vec::new(), now, false).map_err(fail)?,
        }
        Ok(Target::File(path))
    }

    /// Sends what a command wrote to where its redirections point.
    fn deliver(&self, produced: Output, targets: &[Target; 2], output: &mut Output) {
        for (stream, bytes) in produced.chunks {
            match &targets[if stream == Stream::Out { 0 } else { 1 }] {
                Target::Out => output.out(bytes),
                Target::Err => output.err(bytes),
                Target::Null => {}
                Target::File(path) => {
                    let now = self.now();
                    if let Err(err) = self.tree().append(path, &bytes, now) {
                        output.err(format!("sh: {path}: {}\n", describe(&err)));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::cell::RefCell;
    use std::rc::Rc;

    use futures::executor::block_on;

    use super::super::{env_with, run, run_in, sh};
    use openagent_core::env::{ExecOptions, ExecutionEnvironment};
    use openagent_core::runtime::{Runtime, VirtualRuntime};

    fn stdout(command: &str) -> String {
        sh(&env_with(&[]), command).0
    }

    #[test]
    fn sequences_and_conditionals_follow_exit_statuses() {
        assert_eq!(stdout("echo a; echo b"), "a\nb\n");
        assert_eq!(stdout("true && echo yes || echo no"), "yes\n");
        assert_eq!(stdout("false && echo yes || echo no"), "no\n");
        assert_eq!(stdout("false || false || echo third"), "third\n");
        assert_eq!(stdout("false; echo $?; true; echo $?"), "1\n0\n");
        assert_eq!(stdout("! false && echo negated"), "negated\n");
        assert_eq!(stdout("echo one\necho two\n\n# comment\necho three # trailing"), "one\ntwo\nthree\n");
        assert_eq!(stdout("echo a &&\n echo b"), "a\nb\n");
        let env = env_with(&[]);
        assert_eq!(sh(&env, "false").2, 1);
        assert_eq!(sh(&env, "echo done; exit 3; echo never"), ("done\n".into(), String::new(), 3));
        assert_eq!(sh(&env, "exit 300").2, 44);
    }

    #[test]
    fn pipes_feed_each_stage_and_report_the_last_status() {
        let env = env_with(&[("list.txt", "pear\napple\nfig\napple\n")]);
        assert_eq!(sh(&env, "cat list.txt | sort | uniq -c | sort -rn | head -n 1").0, "      2 apple\n");
        assert_eq!(sh(&env, "echo hi | grep -c h").0, "1\n");
        assert_eq!(sh(&env, "false | true").2, 0);
        assert_eq!(sh(&env, "true | false").2, 1);
        assert_eq!(sh(&env, "set -o pipefail; false | true").2, 1);
        assert_eq!(sh(&env, "cd / | true; pwd").0, "/workspace\n", "pipeline stages are subshells");
        assert_eq!(sh(&env, "ls missing |& grep -c cannot").0, "1\n");
    }

    #[test]
    fn redirections_write_append_read_and_merge() {
        let env = env_with(&[]);
        assert_eq!(sh(&env, "echo one > out.txt; echo two >> out.txt; cat out.txt").0, "one\ntwo\n");
        assert_eq!(sh(&env, "wc -l < out.txt").0, "2\n");
        assert_eq!(sh(&env, "cat missing 2> err.txt; cat err.txt").0, "cat: missing: No such file or directory\n");
        let (out, err, _) = sh(&env, "cat missing out.txt > both.txt 2>&1; cat both.txt");
        assert_eq!((out.as_str(), err.as_str()), ("cat: missing: No such file or directory\none\ntwo\n", ""));
        assert_eq!(sh(&env, "cat missing 2>/dev/null; echo $?"), ("1\n".into(), String::new(), 0));
        assert_eq!(sh(&env, "echo hidden >/dev/null"), (String::new(), String::new(), 0));
        assert_eq!(sh(&env, "echo to-err >&2"), (String::new(), "to-err\n".into(), 0));
        assert_eq!(sh(&env, "cat missing &> all.txt; cat all.txt").0, "cat: missing: No such file or directory\n");
        assert_eq!(sh(&env, "> empty.txt; wc -c empty.txt").0, "0 empty.txt\n");
        assert_eq!(sh(&env, "echo x > nodir/f.txt"), (String::new(), "sh: nodir/f.txt: No such file or directory\n".into(), 1));
        assert_eq!(sh(&env, "echo x > .").1, "sh: .: Is a directory\n");
        assert_eq!(sh(&env, "cat < missing").1, "sh: missing: No such file or directory\n");
        assert_eq!(sh(&env, "echo x 3> f").2, 1);
    }

    #[test]
    fn here_documents_and_strings_feed_standard_input() {
        let env = env_with(&[]);
        let script = "NAME=world\ncat > greeting.txt <<EOF\nhello $NAME\n  indented \\$HOME\nEOF\ncat greeting.txt";
        assert_eq!(sh(&env, script).0, "hello world\n  indented $HOME\n");
        assert_eq!(sh(&env, "cat <<'EOF'\n$NOT expanded `here`\nEOF").0, "$NOT expanded `here`\n");
        assert_eq!(sh(&env, "cat <<-END\n\ttabs go\n\tEND\necho after").0, "tabs go\nafter\n");
        assert_eq!(sh(&env, "grep -c b <<< 'abc'").0, "1\n");
        assert_eq!(sh(&env, "cat <<A; cat <<B\na\nA\nb\nB").0, "a\nb\n");
    }

    #[test]
    fn quoting_and_expansion() {
        let env = env_with(&[]);
        assert_eq!(sh(&env, r#"echo 'single $HOME' "double $HOME" \$HOME"#).0, "single $HOME double /workspace $HOME\n");
        assert_eq!(sh(&env, r#"echo "a\"b" 'c'"d"e a\ b"#).0, "a\"b cde a b\n");
        assert_eq!(sh(&env, "X=1; Y=\"$X two\"; echo ${Y}3").0, "1 two3\n");
        assert_eq!(sh(&env, "X='a   b'; printf '[%s]' $X \"$X\"").0, "[a][b][a   b]");
        assert_eq!(sh(&env, "printf '[%s]' \"\" $EMPTY ''").0, "[][]");
        assert_eq!(sh(&env, "echo ~ ~/x").0, "/workspace /workspace/x\n");
        assert_eq!(sh(&env, "echo $'tab\\there'").0, "tab\there\n");
        assert_eq!(sh(&env, "X=outer; X=inner env | grep ^X=; echo $X").0, "X=inner\nouter\n");
        assert_eq!(sh(&env, "echo cost: $5 $? $# $0").0, "cost: 0 0 sh\n");
        assert_eq!(sh(&env, "echo a$").0, "a$\n");
    }

    #[test]
    fn command_substitution_captures_output() {
        let env = env_with(&[("src/a.rs", ""), ("src/b.rs", "")]);
        assert_eq!(sh(&env, "echo \"files: $(ls src | wc -l)\"").0, "files: 2\n");
        assert_eq!(sh(&env, "cd $(dirname src/a.rs) && pwd").0, "/workspace/src\n");
        assert_eq!(sh(&env, "echo `echo back` $(echo $(echo nested))").0, "back nested\n");
        assert_eq!(sh(&env, "x=$(false); echo $?").0, "1\n");
        assert_eq!(sh(&env, "x=$(exit 4); echo $x$?").0, "4\n");
    }

    #[test]
    fn unquoted_wildcards_expand_to_paths() {
        let env = env_with(&[("src/a.rs", ""), ("src/b.rs", ""), ("src/c.txt", ""), ("src/.hidden.rs", ""), ("lib/d.rs", "")]);
        assert_eq!(sh(&env, "echo src/*.rs").0, "src/a.rs src/b.rs\n");
        assert_eq!(sh(&env, "echo */*.rs").0, "lib/d.rs src/a.rs src/b.rs\n");
        assert_eq!(sh(&env, "cd src && echo ?.* .*.rs").0, "a.rs b.rs c.txt .hidden.rs\n");
        assert_eq!(sh(&env, "echo /workspace/l*/").0, "/workspace/lib/\n");
        assert_eq!(sh(&env, "echo '*.rs' \"src/*\" nomatch*").0, "*.rs src/* nomatch*\n");
        assert_eq!(sh(&env, "P='src/*.txt'; echo $P").0, "src/c.txt\n");
    }

    #[test]
    fn unknown_commands_and_syntax_errors_explain_themselves() {
        let (out, err, code) = sh(&env_with(&[]), "python3 -c 'print(1)'");
        assert_eq!((out.as_str(), code), ("", 127));
        assert!(err.starts_with("python3: command not available in this environment (built-in shell: [, basename,"), "{err}");
        for (script, says) in [
            ("if true; then echo x; fi", "`if` is not supported"),
            ("for f in *; do echo $f; done", "`for` is not supported"),
            ("(cd src)", "unexpected `(`"),
            ("echo 'open", "unterminated single quote"),
            ("echo \"open", "unterminated double quote"),
            ("echo x |", "unexpected end of input"),
            ("&& echo x", "unexpected `&`"),
            ("sleep 1 &", "background jobs"),
            ("echo $((1 + 2))", "arithmetic expansion"),
            ("echo ${X:-d}", "only ${NAME}"),
            ("[[ -f x ]]", "use `[ ... ]`"),
            ("echo >", "expected a file name"),
            ("f() { echo; }", "unexpected `(`"),
        ] {
            let (out, err, code) = sh(&env_with(&[]), script);
            assert_eq!((out.as_str(), code), ("", 2), "{script}");
            assert!(err.starts_with("sh: syntax error: ") && err.contains(says), "{script}: {err}");
        }
    }

    #[test]
    fn set_e_stops_at_the_first_unchecked_failure() {
        let env = env_with(&[]);
        assert_eq!(sh(&env, "set -e; echo a; false; echo b"), ("a\n".into(), String::new(), 1));
        assert_eq!(sh(&env, "set -e; false || echo handled; false && echo no; echo end").0, "handled\nend\n");
        assert_eq!(sh(&env, "set -euo pipefail; true | false; echo never").2, 1);
    }

    #[test]
    fn each_call_starts_fresh_with_options() {
        let env = env_with(&[("sub/x.txt", "x\n")]);
        assert_eq!(sh(&env, "cd sub; export A=1; pwd").0, "/workspace/sub\n");
        assert_eq!(sh(&env, "pwd; echo ${A}-").0, "/workspace\n-\n");
        let options = ExecOptions {
            working_dir: Some("sub".into()),
            env_vars: Some([("GREETING".to_owned(), "hi there".to_owned())].into_iter().collect()),
            ..ExecOptions::default()
        };
        let result = block_on(env.exec_command("echo \"$GREETING\" from $PWD; cat x.txt", &options)).unwrap();
        assert_eq!(result.stdout, "hi there from /workspace/sub\nx\n");
        let missing = ExecOptions { working_dir: Some("nope".into()), ..ExecOptions::default() };
        assert!(block_on(env.exec_command("pwd", &missing)).is_err());
    }

    #[test]
    fn sleep_waits_on_the_runtime_and_honours_the_timeout() {
        let runtime = Rc::new(VirtualRuntime::new(|_| {}));
        let env = crate::MemoryEnvironment::new(runtime.clone());
        let start = runtime.now_ms();
        let result = run_in(&env, "sleep 1.5; echo woke");
        assert_eq!((result.stdout.as_str(), result.duration_ms, result.timed_out), ("woke\n", 1500, false));

        let options = ExecOptions { timeout_ms: 2_000, ..ExecOptions::default() };
        let result = block_on(run(&env, "echo before; sleep 1; echo middle; sleep 5; echo after", &options)).unwrap();
        assert_eq!(result.stdout, "before\nmiddle\n");
        assert_eq!((result.exit_code, result.timed_out, result.duration_ms), (124, true, 2_000));
        assert_eq!(runtime.now_ms(), start + 3_500);
        assert_eq!(sh(&env, "sleep soon").1, "sleep: invalid time interval 'soon'\n");
        assert_eq!(sh(&env, "sleep 0.001m").2, 0);
    }

    #[test]
    fn a_script_that_runs_itself_stops_at_the_depth_limit() {
        let env = env_with(&[("loop.sh", "echo -n .\nbash loop.sh\n")]);
        let (out, err, code) = sh(&env, "bash loop.sh");
        assert_eq!((out.len(), code), (63, 2), "the top level counts as one");
        assert_eq!(err, "sh: scripts nest more than 64 deep; is a script running itself?\n");
    }

    #[test]
    fn output_streams_to_the_host_command_by_command() {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let sink = seen.clone();
        let options = ExecOptions {
            on_output: Some(Rc::new(move |text: &str| sink.borrow_mut().push(text.to_owned()))),
            ..ExecOptions::default()
        };
        let result = block_on(run(&env_with(&[]), "echo one; echo two >&2; echo three | cat", &options)).unwrap();
        assert_eq!(*seen.borrow(), ["one\n", "two\n", "three\n"]);
        assert_eq!((result.stdout.as_str(), result.stderr.as_str()), ("one\nthree\n", "two\n"));
    }
}
