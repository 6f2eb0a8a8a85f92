//! Events to JS, two ways: `agent.events()`, an async iterator (one subscription each, from
//! the moment it is made), and the `onEvent` callback option.

use std::cell::RefCell;
use std::rc::Rc;

use futures::StreamExt;
use js_sys::{Function, Promise};
use openagent_core::session::{EventData, Events, SessionEvent};
use wasm_bindgen::prelude::*;

use crate::convert::error;
use crate::crash::console_error;

#[wasm_bindgen(
    inline_js = "export function asyncIterable(it) { it[Symbol.asyncIterator] = function () { return this; }; return it; }
export function deliverAll(callback, events) {
  const thrown = [];
  for (const event of events) {
    try { callback.call(null, event); } catch (error) { thrown.push(error); }
  }
  return thrown;
}
const decoder = new TextDecoder();
export function parseEvents(json, outputs, ends) {
  const events = JSON.parse(decoder.decode(json));
  for (let i = 0, start = 0; i < ends.length; i += 2) {
    events[ends[i]].data.output = decoder.decode(outputs.subarray(start, ends[i + 1]));
    start = ends[i + 1];
  }
  return events;
}"
)]
extern "C" {
    #[wasm_bindgen(js_name = asyncIterable)]
    pub fn async_iterable(iterator: JsValue) -> JsValue;
    /// Calls `callback` with each of `events` in order; what the calls threw.
    #[wasm_bindgen(js_name = deliverAll)]
    fn deliver_all(callback: &Function, events: &JsValue) -> js_sys::Array;
    /// A JSON array of events as JS values, read straight from the module's memory (the text
    /// needs no check that it is UTF-8 on this side: `write_json` writes it from `str`s); then
    /// the tool outputs left out of it, `outputs` cut at `ends`' offsets, each after the index of
    /// the event it goes in.
    #[wasm_bindgen(js_name = parseEvents, catch)]
    fn parse_events(json: &[u8], outputs: &[u8], ends: &[u32]) -> Result<js_sys::Array, JsValue>;
}

/// Events as JS objects, through one JSON text written from them directly. A tool's output goes
/// beside the text, as bytes: JS decodes those about six times as fast as it parses them escaped,
/// and they need no escaping here.
fn to_js_events(events: &[SessionEvent]) -> Result<js_sys::Array, JsValue> {
    let mut text = vec![b'['];
    let (mut outputs, mut ends) = (Vec::new(), Vec::new());
    for (i, event) in events.iter().enumerate() {
        if i > 0 {
            text.push(b',');
        }
        match &event.data {
            EventData::ToolCallEnd { call_id, tool_name, output: Some(output), error, duration_ms } => {
                // Field by field: cloning the event would bring every kind's `Clone` into the
                // bundle (1.1 KB gzipped).
                let data = EventData::ToolCallEnd {
                    call_id: call_id.clone(),
                    tool_name: tool_name.clone(),
                    output: None,
                    error: error.clone(),
                    duration_ms: *duration_ms,
                };
                SessionEvent { data, timestamp: event.timestamp.clone(), session_id: event.session_id.clone() }
                    .write_json(&mut text);
                outputs.extend_from_slice(output.as_bytes());
                ends.extend([i as u32, outputs.len() as u32]);
            }
            _ => event.write_json(&mut text),
        }
    }
    text.push(b']');
    parse_events(&text, &outputs, &ends)
}

type Receiver = Rc<RefCell<Option<Events>>>;

/// An async iterator over a session's events; it ends after `session_end`.
#[wasm_bindgen]
pub struct EventStream {
    receiver: Receiver,
    /// Taken out of `receiver` while a `next()` waits.
    waiting: Rc<std::cell::Cell<bool>>,
}

impl EventStream {
    pub fn new(receiver: Events) -> Self {
        Self { receiver: Rc::new(RefCell::new(Some(receiver))), waiting: Rc::default() }
    }
}

fn step(value: Option<&SessionEvent>) -> Result<JsValue, JsValue> {
    let result = js_sys::Object::new();
    let (value, done) = match value {
        Some(event) => (to_js_events(std::slice::from_ref(event))?.get(0), false),
        None => (JsValue::UNDEFINED, true),
    };
    js_sys::Reflect::set(&result, &"value".into(), &value)?;
    js_sys::Reflect::set(&result, &"done".into(), &done.into())?;
    Ok(result.into())
}

#[wasm_bindgen]
impl EventStream {
    /// The next event, or `done` once the session has ended.
    #[wasm_bindgen(unchecked_return_type = "Promise<IteratorResult<AgentEvent, undefined>>")]
    pub fn next(&self) -> Promise {
        if self.waiting.replace(true) {
            return Promise::reject(&error("events(): call next() again only after the previous call settled"));
        }
        let (receiver, waiting) = (self.receiver.clone(), self.waiting.clone());
        let taken = receiver.borrow_mut().take();
        crate::crash::promise(async move {
            let Some(mut rx) = taken else {
                waiting.set(false);
                return step(None);
            };
            let event = rx.next().await;
            let ended = matches!(event, None | Some(SessionEvent { data: EventData::SessionEnd { .. }, .. }));
            if !ended {
                *receiver.borrow_mut() = Some(rx);
            }
            waiting.set(false);
            step(event.as_ref())
        })
    }

    /// Stops the iteration (`break` in a `for await` calls it).
    #[wasm_bindgen(js_name = "return", unchecked_return_type = "Promise<IteratorResult<AgentEvent, undefined>>")]
    pub fn finish(&self) -> Promise {
        self.receiver.borrow_mut().take();
        step(None).map_or_else(|e| Promise::reject(&e), |v| Promise::resolve(&v))
    }
}

/// Hands every event to the page's `onEvent`, in order. The agent flushes it before a
/// `submit()` promise settles, so every event of an input has been seen by then. The events
/// emitted together (a tool round makes several at once) cross into JS together: one JSON text
/// and one call, which loops over them in JS.
pub struct Dispatcher {
    receiver: RefCell<Events>,
    callback: Function,
}

impl Dispatcher {
    /// Starts delivering `receiver`'s events to `callback` as they come.
    pub fn start(receiver: Events, callback: Function) -> Rc<Self> {
        let dispatcher = Rc::new(Self { receiver: RefCell::new(receiver), callback });
        let pump = dispatcher.clone();
        wasm_bindgen_futures::spawn_local(async move {
            // Borrowed only inside each poll, so `flush` may run between polls.
            while let Some(event) = futures::future::poll_fn(|cx| pump.receiver.borrow_mut().poll_next_unpin(cx)).await {
                pump.deliver(vec![event]);
            }
        });
        dispatcher
    }

    /// Delivers what has been emitted and not yet delivered.
    pub fn flush(&self) {
        self.deliver(Vec::new());
    }

    /// Delivers `events`, then every event waiting after them.
    fn deliver(&self, mut events: Vec<SessionEvent>) {
        while let Some(event) = self.receiver.borrow_mut().try_recv() {
            events.push(event);
        }
        if events.is_empty() {
            return;
        }
        let events = match to_js_events(&events) {
            Ok(events) => events,
            Err(e) => return console_error(&format!("OpenAgent: events could not be read: {}", crate::fetch::describe(&e))),
        };
        for thrown in deliver_all(&self.callback, &events).iter() {
            console_error(&format!("OpenAgent: the onEvent callback threw: {}", crate::fetch::describe(&thrown)));
        }
    }
}
