//! Generation and sampling: how the next token is chosen from the distribution
//! (`temperature`, `sampling`), and the loop that writes a continuation token by token
//! (`generation`, `beam`).

pub(super) mod beam;
pub(super) mod generation;
pub(super) mod sampling;
pub(super) mod temperature;

use crate::draw::text;
use crate::svg::{text_width, Element, Font};
use crate::token_text::{cut_start, one_line, titled};

/// The line above a next-token figure: "next token after “PROMPT”", the prompt on one line
/// and, when it is too long for `width`, cut from its start (its last words lead into the
/// token), with the whole line in a `<title>`.
pub(super) fn after_line(prompt: &str, width: f64, y: f64) -> Element {
    let (font, size) = (Font::Sans, 12.0);
    let prompt = one_line(prompt);
    let full = format!("next token after “{prompt}”");
    let room = width - text_width("next token after “”", font, size);
    let shown = format!(
        "next token after “{}”",
        cut_start(&prompt, room, font, size)
    );
    titled(text(0.0, y).class("tbf-s"), &shown, &full).text(shown)
}
