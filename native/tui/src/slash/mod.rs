//! What each slash command does to the session.

mod read_only;

use std::rc::Rc;

use crossterm::event::{Event, KeyCode};
use crossterm::style::{Color, Stylize};
use futures::channel::mpsc::UnboundedReceiver;
use futures::future::Either;
use futures::StreamExt;
use openagent_core::approval::ApprovalMode;
use openagent_core::llm::catalog::Catalog;
use openagent_core::runtime::{format_rfc3339, Runtime};
use openagent_core::sandbox::{Network, SandboxMode};
use openagent_core::setup::ProviderKind;
use openagent_core::SessionConfig;

use super::text::{self, Line};
use super::{build, Outside, State};
use openagent_host::runtime::NativeRuntime;
use openagent_runner::resume::{self, ResumeFrom, Resumed};
use openagent_runner::ExitReason;
use openagent_store::{SessionFilter, Store};

pub(super) use self::read_only::answer;

/// Sessions the `/resume` picker offers.
const PICKER_SIZE: usize = 10;

impl State {
    pub(super) fn command(
        &mut self,
        name: &str,
        arg: &str,
        runtime: &Rc<NativeRuntime>,
        keys: &mut UnboundedReceiver<Outside>,
        signals: Option<&mut UnboundedReceiver<i32>>,
    ) {
        let in_store = self.in_store();
        if answer(name, arg, &self.running.session, &self.running.launcher, &mut self.view, in_store) {
            return;
        }
        let outcome = match name {
            "model" => self.model(arg),
            "effort" => self.effort(arg),
            "clear" => {
                self.end(runtime);
                self.view.screen.clear();
                self.fresh(runtime);
                self.welcome();
                Ok(())
            }
            "compact" => self.compact(runtime, keys, signals),
            "resume" => self.resume(arg, runtime, keys, signals),
            "fork" => self.fork(runtime),
            "approval" => self.approval(arg),
            "sandbox" => self.sandbox(arg),
            _ => Err(format!("/{name} is not handled here")),
        };
        if let Err(message) = outcome {
            self.view.screen.note(Color::Red, "✗", &message);
        }
    }

    /// The conversation has a row in the store: written at its first input, or taken up from
    /// there (`--resume`, `--continue`, `/resume`, `/fork`).
    pub(super) fn in_store(&self) -> bool {
        self.stored || self.resuming
    }

    /// The session again, from its own snapshot, with the agent's settings as they are now.
    fn rebuild(&mut self) {
        let snapshot = self.running.session.snapshot();
        self.running.session =
            build(&self.running.launcher, &self.hooks, self.running.session.id(), self.running.session.config(), Some(snapshot));
    }

    fn model(&mut self, arg: &str) -> Result<(), String> {
        if arg.contains(char::is_whitespace) {
            return Err(format!("{arg:?} is not a model name"));
        }
        let unknown = check_model(&self.running.launcher.catalog, self.running.launcher.settings.kind, arg)?;
        self.running.launcher.model = arg.to_owned();
        self.view.model = arg.to_owned();
        self.rebuild();
        self.view.context.1 = self.window();
        self.view.screen.note(Color::Cyan, "·", &format!("model: {arg}, from the next input"));
        if unknown {
            let unknown =
                format!("{arg} is not in the model catalog: its window and prices are unknown (/model lists known ones)");
            self.view.screen.note(Color::Yellow, "!", &unknown);
        }
        Ok(())
    }

    fn effort(&mut self, arg: &str) -> Result<(), String> {
        let effort = match arg {
            "off" | "default" => None,
            "minimal" | "low" | "medium" | "high" => Some(arg.to_owned()),
            _ => return Err(format!("unknown effort {arg:?}: use low, medium, high, minimal or off")),
        };
        self.running.session.set_reasoning_effort(effort.clone());
        self.effort = Some(effort);
        self.view.screen.note(Color::Cyan, "·", &format!("reasoning effort: {}", if arg == "default" { "off" } else { arg }));
        Ok(())
    }

    fn approval(&mut self, arg: &str) -> Result<(), String> {
        self.running.launcher.policy.mode = ApprovalMode::parse(arg)?;
        self.rebuild();
        self.view.screen.note(Color::Cyan, "·", &format!("approval: {}", self.running.launcher.policy.mode.name()));
        Ok(())
    }

    /// `/sandbox MODE` or `/sandbox network off|on|HOSTS`: the policy of the sessions built from
    /// now on, once this machine is known to enforce it; the conversation stays.
    fn sandbox(&mut self, arg: &str) -> Result<(), String> {
        let mut policy = self.running.launcher.sandbox.clone();
        match arg.split_once(char::is_whitespace) {
            Some(("network", network)) => policy.network = Network::parse(network.trim())?,
            None if arg == "network" => return Err("/sandbox network takes off, on or hosts separated by commas".into()),
            // The network stays as it was; roots are for workspace-write only.
            _ => {
                policy.mode = SandboxMode::parse(arg)?;
                if policy.mode != SandboxMode::WorkspaceWrite {
                    policy.writable_roots.clear();
                }
            }
        }
        self.running.launcher.set_sandbox(policy).map_err(|e| e.to_string())?;
        self.rebuild();
        self.view.screen.note(
            Color::Cyan,
            "·",
            &format!("sandbox: {}, from the next input", self.running.launcher.sandbox.describe()),
        );
        Ok(())
    }

