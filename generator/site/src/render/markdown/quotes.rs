//! Double quotes that pair up. Smart punctuation decides each straight `"` from its neighbours
//! alone, so a quoted token that starts with a space (`" use"`, the way GPT-2's tokens are
//! written) comes out with both quotes facing the same way. Within a block (a paragraph, a
//! heading, a list item, a table cell) the curly double quotes alternate instead: the first
//! opens, the next closes. Code is never touched.

use super::Spanned;
use pulldown_cmark::{CowStr, Event, Tag, TagEnd};

pub fn rewrite(events: Vec<Spanned<'_>>) -> Vec<Spanned<'_>> {
    let mut open = false;
    let mut in_code = false;
    events
        .into_iter()
        .map(|(event, range)| {
            let event = match event {
                Event::Start(Tag::CodeBlock(kind)) => {
                    in_code = true;
                    Event::Start(Tag::CodeBlock(kind))
                }
                Event::End(end) => {
                    if matches!(end, TagEnd::CodeBlock) {
                        in_code = false;
                    }
                    if !matches!(
                        end,
                        TagEnd::Emphasis
                            | TagEnd::Strong
                            | TagEnd::Strikethrough
                            | TagEnd::Superscript
                            | TagEnd::Subscript
                            | TagEnd::Link
                            | TagEnd::Image
                    ) {
                        open = false;
                    }
                    Event::End(end)
                }
                Event::Start(tag) => {
                    if !matches!(
                        tag,
                        Tag::Emphasis
                            | Tag::Strong
                            | Tag::Strikethrough
                            | Tag::Superscript
                            | Tag::Subscript
                            | Tag::Link { .. }
                            | Tag::Image { .. }
                    ) {
                        open = false;
                    }
                    Event::Start(tag)
                }
                Event::Text(text) if !in_code && text.contains(['“', '”']) => {
                    Event::Text(CowStr::from(pair(&text, &mut open)))
                }
                other => other,
            };
            (event, range)
        })
        .collect()
}

/// `text` with its curly double quotes alternating from `open` (carried across the block).
fn pair(text: &str, open: &mut bool) -> String {
    text.chars()
        .map(|c| match c {
            '“' | '”' => {
                *open = !*open;
                if *open {
                    '“'
                } else {
                    '”'
                }
            }
            other => other,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::{html, Parser};

    fn render(markdown: &str) -> String {
        let events: Vec<Spanned<'_>> =
            Parser::new_ext(markdown, crate::render::markdown::options())
                .into_offset_iter()
                .collect();
        let mut out = String::new();
        html::push_html(&mut out, rewrite(events).into_iter().map(|(e, _)| e));
        out
    }

    #[test]
    fn a_quoted_token_with_a_leading_space_gets_an_opening_and_a_closing_quote() {
        let html = render("The token \" use\" and \"quoted *words*\" and \" the\".\n");
        assert!(
            html.contains("“ use” and “quoted <em>words</em>” and “ the”"),
            "{html}"
        );
    }

    #[test]
    fn blocks_start_afresh_and_code_is_left_alone() {
        let html = render("An odd \" one.\n\nThen \"two\".\n\n```\nsay \"x\n```\n");
        assert!(html.contains("Then “two”"), "{html}");
        assert!(
            html.contains("say &quot;x") || html.contains("say \"x"),
            "{html}"
        );
    }
}
