//! Events to JS, two ways: `agent.events()`, an async iterator (one subscription each, from
//! the moment it is made), and the `onEvent` callback option.

use std::cell::RefCell;
use std::rc::Rc;

use futures::channel::mpsc::UnboundedReceiver;
use futures::StreamExt;
use js_sys::{Function, Promise};
use openagent_core::session::{EventData, SessionEvent};
use wasm_bindgen::prelude::*;

use crate::convert::{error, to_js};
use crate::panic::console_error;

#[wasm_bindgen(
    inline_js = "export function asyncIterable(it) { it[Symbol.asyncIterator] = function () { return this; }; return it; }"
)]
extern "C" {
    #[wasm_bindgen(js_name = asyncIterable)]
    pub fn async_iterable(iterator: JsValue) -> JsValue;
}

type Receiver = Rc<RefCell<Option<UnboundedReceiver<SessionEvent>>>>;

/// An async iterator over a session's events; it ends after `session_end`.
#[wasm_bindgen]
pub struct EventStream {
    receiver: Receiver,
    /// Taken out of `receiver` while a `next()` waits.
    waiting: Rc<std::cell::Cell<bool>>,
}

impl EventStream {
    pub fn new(receiver: UnboundedReceiver<SessionEvent>) -> Self {
        Self { receiver: Rc::new(RefCell::new(Some(receiver))), waiting: Rc::default() }
    }
}

fn step(value: Option<&SessionEvent>) -> Result<JsValue, JsValue> {
    let result = js_sys::Object::new();
    let (value, done) = match value {
        Some(event) => (to_js(event)?, false),
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
        crate::panic::promise(async move {
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
/// `submit()` promise settles, so every event of an input has been seen by then.
pub struct Dispatcher {
    receiver: RefCell<UnboundedReceiver<SessionEvent>>,
    callback: Function,
}

impl Dispatcher {
    /// Starts delivering `receiver`'s events to `callback` as they come.
    pub fn start(receiver: UnboundedReceiver<SessionEvent>, callback: Function) -> Rc<Self> {
        let dispatcher = Rc::new(Self { receiver: RefCell::new(receiver), callback });
        let pump = dispatcher.clone();
        wasm_bindgen_futures::spawn_local(async move {
            // Borrowed only inside each poll, so `flush` may run between polls.
            while let Some(event) = futures::future::poll_fn(|cx| pump.receiver.borrow_mut().poll_next_unpin(cx)).await {
                pump.deliver(&event);
            }
        });
        dispatcher
    }

    /// Delivers what has been emitted and not yet delivered.
    pub fn flush(&self) {
        loop {
            let next = self.receiver.borrow_mut().try_recv();
            match next {
                Ok(event) => self.deliver(&event),
                Err(_) => return,
            }
        }
    }

    fn deliver(&self, event: &SessionEvent) {
        let outcome = to_js(event).and_then(|value| self.callback.call1(&JsValue::NULL, &value));
        if let Err(thrown) = outcome {
            console_error(&format!("OpenAgent: the onEvent callback threw: {}", crate::fetch::describe(&thrown)));
        }
    }
}
