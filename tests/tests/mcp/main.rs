//! The MCP client against real servers: the npm reference servers (`server-everything` over stdio
//! and over Streamable HTTP, `server-filesystem` over stdio) and a hostile one (`hostile.js`: it
//! crashes mid-call, never answers, sends malformed JSON-RPC, lists a tool whose schema does not
//! compile, or says its tools changed), all run with Node; and `openagent run` and the interactive
//! session with a configured server, the mock model asking for an MCP tool. Each test skips,
//! saying why, when Node or a package is missing (`scripts/test-all` installs them).

use std::collections::BTreeMap;
use std::rc::Rc;

use openagent_core::tools::{ToolContext, ToolError, ToolOutput};
use openagent_core::Runtime;
use openagent_host::mcp_stdio::StdioTransport;
use openagent_host::{LocalEnvironment, NativeHttpClient, NativeRuntime};
use openagent_mcp::{HttpTransport, McpClient, McpError, McpOptions, McpTools};
use openagent_tests::cli::Sandbox;
use openagent_tests::mcp::{hostile, server, EverythingOverHttp};
use openagent_tests::over_http::serve;
use openagent_tests::{Reply, Step, ToolCall};
use serde_json::{json, Value};

fn options(timeout_ms: u64) -> McpOptions {
    McpOptions { timeout_ms, ..McpOptions::default() }
}

/// Connects over stdio to `command args` and lists its tools.
fn stdio(
    runtime: &Rc<NativeRuntime>,
    name: &str,
    command: &str,
    args: &[String],
    timeout_ms: u64,
) -> Result<(Rc<McpClient>, McpTools), McpError> {
    let cwd = std::env::temp_dir();
    let transport = Rc::new(StdioTransport::spawn(name, command, args, &BTreeMap::new(), &cwd, None)?);
    let rt: Rc<dyn Runtime> = runtime.clone();
    runtime.block_on(async {
        let client = McpClient::connect(name, transport, rt, options(timeout_ms)).await?;
        let tools = client.tools().await?;
        Ok((client, tools))
    })
}

/// Calls the registered tool `name` as a session would.
fn call(runtime: &NativeRuntime, tools: &McpTools, name: &str, arguments: Value) -> Result<ToolOutput, ToolError> {
    let tool = tools.tools.iter().find(|t| t.definition.name == name).unwrap_or_else(|| panic!("no tool {name}"));
    tool.schema().validate(&arguments).expect("the arguments fit the tool's schema");
    let env = LocalEnvironment::new(std::env::temp_dir()).expect("an environment");
    let ctx = ToolContext::new(&env, 10_000, 10_000);
    runtime.block_on(tool.executor.execute(&arguments, &ctx))
}

fn names(tools: &McpTools) -> Vec<&str> {
    tools.tools.iter().map(|t| t.definition.name.as_str()).collect()
}

/// What every server-everything test checks: its tools listed and named, text, an image, the
/// sum, and an `isError`-free echo.
fn exercise_everything(runtime: &NativeRuntime, client: &McpClient, tools: &McpTools) {
    let info = client.server_info();
    assert!(["2025-06-18", "2025-11-25"].contains(&info.protocol_version.as_str()), "{info:?}");
    for expected in ["mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__get-tiny-image"] {
        assert!(names(tools).contains(&expected), "{expected} in {:?}", names(tools));
    }
    assert!(tools.warnings.is_empty(), "{:?}", tools.warnings);
    let echo = call(runtime, tools, "mcp__everything__echo", json!({"message": "ahoy"})).expect("echo");
    assert_eq!(echo.text, "Echo: ahoy");
    let sum = call(runtime, tools, "mcp__everything__get-sum", json!({"a": 2, "b": 3})).expect("sum");
    assert!(sum.text.contains('5'), "{sum:?}");
    let image = call(runtime, tools, "mcp__everything__get-tiny-image", json!({})).expect("image");
    let media = image.image.expect("an image in the output");
    assert_eq!(media.media_type.as_deref(), Some("image/png"));
    assert!(media.data.is_some_and(|bytes| bytes.starts_with(b"\x89PNG")), "PNG bytes");
}

#[test]
fn everything_over_stdio_lists_and_calls_tools() {
    let Some((node, script)) = server("server-everything") else { return };
    let runtime = Rc::new(NativeRuntime::new());
    let args = [script.display().to_string(), "stdio".into()];
    let (client, tools) = stdio(&runtime, "everything", &node.display().to_string(), &args, 30_000).expect("connects");
    exercise_everything(&runtime, &client, &tools);
    runtime.block_on(client.close());
}

