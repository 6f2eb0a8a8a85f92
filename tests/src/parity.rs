//! For the spec 9.12 matrix and the 9.13 smoke test: the three provider families, each with its
//! profile, its wire API and its tools' conventions (what a model of that family sends), and a
//! [`Harness`] that runs a profile's `Session` over HTTP against a scripted [`MockServer`].

use std::rc::Rc;

use futures::executor::block_on;
use futures::future::{select, Either};
use futures::StreamExt;
use openagent_core::runtime::{Runtime, VirtualRuntime};
use openagent_core::session::{EventData, Events, StopReason};
use openagent_core::{
    AnthropicProfile, ExecutionEnvironment, GeminiProfile, OpenAiProfile, ProviderProfile, Session, SessionConfig, SessionEvent,
};
use openagent_host::NativeRuntime;
use openagent_memenv::MemoryEnvironment;
use serde_json::{json, Value};

use crate::over_http::{drain, model, serve};
use crate::{Api, MockServer, Reply, Step};

/// A provider's profile, driven through that provider's own wire API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    OpenAi,
    Anthropic,
    Gemini,
}

pub const FAMILIES: [Family; 3] = [Family::OpenAi, Family::Anthropic, Family::Gemini];

/// A tool call as a model sends it: the tool's name and its arguments.
pub type Call = (&'static str, Value);

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Self::OpenAi => "OpenAI",
            Self::Anthropic => "Anthropic",
            Self::Gemini => "Gemini",
        }
    }

    pub fn api(self) -> Api {
        match self {
            Self::OpenAi => Api::OpenAiResponses,
            Self::Anthropic => Api::Anthropic,
            Self::Gemini => Api::Gemini,
        }
    }

    pub fn profile(self) -> Rc<dyn ProviderProfile> {
        match self {
            Self::OpenAi => Rc::new(OpenAiProfile::new("gpt-5")),
            Self::Anthropic => Rc::new(AnthropicProfile::new("claude-sonnet-4-5")),
            Self::Gemini => Rc::new(GeminiProfile::new("gemini-2.5-pro")),
        }
    }

    /// A new file: codex adds it with apply_patch, the others write it.
    pub fn create(self, path: &str, content: &str) -> Call {
        match self {
            Self::OpenAi => {
                let added: String = content.lines().map(|l| format!("+{l}\n")).collect();
                ("apply_patch", json!({"patch": format!("*** Begin Patch\n*** Add File: {path}\n{added}*** End Patch\n")}))
            }
            _ => ("write_file", json!({"file_path": path, "content": content})),
        }
    }

    /// Replaces `old` with `new` in one file: an apply_patch hunk, or edit_file's exact strings.
    pub fn edit(self, path: &str, old: &str, new: &str) -> Call {
        match self {
            Self::OpenAi => ("apply_patch", json!({"patch": patch(&[(path, old, new)])})),
            _ => ("edit_file", json!({"file_path": path, "old_string": old, "new_string": new})),
        }
    }

    /// A shell command; Claude Code's shell calls its timeout `timeout` and describes the command.
    pub fn shell(self, command: &str, timeout_ms: Option<u64>) -> Call {
        let mut args = json!({"command": command});
        match self {
            Self::Anthropic => {
                args["description"] = json!("Run the command");
                if let Some(ms) = timeout_ms {
                    args["timeout"] = json!(ms);
                }
            }
            _ => {
                if let Some(ms) = timeout_ms {
                    args["timeout_ms"] = json!(ms);
                }
            }
        }
        ("shell", args)
    }

    /// Files whose content matches `pattern`, among those matching `files`, in each grep's terms.
    pub fn grep(self, pattern: &str, files: &str) -> Call {
        let filter = match self {
            Self::OpenAi => "include",
            Self::Anthropic => "glob",
            Self::Gemini => "glob_filter",
        };
        ("grep", json!({"pattern": pattern, filter: files}))
    }

    /// Edits in several files in one session: one patch for codex, an edit_file round per file
    /// for the others; then `answer`.
    pub fn edit_many_steps(self, edits: &[(&str, &str, &str)], answer: &str) -> Vec<Step> {
        let mut steps: Vec<Step> = match self {
            Self::OpenAi => vec![reply_calling(("apply_patch", json!({"patch": patch(edits)})))],
            _ => edits.iter().map(|(path, old, new)| reply_calling(self.edit(path, old, new))).collect(),
        };
        steps.push(Step::reply(Reply::text(answer)));
        steps
    }

    /// What each family's own editing format can do beyond one replacement: a patch that updates
    /// two places by context hint, deletes one file and adds another (codex); an edit_file with
    /// replace_all, and a new file (Claude Code, gemini-cli).
    pub fn native_edit_steps(self) -> Vec<Step> {
        let call = match self {
            Self::OpenAi => (
                "apply_patch",
                json!({"patch": "*** Begin Patch\n\
                    *** Update File: lib/util.py\n\
                    @@ def helper():\n-    return OLD\n+    return NEW\n\
                    @@ def other():\n-    return OLD\n+    return NEW\n\
                    *** End of File\n\
                    *** Delete File: lib/obsolete.py\n\
                    *** Add File: lib/__init__.py\n+from .util import helper\n\
                    *** End Patch\n"}),
            ),
            _ => {
                ("edit_file", json!({"file_path": "lib/util.py", "old_string": "OLD", "new_string": "NEW", "replace_all": true}))
            }
        };
        let mut steps = vec![reply_calling(call)];
        if self != Self::OpenAi {
            steps.push(reply_calling(self.shell("rm lib/obsolete.py", None)));
            steps.push(reply_calling(self.create("lib/__init__.py", "from .util import helper\n")));
        }
        steps.push(Step::reply(Reply::text("util.py returns NEW; obsolete.py is gone; lib is a package.")));
        steps
    }

    pub fn check_native_edit(self, h: &Harness) {
        assert_eq!(h.file("lib/util.py"), "def helper():\n    return NEW\n\n\ndef other():\n    return NEW\n");
        assert!(!block_on(h.env.file_exists("lib/obsolete.py")), "deleted");
        assert_eq!(h.file("lib/__init__.py"), "from .util import helper\n");
        assert!(h.tool_outputs().iter().all(Result::is_ok), "{:?}", h.tool_outputs());
    }

    /// The reasoning effort as `body` carries it in this API's own field.
    pub fn effort_sent(self, body: &Value) -> Value {
        match self {
            Self::OpenAi => body["reasoning"]["effort"].clone(),
            Self::Anthropic => body["thinking"]["budget_tokens"].clone(),
            Self::Gemini => body["generationConfig"]["thinkingConfig"]["thinkingBudget"].clone(),
        }
    }

    /// What [`effort_sent`](Self::effort_sent) should find for `effort` (the codecs' budgets).
    pub fn effort_value(self, effort: &str) -> Value {
        match (self, effort) {
            (Self::OpenAi, _) => json!(effort),
            (Self::Anthropic, "low") => json!(2048),
            (Self::Anthropic, "high") => json!(24576),
            (Self::Gemini, "low") => json!(1024),
            (Self::Gemini, "high") => json!(24576),
            _ => panic!("no expectation for {effort}"),
        }
    }

    /// The tool names a request offers the model.
    pub fn tools_offered(self, body: &Value) -> Vec<String> {
        let tools = body["tools"].as_array().into_iter().flatten();
        let tools: Vec<&Value> = match self {
            Self::Gemini => tools.flat_map(|t| t["functionDeclarations"].as_array().into_iter().flatten()).collect(),
            _ => tools.collect(),
        };
        tools.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect()
    }
}

