//! What a tool call costs through MCP over stdio: server-everything's `echo` called through its
//! registered tool (JSON-RPC out on the pipe, Node answers, the result mapped), beside a native
//! tool (`read_file` of a small file through `LocalEnvironment`) called the same way. Skips,
//! saying why, when Node or the server is missing (`scripts/test-all` installs them).
//!
//! `cargo bench -p openagent-tests --bench mcp_tool_call`

use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use openagent_core::tools::{RegisteredTool, ToolContext};
use openagent_core::Runtime;
use openagent_host::mcp_stdio::StdioTransport;
use openagent_host::{LocalEnvironment, NativeRuntime};
use openagent_mcp::{McpClient, McpOptions};
use serde_json::{json, Value};

const CALLS: usize = 500;

fn main() {
    let Some((node, script)) = openagent_tests::mcp::server("server-everything") else { return };
    let dir = std::env::temp_dir().join(format!("openagent-mcp-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    std::fs::write(dir.join("small.txt"), "hello\n").expect("a file");
    let env = LocalEnvironment::new(&dir).expect("the environment");
    let runtime = Rc::new(NativeRuntime::new());
    let ctx = ToolContext::new(&env, 10_000, 10_000);

    let started = Instant::now();
    let args = [script.display().to_string(), "stdio".into()];
    let transport = Rc::new(
        StdioTransport::spawn("everything", &node.display().to_string(), &args, &BTreeMap::new(), &dir, None).expect("spawns"),
    );
    let rt: Rc<dyn Runtime> = runtime.clone();
    let (client, tools) = runtime
        .block_on(async {
            let client = McpClient::connect("everything", transport, rt, McpOptions::default()).await?;
            let tools = client.tools().await?;
            Ok::<_, openagent_mcp::McpError>((client, tools))
        })
        .expect("connects");
    let connect = started.elapsed();
    let echo = tools.tools.into_iter().find(|t| t.definition.name == "mcp__everything__echo").expect("echo");
    let read_file =
        openagent_core::tools::core_tools().into_iter().find(|t| t.definition.name == "read_file").expect("read_file");

    let mcp = time(&runtime, &echo, &json!({"message": "hello"}), &ctx);
    let native = time(&runtime, &read_file, &json!({"file_path": "small.txt"}), &ctx);
    runtime.block_on(client.close());
    let _ = std::fs::remove_dir_all(&dir);

    println!(
        "mcp_tool_call: one tool call, {CALLS} calls each (start and initialize of server-everything: {:.0} ms)",
        ms(connect)
    );
    print_figures("MCP stdio echo", mcp);
    print_figures("native read_file", native);
}

fn time(runtime: &NativeRuntime, tool: &RegisteredTool, arguments: &Value, ctx: &ToolContext<'_>) -> Vec<Duration> {
    (0..CALLS)
        .map(|_| {
            let started = Instant::now();
            runtime.block_on(tool.executor.execute(arguments, ctx)).expect("the call succeeds");
            started.elapsed()
        })
        .collect()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn print_figures(what: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let pick = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    println!("  {what:<18} median {:>7.0} µs  p90 {:>7.0} µs  min {:>7.0} µs", us(pick(0.5)), us(pick(0.9)), us(samples[0]));
}
