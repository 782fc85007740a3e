//! Size limits on a trace of GPT-2 small's shape (12 layers, 12 heads, d = 768, a
//! 25-token prompt, compact precision): every kind, with its defaults and with the
//! options that draw the most, stays small enough for readers on slow links.

use crate::render;
use crate::svg::MIN_TEXT_SIZE;
use crate::testing::preview_traces::preview_traces;

/// The heaviest figure any kind draws, in bytes: one layer's 12 heads of 10 tokens each in
/// tiles two abreast (a phone-wide figure), each row of tiles with its token labels (44 KB).
const LIMIT: usize = 46_000;

/// Each kind at its defaults and at its most expensive options, on the 25-token prompt.
const CASES: &[(&str, &str)] = &[
    ("tokens", ""),
    ("bpe", ""),
    ("embedding", "dims = 64"),
    ("positional", "dims = 64"),
    ("embedding-sum", "dims = 64"),
    ("sinusoidal", "positions = 128\ndims = 64"),
    ("qkv", "layer = 5\ndims = 64"),
    ("heads", "layer = 5\ndims = 64"),
    ("attention", "layer = 5\nhead = 2\nstage = \"masked\""),
    ("attention-steps", "layer = 5\nhead = 1\ndims = 3"),
    ("attention-grid", "layer = 5\ntokens = 24"),
    ("attention-grid", "tokens = 10"),
    ("head-mix", "layer = 5\ndims = 64"),
    ("gqa", "layer = 11"),
    ("shapes", "layer = 11"),
    ("mlp", "layer = 5\ntop = 16"),
    ("layernorm", "layer = 5\ndims = 64"),
    ("residual", "tokens = 16"),
    ("next-token", "k = 4"),
    ("logits", "position = -2"),
    ("temperature", "temperatures = [0, 0.5, 1, 2]"),
    ("sampling", "top_p = 0.99"),
    ("generation", ""),
    ("logit-lens", "tokens = 10"),
    ("ablation", "target = \" I\"\nshow = \"logprob\""),
    ("patching", "view = \"resid\""),
    ("logit-attribution", "target = \" I\""),
    ("saliency", "target = \" I\""),
    ("flow", "threshold = 0.01"),
    ("loss", "tokens = 32"),
    ("compare", "other = \"robots\""),
    ("architecture", ""),
];

/// Every case of [`CASES`] rendered, with a name for messages: each kind at its defaults
/// (where it has them) and at its most expensive options.
fn rendered() -> Vec<(String, crate::Figure)> {
    let traces = preview_traces();
    let mut out = Vec::new();
    for (kind, body) in CASES {
        for body in ["", body] {
            let options: toml::Table =
                toml::from_str(&format!("prompt = \"animal\"\n{}", body)).unwrap();
            let defaults = body.is_empty()
                && ![
                    "qkv",
                    "heads",
                    "attention",
                    "attention-steps",
                    "head-mix",
                    "mlp",
                    "layernorm",
                    "compare",
                ]
                .contains(kind);
            if body.is_empty() && !defaults {
                continue;
            }
            let figure =
                render(kind, &options, &traces).unwrap_or_else(|e| panic!("{kind} {body}: {e:?}"));
            out.push((format!("{kind} {}", body.replace('\n', " ")), figure));
        }
    }
    out
}

#[test]
fn every_kind_stays_small_on_a_gpt2_sized_trace() {
    let mut sizes: Vec<(usize, String)> = rendered()
        .into_iter()
        .map(|(case, figure)| (figure.svg.len(), case))
        .collect();
    sizes.sort();
    for (bytes, case) in &sizes {
        println!("{bytes:>7} {case}");
    }
    let (largest, case) = sizes.last().unwrap();
    assert!(*largest < LIMIT, "{case}: {largest} bytes");
}

/// A figure is shown at 1:1 or larger (its root's `min-width`), so text of at least
/// `MIN_TEXT_SIZE` units is at least 12 CSS px on any screen.
#[test]
fn every_kind_draws_text_at_the_legible_size_or_larger() {
    for (case, figure) in rendered() {
        for size in figure.svg.split("font-size=\"").skip(1) {
            let size: f64 = size.split('"').next().unwrap().parse().unwrap();
            assert!(size >= MIN_TEXT_SIZE, "{case}: font-size {size}");
        }
        for size in figure.svg.split("font-size:").skip(1) {
            let size: f64 = size.split("px").next().unwrap().parse().unwrap();
            assert!(size >= MIN_TEXT_SIZE, "{case}: font-size:{size}px");
        }
    }
}