/// A v4a patch replacing `old` with `new` in each file (a hunk per file, the lines found by
/// their content).
fn patch(edits: &[(&str, &str, &str)]) -> String {
    let mut out = String::from("*** Begin Patch\n");
    for (path, old, new) in edits {
        out += &format!("*** Update File: {path}\n@@\n");
        out.extend(old.lines().map(|l| format!("-{l}\n")));
        out.extend(new.lines().map(|l| format!("+{l}\n")));
    }
    out + "*** End Patch\n"
}

pub fn reply_calling((name, args): Call) -> Step {
    Step::reply(Reply::default().with_tool_call(name, args))
}

/// [`Reply::with_tool_call`] for a [`Call`].
pub trait WithCall {
    fn with_call(self, call: Call) -> Self;
}

impl WithCall for Reply {
    fn with_call(self, (name, args): Call) -> Self {
        self.with_tool_call(name, args)
    }
}

/// The user-role texts a request carries, in order (inputs, steering, loop warnings); tool
/// results, which some APIs send in user turns, are not text.
pub fn user_texts(api: Api, body: &Value) -> Vec<String> {
    let items = |v: &Value| v.as_array().cloned().unwrap_or_default();
    let texts = |content: &Value, text_types: &[&str]| -> Vec<String> {
        match content {
            Value::String(s) => vec![s.clone()],
            _ => items(content)
                .iter()
                .filter(|p| text_types.is_empty() || text_types.contains(&p["type"].as_str().unwrap_or_default()))
                .filter_map(|p| p["text"].as_str().map(str::to_owned))
                .collect(),
        }
    };
    let (list, content, types): (&str, &str, &[&str]) = match api {
        Api::Anthropic | Api::OpenAiChat => ("messages", "content", &["text"]),
        Api::OpenAiResponses => ("input", "content", &["input_text"]),
        Api::Gemini => ("contents", "parts", &[]),
    };
    items(&body[list]).iter().filter(|m| m["role"] == "user").flat_map(|m| texts(&m[content], types)).collect()
}

