//! Syntax highlighting for code blocks, with syntect's bundled grammars and theme. Loading them
//! takes tens of milliseconds, so [`warm_up`] starts it on a thread when the screen opens and
//! the prompt never waits for it; the first code block does, if it comes that soon.

use std::sync::OnceLock;

use crossterm::style::{Color, ContentStyle};
use syntect::easy::HighlightLines;
use syntect::highlighting::{Theme, ThemeSet};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

use super::text::Line;

struct Grammars {
    syntaxes: SyntaxSet,
    theme: Theme,
}

static GRAMMARS: OnceLock<Grammars> = OnceLock::new();

fn grammars() -> &'static Grammars {
    GRAMMARS.get_or_init(|| {
        let mut themes = ThemeSet::load_defaults().themes;
        let theme = themes.remove("base16-ocean.dark").expect("syntect bundles base16-ocean.dark");
        Grammars { syntaxes: SyntaxSet::load_defaults_newlines(), theme }
    })
}

/// Loads the grammars in the background.
pub fn warm_up() {
    std::thread::spawn(grammars);
}

/// `code` as lines coloured for `language` (a fence's info word: `rust`, `py`, `sh`...); plain
/// when the language is unknown or missing.
pub fn lines(code: &str, language: &str) -> Vec<Line> {
    let plain = || code.lines().map(Line::plain).collect();
    if language.is_empty() {
        return plain();
    }
    let grammars = grammars();
    let Some(syntax) = grammars.syntaxes.find_syntax_by_token(language) else { return plain() };
    let mut highlighter = HighlightLines::new(syntax, &grammars.theme);
    let mut lines = Vec::new();
    for source in LinesWithEndings::from(code) {
        let Ok(regions) = highlighter.highlight_line(source, &grammars.syntaxes) else { return plain() };
        let mut line = Line::default();
        for (style, text) in regions {
            let color = Color::Rgb { r: style.foreground.r, g: style.foreground.g, b: style.foreground.b };
            line.push(text.trim_end_matches(['\n', '\r']), ContentStyle { foreground_color: Some(color), ..ContentStyle::new() });
        }
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_languages_are_coloured_and_others_are_plain() {
        let rust = lines("let x = \"a\";\n", "rust");
        assert_eq!(rust[0].text(), "let x = \"a\";");
        assert!(rust[0].spans.len() > 2);
        let unknown = lines("let x = 1;\n", "no-such-language");
        assert_eq!(unknown[0].spans.len(), 1);
        assert_eq!(lines("a\nb", "").len(), 2);
    }
}