    fn compact(
        &mut self,
        runtime: &Rc<NativeRuntime>,
        keys: &mut UnboundedReceiver<Outside>,
        signals: Option<&mut UnboundedReceiver<i32>>,
    ) -> Result<(), String> {
        if !self.in_store() {
            return Err("nothing to compact yet: give the session a task first".into());
        }
        let result = self.drive(|session| Box::pin(session.compact()), runtime, keys, signals);
        if let Err(error) = result {
            return Err(format!("the conversation was not compacted: {}", self.running.launcher.explain(&error)));
        }
        Ok(())
    }

    fn resume(
        &mut self,
        arg: &str,
        runtime: &Rc<NativeRuntime>,
        keys: &mut UnboundedReceiver<Outside>,
        signals: Option<&mut UnboundedReceiver<i32>>,
    ) -> Result<(), String> {
        let id = match arg {
            "" => match runtime.block_on(self.pick(keys, signals))? {
                Some(id) => id,
                None => return Ok(()),
            },
            id => id.to_owned(),
        };
        if id == self.running.session.id() {
            return Err("that is this session".into());
        }
        let store = Store::open(&self.data_dir).map_err(|e| e.to_string())?;
        let resumed = Resumed::load(&store, &ResumeFrom::Id(id), &self.running.launcher.cwd).map_err(|e| resume::explain(&e))?;
        self.end(runtime);
        self.take_up(resumed);
        Ok(())
    }

    /// The `/resume` picker: the directory's latest sessions, ↑/↓ and Enter, Esc or Ctrl-C to
    /// cancel; a SIGTERM or SIGHUP ends the session from here too.
    async fn pick(
        &mut self,
        keys: &mut UnboundedReceiver<Outside>,
        mut signals: Option<&mut UnboundedReceiver<i32>>,
    ) -> Result<Option<String>, String> {
        let store = Store::open(&self.data_dir).map_err(|e| e.to_string())?;
        let cwd = self.running.launcher.cwd.display().to_string();
        let all = store.sessions(&SessionFilter::default()).map_err(|e| e.to_string())?;
        let sessions: Vec<_> = all
            .into_iter()
            .filter(|record| record.info.working_directory == cwd && record.info.id != self.running.session.id())
            .take(PICKER_SIZE)
            .collect();
        if sessions.is_empty() {
            return Err("no other session of this directory is stored".into());
        }
        let mut selected = 0;
        let chosen = loop {
            let mut lines = vec![Line::styled("Resume which session? ↑/↓, Enter; Esc cancels", text::bold())];
            for (index, record) in sessions.iter().enumerate() {
                let task: String = record.info.task.lines().next().unwrap_or("").chars().take(60).collect();
                let when = record.info.created_at.get(..16).unwrap_or(&record.info.created_at).replace('T', " ");
                let text = format!("{} {when}  {task}  ({})", if index == selected { "›" } else { " " }, record.status.as_str());
                let style = if index == selected { text::bold().with(Color::Cyan) } else { Default::default() };
                lines.push(Line::styled(text, style));
            }
            self.view.screen.live.question = lines;
            self.view.draw();
            let signal = async {
                match signals.as_deref_mut() {
                    Some(signals) => signals.next().await,
                    None => futures::future::pending().await,
                }
            };
            let outside = match futures::future::select(keys.next(), Box::pin(signal)).await {
                Either::Left((outside, _)) => outside,
                Either::Right((Some(libc::SIGINT), _)) => break None,
                Either::Right(_) => {
                    self.leaving.set(true);
                    break None;
                }
            };
            match outside {
                Some(Outside::Term(Event::Key(key))) => match key.code {
                    KeyCode::Up => selected = selected.saturating_sub(1),
                    KeyCode::Down => selected = (selected + 1).min(sessions.len() - 1),
                    KeyCode::Enter => break Some(sessions[selected].info.id.clone()),
                    KeyCode::Esc | KeyCode::Char('q') => break None,
                    KeyCode::Char('c') if key.modifiers.contains(crossterm::event::KeyModifiers::CONTROL) => break None,
                    _ => {}
                },
                Some(Outside::Term(Event::Resize(columns, rows))) => self.view.screen.resize(columns.into(), rows.into()),
                Some(Outside::Said(line)) => self.view.screen.note(Color::DarkGrey, "·", &line),
                Some(Outside::Gone) | None => {
                    self.leaving.set(true);
                    break None;
                }
                Some(_) => {}
            }
        };
        self.view.screen.live.question.clear();
        Ok(chosen)
    }

