//! An incremental Server-Sent Events decoder (the WHATWG event-stream format): `event:`, `data:`
//! (joined across lines), `id:`, comments, LF/CR/CRLF line ends, and input split at any byte,
//! even inside a CRLF pair or a UTF-8 character.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` name, when the server sent one.
    pub event: Option<String>,
    pub data: String,
    pub id: Option<String>,
}

/// Feed it bytes as they arrive; it returns whole events.
#[derive(Debug, Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    /// The previous chunk ended in CR: a LF starting this one belongs to it.
    after_cr: bool,
    started: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
    id: Option<String>,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<SseEvent>) {
        if !self.started && !bytes.is_empty() {
            self.started = true;
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        for &b in bytes {
            let after_cr = std::mem::replace(&mut self.after_cr, false);
            match b {
                b'\n' if after_cr => {}
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.line(&String::from_utf8_lossy(&line), out);
                }
                _ => self.line.push(b),
            }
        }
    }

    /// The stream ended: an event still being built is dispatched (servers often omit the final
    /// blank line).
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.line(&String::from_utf8_lossy(&line), out);
        }
        self.line("", out);
    }

    fn line(&mut self, line: &str, out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if self.has_data {
                out.push(SseEvent { event: self.event.take(), data: std::mem::take(&mut self.data), id: self.id.clone() });
            }
            self.event = None;
            self.data.clear();
            self.has_data = false;
            return;
        }
        if line.starts_with(':') {
            return; // a comment, e.g. a keep-alive
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.id = Some(value.to_owned()),
            _ => {} // `retry:` and unknown fields: we never reconnect a model stream
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn decode_in_pieces(input: &[u8], piece: usize) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        for chunk in input.chunks(piece) {
            decoder.push(chunk, &mut out);
        }
        decoder.finish(&mut out);
        out
    }

    const STREAM: &str = "\u{FEFF}: keep-alive\r\nevent: message_start\r\ndata: {\"a\":1}\r\n\r\nevent: delta\ndata: line one\ndata: line two\n\ndata: é€😀\rid: 7\r\rdata:no-space\n\n";

    #[test]
    fn decodes_events_whatever_the_chunking() {
        let expected = vec![
            SseEvent { event: Some("message_start".into()), data: "{\"a\":1}".into(), id: None },
            SseEvent { event: Some("delta".into()), data: "line one\nline two".into(), id: None },
            SseEvent { event: None, data: "é€😀".into(), id: Some("7".into()) },
            SseEvent { event: None, data: "no-space".into(), id: Some("7".into()) },
        ];
        for piece in 1..=STREAM.len() {
            assert_eq!(decode_in_pieces(STREAM.as_bytes(), piece), expected, "split every {piece} bytes");
        }
    }

    #[test]
    fn a_final_event_without_a_blank_line_is_kept() {
        assert_eq!(decode_in_pieces(b"data: [DONE]", 4), vec![SseEvent { data: "[DONE]".into(), ..Default::default() }]);
    }

    #[test]
    fn blank_lines_without_data_dispatch_nothing() {
        assert!(decode_in_pieces(b"event: ping\n\n\n\n", 3).is_empty());
    }
}