#[test]
fn everything_over_streamable_http_keeps_its_session() {
    let Some(server) = EverythingOverHttp::start() else { return };
    let runtime = Rc::new(NativeRuntime::new());
    let transport = Rc::new(HttpTransport::new(server.url.clone(), vec![], Rc::new(NativeHttpClient::new())));
    let rt: Rc<dyn Runtime> = runtime.clone();
    let (client, tools) = runtime
        .block_on(async {
            let client = McpClient::connect("everything", transport.clone(), rt, options(30_000)).await?;
            let tools = client.tools().await?;
            Ok::<_, McpError>((client, tools))
        })
        .expect("connects over HTTP");
    assert!(transport.session_id().is_some_and(|id| !id.is_empty()), "the server gave an Mcp-Session-Id");
    exercise_everything(&runtime, &client, &tools);
}

/// A server that restarted answers the old session id with 404: the client starts a new session
/// and the call goes through.
#[test]
fn a_restarted_http_server_gets_a_new_session_and_the_call_goes_through() {
    let Some(server) = EverythingOverHttp::start() else { return };
    let runtime = Rc::new(NativeRuntime::new());
    let transport = Rc::new(HttpTransport::new(server.url.clone(), vec![], Rc::new(NativeHttpClient::new())));
    let rt: Rc<dyn Runtime> = runtime.clone();
    let (_client, tools) = runtime
        .block_on(async {
            let client = McpClient::connect("everything", transport.clone(), rt, options(30_000)).await?;
            let tools = client.tools().await?;
            Ok::<_, McpError>((client, tools))
        })
        .expect("connects over HTTP");
    let first = transport.session_id().expect("a session");
    let _server = server.restart();
    let echoed = call(&runtime, &tools, "mcp__everything__echo", json!({"message": "after the restart"})).expect("goes through");
    assert_eq!(echoed.text, "Echo: after the restart");
    assert!(transport.session_id().is_some_and(|id| id != first), "a new session");
}

#[test]
fn filesystem_over_stdio_reads_writes_and_refuses_outside() {
    let Some((node, script)) = server("server-filesystem") else { return };
    let sandbox = Sandbox::new();
    sandbox.write("notes.txt", "hello from the notes\n");
    let root = sandbox.cwd().canonicalize().expect("the directory");
    let runtime = Rc::new(NativeRuntime::new());
    let args = [script.display().to_string(), root.display().to_string()];
    let (_client, tools) = stdio(&runtime, "fs", &node.display().to_string(), &args, 30_000).expect("connects");
    let path = root.join("notes.txt").display().to_string();
    let read = call(&runtime, &tools, "mcp__fs__read_text_file", json!({"path": path})).expect("read");
    assert_eq!(read.text.trim_end(), "hello from the notes");
    let written = root.join("new.txt").display().to_string();
    call(&runtime, &tools, "mcp__fs__write_file", json!({"path": written, "content": "made by MCP"})).expect("write");
    assert_eq!(std::fs::read_to_string(root.join("new.txt")).expect("the file"), "made by MCP");
    let outside = call(&runtime, &tools, "mcp__fs__read_text_file", json!({"path": "/etc/hostname"})).expect_err("refused");
    assert!(outside.0.contains("denied") || outside.0.contains("outside"), "an isError result: {outside:?}");
}

#[test]
fn a_server_that_crashes_mid_call_is_an_error_result_naming_its_exit() {
    let Some((node, args)) = hostile("crash") else { return };
    let runtime = Rc::new(NativeRuntime::new());
    let (_client, tools) = stdio(&runtime, "hostile", &node.display().to_string(), &args, 10_000).expect("connects");
    let error = call(&runtime, &tools, "mcp__hostile__works", json!({})).expect_err("the server died");
    assert!(error.0.starts_with("MCP server hostile: MCP server hostile exited (exit status: 3)"), "{error:?}");
    assert!(error.0.contains("hostile: crashing on purpose"), "its stderr: {error:?}");
}