/// One profile's session over HTTP to a scripted mock, on a MemoryEnvironment, with every event
/// it emitted so far.
pub struct Harness {
    pub family: Family,
    pub server: MockServer,
    pub session: Session,
    pub env: Rc<MemoryEnvironment>,
    runtime: Rc<NativeRuntime>,
    receiver: Events,
    pub events: Vec<SessionEvent>,
}

impl Harness {
    pub fn start(family: Family, steps: Vec<Step>) -> Self {
        Self::start_with(family, steps, SessionConfig::default())
    }

    pub fn start_with(family: Family, steps: Vec<Step>, config: SessionConfig) -> Self {
        let runtime = Rc::new(NativeRuntime::new());
        Self::build(family, steps, config, runtime.clone(), runtime)
    }

    /// As [`start`](Self::start), but the session and its shell run on a virtual clock: a
    /// `sleep` or a command timeout costs no real time. HTTP and spawned tasks (subagents) still
    /// run on the native runtime.
    pub fn start_on_virtual_clock(family: Family, steps: Vec<Step>) -> Self {
        let runtime = Rc::new(NativeRuntime::new());
        let native = runtime.clone();
        let clock = Rc::new(VirtualRuntime::new(move |task| native.spawn_local(task)));
        Self::build(family, steps, SessionConfig::default(), runtime, clock)
    }

    fn build(
        family: Family,
        steps: Vec<Step>,
        config: SessionConfig,
        runtime: Rc<NativeRuntime>,
        clock: Rc<dyn Runtime>,
    ) -> Self {
        let server = serve(steps);
        let env = Rc::new(MemoryEnvironment::new(clock.clone()));
        let session = Session::builder(family.profile(), env.clone(), model(family.api(), &server), clock).config(config).build();
        let receiver = session.events();
        Self { family, server, session, env, runtime, receiver, events: Vec::new() }
    }

    pub fn seed(&self, path: &str, content: &str) {
        block_on(self.env.write_file(path, content)).unwrap_or_else(|e| panic!("seeding {path}: {e}"));
    }

    pub fn file(&self, path: &str) -> String {
        block_on(self.env.read_file(path, None, None)).unwrap_or_else(|e| panic!("reading {path}: {e}"))
    }

    /// Submits `input` and expects the model to finish normally.
    pub fn submit_ok(&mut self, input: &str) {
        self.submit_with(input, |_| true);
    }

    /// Submits `input`, calling `hook` with each event as it happens (the host's view) until the
    /// hook returns true; expects the model to finish normally.
    pub fn submit_with(&mut self, input: &str, mut hook: impl FnMut(&SessionEvent) -> bool) {
        let Self { session, runtime, receiver, events, .. } = self;
        let watch = async {
            while let Some(event) = receiver.next().await {
                let done = hook(&event);
                events.push(event);
                if done {
                    break;
                }
            }
        };
        let stop = runtime.block_on(async {
            match select(Box::pin(session.submit(input)), Box::pin(watch)).await {
                Either::Left((stop, _)) => stop,
                Either::Right(((), submit)) => submit.await,
            }
        });
        self.events.extend(drain(&mut self.receiver));
        let errors: Vec<&SessionEvent> = self.events.iter().filter(|e| matches!(e.data, EventData::Error { .. })).collect();
        match stop {
            Ok(StopReason::Completed) => {}
            other => panic!("{}: {input:?} ended with {other:?}; errors: {errors:?}", self.family.name()),
        }
    }

    /// The body of the `i`th request the mock received.
    pub fn request(&self, i: usize) -> Value {
        let requests = self.server.requests();
        requests.get(i).unwrap_or_else(|| panic!("only {} requests", requests.len())).body.clone()
    }

    /// This session's own tool calls (not its subagents'), from their end events: the full
    /// output, or the error.
    pub fn tool_outputs(&self) -> Vec<Result<String, String>> {
        self.own_events()
            .filter_map(|e| match &e.data {
                EventData::ToolCallEnd { output, error, .. } => {
                    Some(error.clone().map_or_else(|| Ok(output.as_deref().unwrap_or_default().to_owned()), Err))
                }
                _ => None,
            })
            .collect()
    }

    /// The names of this session's own tool calls, in call order.
    pub fn tool_names(&self) -> Vec<String> {
        self.own_events()
            .filter_map(|e| match &e.data {
                EventData::ToolCallStart { tool_name, .. } => Some(tool_name.clone()),
                _ => None,
            })
            .collect()
    }

    /// The ids of this session's own tool calls, in call order.
    pub fn call_ids(&self) -> Vec<String> {
        self.own_events()
            .filter_map(|e| match &e.data {
                EventData::ToolCallStart { call_id, .. } => Some(call_id.clone()),
                _ => None,
            })
            .collect()
    }

    fn own_events(&self) -> impl Iterator<Item = &SessionEvent> {
        let id = self.session.id().to_owned();
        self.events.iter().filter(move |e| e.session_id == id)
    }
}
