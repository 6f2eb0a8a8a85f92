//! `agent.addMcpServer({ name, url, headers, timeoutMs })`: an MCP server over Streamable HTTP,
//! reached with the page's `fetch` (so the server must allow the page's origin, CORS, and expose
//! `Mcp-Session-Id`), whose tools the model is offered as `mcp__<name>__<tool>`.

use std::cell::RefCell;
use std::rc::Rc;

use openagent_core::llm::http::HttpClient;
use openagent_core::Session;
use openagent_mcp::{HttpTransport, McpClient, McpOptions};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::JsValue;

use crate::convert::{error, to_js, to_json};
use crate::runtime::BrowserRuntime;

/// What `addMcpServer` resolves to.
#[derive(Serialize)]
pub(crate) struct McpServerAdded {
    pub name: String,
    /// The tools registered, by the name the model sees.
    pub tools: Vec<String>,
    /// A tool left out, and why (its schema is not usable).
    pub warnings: Vec<String>,
}

/// A server's options, checked.
pub(crate) struct McpServerOptions {
    name: String,
    url: String,
    headers: Vec<(String, String)>,
    timeout_ms: Option<u64>,
}

const FIELDS: [&str; 4] = ["name", "url", "headers", "timeoutMs"];

impl McpServerOptions {
    pub fn from_js(js: &JsValue) -> Result<Self, JsValue> {
        let invalid = |why: &str| error(&["addMcpServer: ", why].concat());
        let data = to_json(js, "the server")?;
        let Value::Object(fields) = data else { return Err(invalid("pass { name, url, headers? }")) };
        if let Some(key) = fields.keys().find(|key| !FIELDS.contains(&key.as_str())) {
            return Err(invalid(&["unknown field `", key, "`; the fields are ", &FIELDS.join(", ")].concat()));
        }
        let text = |key| fields.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
        let name = text("name");
        if !openagent_mcp::is_server_name(&name) {
            return Err(invalid("`name` must be letters, digits, `_` and `-` (it names the tools: mcp__<name>__<tool>)"));
        }
        let url = text("url");
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(invalid("`url` must be an http:// or https:// URL"));
        }
        let mut headers = Vec::new();
        match fields.get("headers") {
            None | Some(Value::Null) => {}
            Some(Value::Object(map)) => {
                for (key, value) in map {
                    let value = value.as_str().ok_or_else(|| invalid(&["header `", key, "` must be a string"].concat()))?;
                    headers.push((key.clone(), value.to_owned()));
                }
            }
            Some(_) => return Err(invalid("`headers` must be an object of strings")),
        }
        let timeout_ms = match fields.get("timeoutMs") {
            None | Some(Value::Null) => None,
            Some(value) => {
                Some(value.as_u64().filter(|ms| *ms > 0).ok_or_else(|| invalid("`timeoutMs` must be a positive integer"))?)
            }
        };
        Ok(Self { name, url, headers, timeout_ms })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Connects, lists the tools and registers them in `session`, keeping them current when the
    /// server says its list changed; the client joins `clients`, which the agent releases.
    pub async fn connect(
        self,
        session: Session,
        http: Rc<dyn HttpClient>,
        clients: Rc<RefCell<Vec<Rc<McpClient>>>>,
    ) -> Result<JsValue, JsValue> {
        let transport = Rc::new(HttpTransport::new(self.url, self.headers, http));
        let mut options = McpOptions::default();
        if let Some(ms) = self.timeout_ms {
            options.timeout_ms = ms;
        }
        let failed = |e: openagent_mcp::McpError| error(&["MCP server ", &self.name, ": ", &e.to_string()].concat());
        let client = McpClient::connect(&self.name, transport, Rc::new(BrowserRuntime), options).await.map_err(failed)?;
        let listed = client.tools().await.map_err(failed)?;
        let tools = listed.tools.iter().map(|tool| tool.definition.name.clone()).collect();
        client.register_in(&session, &listed);
        clients.borrow_mut().push(client);
        to_js(&McpServerAdded { name: self.name, tools, warnings: listed.warnings })
    }
}