#[test]
fn a_server_that_writes_a_line_without_end_is_cut_off_at_16_mib_and_stopped() {
    let Some((node, args)) = hostile("endless") else { return };
    let runtime = Rc::new(NativeRuntime::new());
    let (_client, tools) = stdio(&runtime, "hostile", &node.display().to_string(), &args, 60_000).expect("connects");
    let started = std::time::Instant::now();
    let error = call(&runtime, &tools, "mcp__hostile__works", json!({})).expect_err("no answer fits");
    assert!(error.0.contains("MCP server hostile sent a message longer than 16 MiB; it was stopped"), "{error:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "not its 60 s timeout: {:?}", started.elapsed());
}

#[test]
fn a_server_that_never_answers_initialize_times_out() {
    let Some((node, args)) = hostile("silent") else { return };
    let runtime = Rc::new(NativeRuntime::new());
    let error = stdio(&runtime, "hostile", &node.display().to_string(), &args, 500).err().expect("a timeout");
    assert_eq!(error, McpError::Timeout { method: "initialize".into(), ms: 500 });
}

#[test]
fn malformed_json_rpc_is_a_protocol_error() {
    let Some((node, args)) = hostile("malformed") else { return };
    let runtime = Rc::new(NativeRuntime::new());
    let error = stdio(&runtime, "hostile", &node.display().to_string(), &args, 10_000).err().expect("refused");
    assert!(matches!(&error, McpError::Protocol(m) if m.starts_with("not JSON")), "{error}");
}

#[test]
fn a_tool_with_an_invalid_schema_is_skipped_and_the_others_work() {
    let Some((node, args)) = hostile("bad-schema") else { return };
    let runtime = Rc::new(NativeRuntime::new());
    let (_client, tools) = stdio(&runtime, "hostile", &node.display().to_string(), &args, 10_000).expect("connects");
    assert_eq!(names(&tools), ["mcp__hostile__works"]);
    assert_eq!(tools.warnings.len(), 1, "{:?}", tools.warnings);
    assert!(
        tools.warnings[0].starts_with("MCP server hostile: skipped tool broken: its inputSchema is not usable"),
        "{:?}",
        tools.warnings
    );
    assert_eq!(call(&runtime, &tools, "mcp__hostile__works", json!({})).expect("works").text, "it works");
}

#[test]
fn tools_with_empty_blank_or_control_character_names_are_skipped_naming_the_server() {
    let Some((node, args)) = hostile("bad-names") else { return };
    let runtime = Rc::new(NativeRuntime::new());
    let (_client, tools) = stdio(&runtime, "hostile", &node.display().to_string(), &args, 10_000).expect("connects");
    assert_eq!(names(&tools), ["mcp__hostile__works"]);
    let skipped =
        |shown: &str| format!("MCP server hostile: skipped tool \"{shown}\": its name is empty or holds control characters");
    assert_eq!(tools.warnings, [skipped(""), skipped("  "), skipped("a\\nb"), skipped("\\u{1b}[31mred")]);
}

/// `.openagent/mcp.json` with server-everything over stdio and a server that cannot start.
fn configured(sandbox: &Sandbox) -> Option<()> {
    let (node, script) = server("server-everything")?;
    let config = json!({"mcpServers": {
        "everything": {"command": node, "args": [script, "stdio"]},
        "gone": {"command": "/nonexistent/mcp-server"},
    }});
    write_mcp_json(sandbox, &config);
    sandbox.trust();
    Some(())
}

fn write_mcp_json(sandbox: &Sandbox, config: &Value) {
    std::fs::create_dir_all(sandbox.cwd().join(".openagent")).expect("the directory");
    sandbox.write(".openagent/mcp.json", &config.to_string());
}

#[test]
fn a_model_driven_run_calls_an_mcp_tool_and_the_answer_reaches_the_next_request() {
    let sandbox = Sandbox::new();
    if configured(&sandbox).is_none() {
        return;
    }
    let ask = ToolCall {
        name: "mcp__everything__echo".into(),
        arguments: json!({"message": "from the model"}),
        id: Some("toolu_mcp".into()),
    };
    let server = serve([
        Step::reply(Reply { tool_calls: vec![ask], ..Reply::default() }),
        Step::reply(Reply::text("The server echoed it.")),
    ]);
    let run = sandbox.run_json(&server, "echo something", &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stderr.contains("MCP server gone: cannot start `/nonexistent/mcp-server`"),
        "the broken server is reported: {run:?}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let offered: Vec<&str> =
        requests[0].body["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(offered.contains(&"mcp__everything__echo") && offered.contains(&"read_file"), "{offered:?}");
    let second = requests[1].body.to_string();
    assert!(second.contains("Echo: from the model"), "the server's answer reaches the model: {second}");
}

#[test]
fn mcp_list_shows_each_server_with_its_status_and_tools() {
    let sandbox = Sandbox::new();
    if configured(&sandbox).is_none() {
        return;
    }
    let list = openagent_tests::cli::Running::start(sandbox.openagent(None, &["mcp", "list"])).finish();
    assert_eq!(list.code, Some(1), "one server failed: {list:?}");
    assert!(list.stdout.contains("everything  connected  (stdio: "), "{list:?}");
    assert!(list.stdout.contains("\n  mcp__everything__echo  Echoes back the input string\n"), "{list:?}");
    assert!(
        list.stdout.contains("gone  error  (stdio: /nonexistent/mcp-server; sandbox full-access): MCP server gone: cannot start"),
        "{list:?}"
    );
    sandbox.write(".openagent/mcp.json", r#"{"mcpServers": {"x": {"url": "ftp://nope"}}}"#);
    let broken = openagent_tests::cli::Running::start(sandbox.openagent(None, &["mcp", "list"])).finish();
    assert_eq!(broken.code, Some(2), "{broken:?}");
    assert!(broken.stderr.contains(".openagent/mcp.json: server `x` `url` is `ftp://nope`"), "{broken:?}");
}

/// Each stdio server runs under its own `sandbox:` (full-access when absent: the user's own
/// program); `mcp list` says which, in text and JSON, and an HTTP server, run elsewhere, has none.
#[test]
fn mcp_list_shows_the_sandbox_each_server_runs_under() {
    let sandbox = Sandbox::new();
    let config = json!({"mcpServers": {
        "confined": {"command": "/nonexistent/confined", "sandbox": {"mode": "workspace-write", "network": ["crates.io"]}},
        "own": {"command": "/nonexistent/own"},
        "remote": {"url": "http://127.0.0.1:9/mcp"},
    }});
    write_mcp_json(&sandbox, &config);
    sandbox.trust();
    let list = openagent_tests::cli::Running::start(sandbox.openagent(None, &["mcp", "list"])).finish();
    assert_eq!(list.code, Some(1), "{list:?}");
    assert!(
        list.stdout
            .contains("confined  error  (stdio: /nonexistent/confined; sandbox workspace-write, network to crates.io only)"),
        "{list:?}"
    );
    assert!(list.stdout.contains("own  error  (stdio: /nonexistent/own; sandbox full-access)"), "{list:?}");
    assert!(list.stdout.contains("remote  error  (http: http://127.0.0.1:9/mcp)"), "{list:?}");
    let json = openagent_tests::cli::Running::start(sandbox.openagent(None, &["mcp", "list", "--json"])).finish();
    let rows: Value = serde_json::from_str(&json.stdout).expect("one JSON array");
    let policy = |name: &str| rows.as_array().unwrap().iter().find(|row| row["name"] == name).expect("listed")["sandbox"].clone();
    assert_eq!(policy("confined"), json!({"mode": "workspace-write", "network": ["crates.io"]}));
    assert_eq!(policy("own")["mode"], "full-access");
    assert_eq!(policy("remote"), Value::Null);

    write_mcp_json(&sandbox, &json!({"mcpServers": {"x": {"command": "srv", "sandbox": "jail"}}}));
    let broken = openagent_tests::cli::Running::start(sandbox.openagent(None, &["mcp", "list"])).finish();
    assert_eq!(broken.code, Some(2), "{broken:?}");
    assert!(
        broken.stderr.contains("unknown sandbox mode `jail`; the modes are read-only, workspace-write, full-access"),
        "{broken:?}"
    );
}

#[test]
fn a_changed_tool_list_reaches_the_model_in_its_next_request() {
    let Some((node, args)) = hostile("changing") else { return };
    let sandbox = Sandbox::new();
    write_mcp_json(&sandbox, &json!({"mcpServers": {"hostile": {"command": node, "args": args}}}));
    sandbox.trust();
    let ask = ToolCall { name: "mcp__hostile__works".into(), arguments: json!({}), id: Some("toolu_works".into()) };
    let server = serve([Step::reply(Reply { tool_calls: vec![ask], ..Reply::default() }), Step::reply(Reply::text("Done."))]);
    let run = sandbox.run_json(&server, "use the tool", &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let offered = |i: usize| -> Vec<String> {
        let body = &server.requests()[i].body;
        body["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).map(str::to_owned).collect()
    };
    assert!(offered(0).contains(&"mcp__hostile__works".to_owned()) && !offered(0).contains(&"mcp__hostile__added".to_owned()));
    assert!(offered(1).contains(&"mcp__hostile__added".to_owned()), "re-listed after list_changed: {:?}", offered(1));
}

#[test]
fn the_interactive_session_offers_mcp_tools_too() {
    let sandbox = Sandbox::new();
    if configured(&sandbox).is_none() {
        return;
    }
    let ask = ToolCall { name: "mcp__everything__echo".into(), arguments: json!({"message": "typed"}), id: None };
    let server = serve([Step::reply(Reply { tool_calls: vec![ask], ..Reply::default() }), Step::reply(Reply::text("Echoed."))]);
    // The interactive default (`auto-edit`) would ask before an MCP tool: this test is about the tools.
    let mut session = openagent_tests::cli::Running::with_stdin(sandbox.openagent(Some(&server), &["--approval", "full-auto"]));
    session.write("echo something\n");
    let run = session.finish();
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.contains("warning: MCP server gone: cannot start"), "{run:?}");
    assert!(server.requests()[1].body.to_string().contains("Echo: typed"), "the answer reached the model");
}

/// `.openagent/mcp.json` with the hostile server in its well-behaved mode, started through a
/// shell that leaves `started` behind: the proof that it was started.
fn configured_hostile(sandbox: &Sandbox) -> Option<()> {
    let (node, args) = hostile("changing")?;
    let script = format!("touch started; exec {} {}", node.display(), args.join(" "));
    write_mcp_json(sandbox, &json!({"mcpServers": {"hostile": {"command": "sh", "args": ["-c", script]}}}));
    Some(())
}

#[test]
fn an_untrusted_mcp_server_is_not_started_until_trusted_and_again_once_its_file_changes() {
    let sandbox = Sandbox::new();
    if configured_hostile(&sandbox).is_none() {
        return;
    }
    let server = serve([Step::reply(Reply::text("Done."))]);
    let run = sandbox.run_json(&server, "use the tool", &[]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let error = run.run_finished()["error"].as_str().expect("the error").to_owned();
    let file = sandbox.cwd().join(".openagent/mcp.json");
    assert!(error.starts_with(&format!("{} names hooks or MCP servers", file.display())), "{error}");
    assert!(error.contains(&format!("`openagent trust --cwd {} --data-dir ", sandbox.cwd().display())), "{error}");
    assert!(!sandbox.cwd().join("started").exists(), "the server was not started");

    let list = openagent_tests::cli::Running::start(sandbox.openagent(None, &["mcp", "list"])).finish();
    assert_eq!(list.code, Some(1), "{list:?}");
    assert!(list.stdout.starts_with("hostile  untrusted  (stdio: sh -c touch started;"), "{list:?}");
    assert!(list.stdout.contains("not started: ") && list.stdout.contains("openagent trust --cwd"), "{list:?}");
    assert!(!sandbox.cwd().join("started").exists(), "mcp list did not start it either");

    let trusted = sandbox.trust();
    assert!(trusted.stdout.contains("  MCP server hostile: stdio: sh -c touch started;"), "{trusted:?}");
    let run = sandbox.run_json(&server, "use the tool", &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(sandbox.cwd().join("started").exists(), "the trusted server was started");
    let offered = server.requests()[0].body["tools"].to_string();
    assert!(offered.contains("mcp__hostile__works"), "{offered}");

    std::fs::remove_file(sandbox.cwd().join("started")).expect("clean up");
    let changed = std::fs::read_to_string(&file).expect("the file").replace("touch started", "touch started ");
    sandbox.write(".openagent/mcp.json", &changed);
    let run = sandbox.run_json(&server, "use the tool", &[]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.run_finished()["error"].as_str().is_some_and(|e| e.contains("it changed since it was trusted")), "{run:?}");
    assert!(!sandbox.cwd().join("started").exists());
}

/// An MCP stdio server whose entry names a sandbox policy is held to it as the model's commands
/// are: no new privileges, seccomp on, and no write outside its writable roots.
#[test]
fn a_stdio_server_with_a_sandbox_policy_runs_confined() {
    let sandbox = Sandbox::new();
    let policy = openagent_core::sandbox::SandboxPolicy::default();
    if let Err(why) = openagent_host::local_env::check_sandbox(&policy, &sandbox.cwd()) {
        eprintln!("skipped: this kernel cannot confine commands: {why}");
        return;
    }
    let escape = format!("/etc/openagent-mcp-escape-{}", std::process::id());
    let script = format!(
        "grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status > status.tmp; echo x > {escape}; mv status.tmp status; sleep 30"
    );
    let args = ["-c".to_owned(), script];
    let transport =
        StdioTransport::spawn("confined", "/bin/bash", &args, &BTreeMap::new(), &sandbox.cwd(), Some(&policy)).unwrap();
    openagent_tests::cli::eventually("the server wrote its status", || sandbox.cwd().join("status").exists());
    drop(transport);
    let status = std::fs::read_to_string(sandbox.cwd().join("status")).unwrap();
    assert_eq!(status, "NoNewPrivs:\t1\nSeccomp:\t2\n");
    assert!(!std::path::Path::new(&escape).exists(), "the write outside its roots was refused");
}
