//! No text is cut silently: with a token and a prompt too long for any label, every drawn
//! text that ends in "…" carries a `<title>` with the whole of it, in every kind; and no text,
//! cut or not, reaches past the figure's edges.

use super::tests::{EXAMPLES, LLAMA_ONLY, SEQ2SEQ_ONLY};
use crate::figure::Figure;
use crate::render;
use crate::testing::test_interventions::with_experiments;
use crate::testing::test_llama::llama_trace;
use crate::testing::test_seq2seq::seq2seq_trace;
use crate::testing::test_svg::{parse, text_of, texts_outside};
use crate::testing::test_traces::{options, tiny_trace, training_run, TestTraces};
use crate::token_text::visible;
use tracebook_trace::Trace;

const LONG_TOKEN: &str = " internationalisation-of-everything";

/// The tiny trace with a long second token and a long prompt text.
fn traces() -> TestTraces {
    lengthened(tiny_trace())
}

/// `trace` with a long second token and a long prompt text.
fn lengthened(mut trace: Trace) -> TestTraces {
    trace.meta.tokens[1].text = LONG_TOKEN.to_string();
    trace.meta.prompt.text = format!("{} {}", "a very long prompt".repeat(8), LONG_TOKEN);
    trace.meta.training = Some(training_run());
    TestTraces::with("robots", with_experiments(trace))
}

/// (drawn text, its title) of every `<text>` whose drawn text was cut.
fn cut_texts(svg: &str) -> Vec<(String, Option<String>)> {
    let doc = parse(svg);
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            let title = n
                .children()
                .find(|c| c.has_tag_name("title"))
                .map(|t| t.text().unwrap_or_default().to_string());
            (text_of(n), title)
        })
        .filter(|(drawn, _)| drawn.contains('…'))
        .collect()
}

/// Every kind's example figure, drawn from its family's trace with a long token and prompt.
fn drawn_long() -> Vec<(&'static str, Figure)> {
    let (gpt2, llama) = (traces(), lengthened(llama_trace()));
    let mut marian = seq2seq_trace();
    marian.meta.generation[1].text = LONG_TOKEN.to_string();
    let marian = lengthened(marian);
    let mut out = Vec::new();
    for (kind, body) in EXAMPLES {
        let options = options(&format!("prompt = \"robots\"\n{body}"));
        let traces = if LLAMA_ONLY.contains(kind) {
            &llama
        } else if SEQ2SEQ_ONLY.contains(kind) {
            &marian
        } else {
            &gpt2
        };
        let figure = render(kind, &options, traces).unwrap_or_else(|e| panic!("{kind}: {e:?}"));
        out.push((*kind, figure));
    }
    out
}

#[test]
fn every_cut_text_has_a_title_with_the_whole_of_it() {
    let mut cut_somewhere = 0;
    for (kind, figure) in drawn_long() {
        for (drawn, title) in cut_texts(&figure.svg) {
            let title = title.unwrap_or_else(|| panic!("{kind}: {drawn:?} is cut with no title"));
            let kept = drawn.trim_end_matches('…').trim_start_matches('…');
            assert!(
                title.contains(kept) || title.len() > drawn.len(),
                "{kind}: {drawn:?} / {title:?}"
            );
            assert!(!title.ends_with('…'), "{kind}: {title:?}");
            cut_somewhere += 1;
        }
    }
    assert!(
        cut_somewhere >= 5,
        "only {cut_somewhere} cut texts: the test needs long ones"
    );
}

#[test]
fn a_cut_token_label_names_the_whole_token() {
    let traces = traces();
    let options = options("prompt = \"robots\"\nlayer = 1\nhead = 0");
    let figure = render("attention", &options, &traces).unwrap();
    let titles: Vec<Option<String>> = cut_texts(&figure.svg).into_iter().map(|c| c.1).collect();
    // The token labels a row and a column.
    assert_eq!(
        titles,
        [Some(visible(LONG_TOKEN)), Some(visible(LONG_TOKEN))]
    );
}

#[test]
fn no_text_leaves_its_figure_with_long_tokens_and_prompts() {
    let mut outside = Vec::new();
    for (kind, figure) in drawn_long() {
        outside.extend(
            texts_outside(&figure.svg)
                .into_iter()
                .map(|s| format!("{kind}: {:?} spans {:.1}..{:.1}", s.text, s.left, s.right)),
        );
    }
    assert!(outside.is_empty(), "{outside:#?}");
}
