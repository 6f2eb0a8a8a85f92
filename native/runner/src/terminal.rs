//! Text from a model, a file or a command, made fit for a terminal: a character that would drive
//! the terminal (ESC starts every escape sequence: clear the screen, retitle the window, write the
//! clipboard through OSC 52; NUL, BEL, backspace and CR hide or overwrite text) or make it show
//! text in another order than it has (bidi overrides, embeddings, isolates and marks: "Trojan
//! Source") is shown as a visible picture instead. Human output and the interactive screen show
//! everything through [`terminal_text`] or [`picture`]; their own styling escapes are added after.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as it is: a C0 or C1 control or DEL, or a bidi control.
pub fn is_terminal_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

/// What shows in place of `c` when it [`is_terminal_control`]: a C0 control's picture (ESC as
/// `␛`, NUL as `␀`), `␡` for DEL, `�` for the others; one column each.
pub fn picture(c: char) -> char {
    match c {
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
        '\u{7f}' => '\u{2421}',
        _ => '\u{fffd}',
    }
}

/// `text` with every [`is_terminal_control`] character but newlines and tabs as its
/// [`picture`]; a CR before a newline (a CRLF line end) is dropped. Borrowed when there is none.
pub fn terminal_text(text: &str) -> Cow<'_, str> {
    let kept = |c: char| c == '\n' || c == '\t' || !is_terminal_control(c);
    if text.chars().all(kept) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            c if kept(c) => shown.push(c),
            c => shown.push(picture(c)),
        }
    }
    Cow::Owned(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_characters_become_pictures_and_newlines_and_tabs_stay() {
        assert_eq!(terminal_text("plain\ttext\n"), Cow::Borrowed("plain\ttext\n"));
        assert_eq!(terminal_text("a\u{0}b\x1b[2J\x07\u{7f}"), "a␀b␛[2J␇␡");
        assert_eq!(terminal_text("\u{9b}2J \u{202e}exe.txt\u{202c} \u{2066}\u{2069}\u{200f}"), "�2J �exe.txt� ���");
        assert_eq!(terminal_text("one\r\ntwo\rthree"), "one\ntwo␍three");
        assert_eq!(terminal_text("héllo wörld ✓ 🚀"), Cow::Borrowed("héllo wörld ✓ 🚀"));
    }
}
