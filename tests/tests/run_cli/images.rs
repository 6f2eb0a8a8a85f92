//! `@image.png` in a task attaches the image: it goes to the model in the wire format's image
//! block, with the task's text as typed. An image that cannot be sent (missing, a FIFO, not an
//! image) stops the run before any request, with exit code 2 and a message naming it; in the
//! interactive session such a task is skipped, said, and the next one goes on.

use std::ffi::CString;

use openagent_core::llm::base64;
use openagent_tests::cli::{Running, Sandbox};
use openagent_tests::over_http::serve;
use openagent_tests::{Reply, Step};
use serde_json::json;

use super::ANSWER;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";

#[test]
fn an_image_mention_attaches_the_image_in_the_wire_format() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.cwd().join("shot.png"), PNG).unwrap();
    let server = serve([Step::reply(Reply::text(ANSWER))]);
    let task = "look at @shot.png and fix the layout";
    let run = sandbox.run_json(&server, task, &[]);
    assert_eq!(run.code, Some(0), "{run:?}");

    let request = &server.requests()[0];
    let content = &request.body["messages"][0]["content"];
    assert_eq!(content[0], json!({"type": "text", "text": task}), "the text keeps the mention");
    let mut image = content[1].clone();
    // The last block of the request carries Anthropic's cache mark; the image is the rest.
    image.as_object_mut().unwrap().remove("cache_control");
    let data = base64::encode(PNG);
    assert_eq!(image, json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}));
}

/// A run refused over its attachment: exit code 2, the reason on stderr, the model never called.
fn refused(sandbox: &Sandbox, task: &str, says: &str) {
    let server = serve([Step::reply(Reply::text(ANSWER))]);
    let run = sandbox.run(&server, task, &[]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains(says), "{says:?} in {}", run.stderr);
    assert!(server.requests().is_empty(), "no request is made");
}

#[test]
fn an_image_that_cannot_be_sent_stops_the_run_before_any_request() {
    let sandbox = Sandbox::new();
    refused(&sandbox, "look at @gone.png", "the task mentions @gone.png, but there is no such file in");

    // A FIFO would block a read for ever: it is refused at once.
    let fifo = CString::new(sandbox.cwd().join("pipe.png").display().to_string()).expect("no NUL in the path");
    // SAFETY: mkfifo reads the NUL-terminated path it is given.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0, "a FIFO in the working directory");
    refused(&sandbox, "look at @pipe.png", "cannot attach image pipe.png:");
    refused(&sandbox, "look at @pipe.png", "FIFO");

    sandbox.write("notes.png", "plain text, named like an image");
    refused(&sandbox, "look at @notes.png", "notes.png is not a PNG, JPEG, GIF or WebP image");
}

#[test]
fn the_interactive_session_attaches_mentioned_images_and_skips_a_task_naming_a_missing_one() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.cwd().join("shot.png"), PNG).unwrap();
    let server = serve([Step::reply(Reply::text(ANSWER))]);
    let mut session = Running::with_stdin(sandbox.openagent(Some(&server), &[]));
    session.write("look at @gone.png\nnow look at @shot.png\n");
    let run = session.finish();
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.contains("the task mentions @gone.png, but there is no such file"), "{}", run.stderr);
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "the task with the missing image was not sent");
    let content = &requests[0].body["messages"][0]["content"];
    assert_eq!(content[0]["text"], "now look at @shot.png");
    assert_eq!(content[1]["source"]["data"], base64::encode(PNG));
}