    fn fork(&mut self, runtime: &Rc<NativeRuntime>) -> Result<(), String> {
        if !self.in_store() {
            return Err("nothing to fork yet: give the session a task first".into());
        }
        let now = format_rfc3339(runtime.now_ms());
        self.running.report.checkpoint(&self.running.session, true, &now);
        let from = self.running.session.id().to_owned();
        // The fork is made first: if the store refuses it, the conversation goes on as it was.
        let mut store = Store::open(&self.data_dir).map_err(|e| e.to_string())?;
        let id = openagent_runner::new_run_id(runtime.now_ms());
        let forked = resume::fork(&mut store, &from, None, &id, &now).map_err(|e| resume::explain(&e))?;
        self.end(runtime);
        match Resumed::load(&store, &ResumeFrom::Id(forked.id), &self.running.launcher.cwd) {
            Ok(resumed) => self.take_up(resumed),
            Err(e) => {
                // The original is ended by now: a new conversation, rather than none.
                self.fresh(runtime);
                return Err(format!("the fork cannot be continued ({}); this is a new conversation", resume::explain(&e)));
            }
        }
        self.view.screen.note(Color::Cyan, "⑂", &format!("forked from {from}, which stays as it was"));
        Ok(())
    }

    /// Ends the current conversation: its store row finished, its session closed.
    pub(super) fn end(&mut self, runtime: &Rc<NativeRuntime>) {
        let now = format_rfc3339(runtime.now_ms());
        if std::mem::take(&mut self.stored) {
            self.running.report.finish_store(self.last_exit.as_deref().unwrap_or(ExitReason::Completed.as_str()), &now);
        }
        self.running.session.close();
        runtime.block_on(self.running.session.ended());
        self.last_exit = None;
        self.resuming = false;
    }

    /// A new conversation, after [`State::end`].
    fn fresh(&mut self, runtime: &Rc<NativeRuntime>) {
        let config = self.config(None);
        self.running.session =
            build(&self.running.launcher, &self.hooks, &openagent_runner::new_run_id(runtime.now_ms()), config, None);
        self.view.root = None;
        self.view.usage = Default::default();
        self.view.context = (0, self.window());
    }

    /// The settings of a conversation, new or continuing `resumed`: with the reasoning effort
    /// chosen here, as the model and approval mode chosen here are the agent's.
    fn config(&self, resumed: Option<&openagent_core::session::SessionSnapshot>) -> SessionConfig {
        let mut config = self.running.launcher.session_config(&self.limits, resumed);
        if let Some(effort) = &self.effort {
            config.reasoning_effort.clone_from(effort);
        }
        config
    }

    /// Continues the stored session `resumed` from here on.
    fn take_up(&mut self, resumed: Resumed) {
        let config = self.config(Some(&resumed.snapshot));
        self.running.session = build(&self.running.launcher, &self.hooks, resumed.id(), config, Some(resumed.snapshot.clone()));
        self.taken_up(&resumed);
    }

    /// The rest of taking up `resumed`, once the session is built from it.
    pub(super) fn taken_up(&mut self, resumed: &Resumed) {
        let turns = resumed.snapshot.state.history.len();
        self.view.root = None;
        self.view.usage = self.running.session.total_usage();
        self.view.context = (0, self.window());
        self.resuming = true;
        self.last_exit = resumed.record.exit_reason.clone();
        let task: String = resumed.record.info.task.lines().next().unwrap_or("").chars().take(80).collect();
        self.view.screen.note(Color::Cyan, "↺", &format!("resumed session {} ({turns} turns): {task}", resumed.id()));
    }

    /// Quitting: the session ends once its `session_end` hooks are done.
    pub(super) fn quit(&mut self, runtime: &Rc<NativeRuntime>) {
        self.view.screen.live.waiting = None;
        self.view.draw();
        self.end(runtime);
        openagent_host::signals::end_commands(openagent_runner::COMMANDS_END_WITHIN);
        self.view.screen.close();
    }
}

/// Whether `/model NAME` can switch to `name` on `provider`: a model the catalog gives to
/// another provider is refused (an OpenAI-compatible server serves any name); true when the
/// catalog does not know it, which is allowed with a note.
fn check_model(catalog: &Catalog, provider: ProviderKind, name: &str) -> Result<bool, String> {
    let Some(info) = catalog.get(name) else { return Ok(true) };
    if provider == ProviderKind::OpenAiCompatible || info.provider == provider.name() {
        return Ok(false);
    }
    Err(format!(
        "{name} is a model of {}, and this session talks to {}: to use it, quit and start again with \
         --provider {} --model {name} (/resume takes this conversation up there)",
        info.provider,
        provider.name(),
        info.provider
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_of_another_provider_is_refused_and_an_unknown_one_allowed() {
        let catalog = Catalog::builtin();
        let refused = check_model(catalog, ProviderKind::Anthropic, "gpt-5").unwrap_err();
        assert!(refused.starts_with("gpt-5 is a model of openai, and this session talks to anthropic"), "{refused}");
        assert!(refused.contains("--provider openai --model gpt-5"), "{refused}");
        assert_eq!(check_model(catalog, ProviderKind::Anthropic, "claude-haiku-4-5"), Ok(false));
        assert_eq!(check_model(catalog, ProviderKind::OpenAiCompatible, "gpt-5"), Ok(false));
        assert_eq!(check_model(catalog, ProviderKind::Anthropic, "my-finetune"), Ok(true));
    }
}
