//! Each codec's `complete()` and `stream()` against the mock over real HTTP (unified-llm-spec 4.1,
//! 4.2, 7.7, 8.4): the same reply, whole or streamed, gives the same `Response`; the stream opens
//! with `StreamStart`, follows start/delta/end for text, and ends with one `Finish` whose usage is
//! the response's.

use futures::executor::block_on;
use futures::StreamExt;
use openagent_core::llm::{ContentPart, Message, Reason, Request, Response, StreamAccumulator, StreamEvent};
use openagent_tests::{Api, Reply, Step, ToolCall, Usage};
use serde_json::json;

use openagent_tests::over_http::{model, serve, APIS};

/// Reasoning, text and two calls with fixed ids, and every usage figure the mock can send.
fn rich_reply() -> Reply {
    let call = |id: &str, name: &str, arguments| ToolCall { name: name.into(), arguments, id: Some(id.into()) };
    Reply {
        text: Some("Let me look at both files.".into()),
        reasoning: Some("Two files are needed.".into()),
        tool_calls: vec![
            call("call_a", "read_file", json!({"file_path": "a.rs"})),
            call("call_b", "glob", json!({"pattern": "*.rs"})),
        ],
        usage: Usage { input_tokens: 100, output_tokens: 50, reasoning_tokens: 20, cache_read_tokens: 30 },
        cut_off: false,
    }
}

fn request() -> Request {
    Request { model: "mock-model".into(), messages: vec![Message::user("hi")], ..Default::default() }
}

/// What may differ between two answers to the same script step: the ids and signatures the mock
/// generates afresh for each (the thinking part's id is the stream's segment id; Gemini's calls
/// have no id on the wire, so the codec makes one up each time), and the raw provider payloads.
fn comparable(response: &Response) -> Response {
    let mut r = response.clone();
    (r.id, r.raw, r.usage.raw, r.rate_limit) = (String::new(), None, None, None);
    let signed = |s: &Option<String>| s.as_ref().map(|_| "signed".to_owned());
    for part in &mut r.message.content {
        match part {
            ContentPart::Thinking { thinking } => (thinking.signature, thinking.id) = (signed(&thinking.signature), None),
            ContentPart::ToolCall { tool_call } => {
                tool_call.signature = signed(&tool_call.signature);
                if response.provider == "gemini" {
                    tool_call.id = tool_call.name.clone();
                }
            }
            _ => {}
        }
    }
    r
}

#[test]
fn complete_and_stream_give_the_same_response() {
    for api in APIS {
        let server = serve([Step::reply(rich_reply()), Step::reply(rich_reply())]);
        let model = model(api, &server);
        let whole = block_on(model.complete(&request())).unwrap_or_else(|e| panic!("{api}: {e}"));
        let events: Vec<StreamEvent> = block_on(async { model.stream(&request()).await.expect("opens").collect().await });
        let mut acc = StreamAccumulator::new();
        events.iter().for_each(|e| acc.push(e.clone()));
        let streamed = acc.finish(model.provider()).unwrap_or_else(|e| panic!("{api}: {e}"));
        assert_eq!(comparable(&streamed), comparable(&whole), "{api}");

        assert_eq!((whole.provider.as_str(), whole.model.as_str()), (model.provider(), "mock-model"), "{api}");
        assert!(!whole.id.is_empty() && !streamed.id.is_empty(), "{api}: both have the provider's id");
        assert_eq!(whole.text(), "Let me look at both files.", "{api}");
        assert_eq!(whole.reasoning().as_deref(), Some("Two files are needed."), "{api}");
        let calls: Vec<(String, String)> = whole.tool_calls().into_iter().map(|c| (c.id, c.name)).collect();
        let names: Vec<&str> = calls.iter().map(|(_, name)| name.as_str()).collect();
        assert_eq!(names, ["read_file", "glob"], "{api}");
        if api == Api::Gemini {
            // No ids on the wire: the codec gives each call one of its own, distinct.
            assert!(calls.iter().all(|(id, _)| id.starts_with("call_")) && calls[0].0 != calls[1].0, "{calls:?}");
        } else {
            assert_eq!((calls[0].0.as_str(), calls[1].0.as_str()), ("call_a", "call_b"), "{api}");
        }
        assert_eq!(whole.finish_reason.reason, Reason::ToolCalls, "{api}");
        let u = &whole.usage;
        assert_eq!(u.cache_read_tokens, Some(30), "{api}");
        let reasoning = u.reasoning_tokens.unwrap_or(0);
        match api {
            // The Messages API reports no reasoning count: the codec estimates it from the thinking
            // text, within the output.
            Api::Anthropic => assert!(reasoning > 0 && reasoning < u.output_tokens && u.output_tokens == 50, "{u:?}"),
            // Every other codec counts reasoning within the output, as the providers bill it;
            // Gemini's `candidatesTokenCount` leaves thoughts out, so its codec adds them.
            _ => assert_eq!((u.output_tokens, reasoning, u.total_tokens), (50, 20, 150), "{api}: {u:?}"),
        }
        assert_eq!(u.total_tokens, u.input_tokens + u.output_tokens, "{api}");
    }
}

#[test]
fn a_stream_starts_follows_start_delta_end_and_finishes_once() {
    for api in APIS {
        let server = serve([Step::reply(Reply::text("one two three four").with_usage(12, 7))]);
        let model = model(api, &server);
        let events: Vec<StreamEvent> = block_on(async { model.stream(&request()).await.expect("opens").collect().await });
        assert!(matches!(events.first(), Some(StreamEvent::StreamStart { .. })), "{api}: {events:?}");
        let Some(StreamEvent::Finish { finish_reason, usage }) = events.last() else { panic!("{api}: {events:?}") };
        assert_eq!((finish_reason.reason, usage.input_tokens, usage.output_tokens), (Reason::Stop, 12, 7), "{api}");
        assert_eq!(events.iter().filter(|e| matches!(e, StreamEvent::Finish { .. } | StreamEvent::Error { .. })).count(), 1);

        // Text: one start, deltas in pieces that join to the text, one end, all under one id.
        let text_events: Vec<&StreamEvent> = events
            .iter()
            .filter(|e| matches!(e, StreamEvent::TextStart { .. } | StreamEvent::TextDelta { .. } | StreamEvent::TextEnd { .. }))
            .collect();
        let (Some(StreamEvent::TextStart { text_id }), Some(StreamEvent::TextEnd { text_id: end_id })) =
            (text_events.first(), text_events.last())
        else {
            panic!("{api}: text is not start..end: {text_events:?}")
        };
        assert_eq!(text_id, end_id, "{api}");
        let deltas: Vec<&str> = text_events[1..text_events.len() - 1]
            .iter()
            .map(|e| match e {
                StreamEvent::TextDelta { text_id: id, delta } if id == text_id => delta.as_str(),
                other => panic!("{api}: not a delta of {text_id}: {other:?}"),
            })
            .collect();
        assert!(deltas.len() > 1, "{api}: streamed in pieces");
        assert_eq!(deltas.concat(), "one two three four", "{api}");
    }
}
