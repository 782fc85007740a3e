//! A page of every figure kind for people to look at, drawn from the tests' synthetic traces:
//!
//!     cargo run --release -p tracebook-figures --features preview --example preview -- /tmp/figs
//!
//! writes `figs.html`, one page per kind (`KIND.html`) and each figure as a standalone `.svg`
//! into the folder; screenshot them in a headless browser, in light and dark mode, at phone and
//! desktop widths. `TBF_PROMPT` draws every "robots" block from another prompt of the traces,
//! `TBF_LAYER` the layer-5 blocks from another layer.

use tracebook_figures::preview::preview_traces;
use tracebook_figures::{kinds, render};

/// Figure blocks shown on the page: kind and TOML body.
const BLOCKS: &[(&str, &str)] = &[
    ("tokens", "prompt = \"robots\""),
    ("tokens", "prompt = \"animal\"\npositions = true"),
    ("tokens", "prompt = \"robots\"\nspans = true"),
    ("bpe", "prompt = \"animal\""),
    ("embedding", "prompt = \"robots\""),
    ("embedding", "prompt = \"animal\"\ndims = 48\nspread = true"),
    ("positional", "prompt = \"robots\""),
    ("embedding-sum", "prompt = \"robots\""),
    ("embedding-sum", "prompt = \"animal\"\ntoken = 8"),
    ("sinusoidal", "prompt = \"robots\""),
    ("qkv", "prompt = \"robots\"\nlayer = 5"),
    ("heads", "prompt = \"robots\"\nlayer = 5"),
    (
        "heads",
        "prompt = \"animal\"\nlayer = 0\nof = \"z\"\ntoken = 8\ndims = 8",
    ),
    (
        "attention-steps",
        "prompt = \"robots\"\nlayer = 5\nhead = 1",
    ),
    (
        "attention-steps",
        "prompt = \"animal\"\nlayer = 5\nhead = 0\ntoken = -1\ndims = 3",
    ),
    ("attention-grid", "prompt = \"robots\"\nlayer = 5"),
    ("attention-grid", "prompt = \"animal\""),
    ("head-mix", "prompt = \"robots\"\nlayer = 5"),
    ("shapes", "prompt = \"animal\"\nlayer = 3"),
    ("mlp", "prompt = \"robots\"\nlayer = 5"),
    ("layernorm", "prompt = \"robots\"\nlayer = 5"),
    (
        "layernorm",
        "prompt = \"animal\"\nnorm = \"final\"\ntoken = 0",
    ),
    ("residual", "prompt = \"robots\""),
    ("residual", "prompt = \"animal\"\ntoken = 8"),
    ("next-token", "prompt = \"robots\""),
    ("next-token", "prompt = \"robots\"\nk = 5\nscale = \"full\""),
    ("next-token", "prompt = \"animal\"\nk = 4"),
    ("logits", "prompt = \"animal\""),
    ("temperature", "prompt = \"robots\""),
    (
        "temperature",
        "prompt = \"robots\"\ntemperatures = [0, 0.7, 1, 1.5]\nk = 5",
    ),
    ("sampling", "prompt = \"robots\"\ntop_k = 5\ntop_p = 0.6"),
    ("sampling", "prompt = \"robots\"\ntemperature = 0.7"),
    ("generation", "prompt = \"robots\""),
    ("logit-lens", "prompt = \"robots\""),
    ("logit-lens", "prompt = \"animal\"\ntokens = 8"),
    ("ablation", "prompt = \"eiffel\""),
    (
        "ablation",
        "prompt = \"eiffel\"\ntarget = \" Rome\"\nshow = \"logprob\"",
    ),
    ("ablation", "prompt = \"animal\""),
    ("patching", "prompt = \"eiffel\""),
    ("patching", "prompt = \"animal\"\nview = \"resid\""),
    (
        "patching",
        "prompt = \"eiffel\"\nview = \"heads\"\nestimate = \"both\"",
    ),
    ("logit-attribution", "prompt = \"eiffel\""),
    ("logit-attribution", "prompt = \"animal\"\ntarget = \" I\""),
    ("saliency", "prompt = \"eiffel\""),
    ("saliency", "prompt = \"animal\""),
    ("flow", "prompt = \"eiffel\""),
    ("flow", "prompt = \"animal\"\nthreshold = 0.1"),
    ("loss", "prompt = \"robots\""),
    ("loss", "prompt = \"animal\""),
    ("architecture", "prompt = \"robots\""),
    ("compare", "prompt = \"robots\"\nother = \"animal\""),
    (
        "compare",
        "prompt = \"robots\"\nother = \"animal\"\nof = \"loss\"",
    ),
    ("attention", "prompt = \"robots\"\nlayer = 5\nhead = 1"),
    (
        "attention",
        "prompt = \"robots\"\nlayer = 5\nhead = 0\nstage = \"masked\"",
    ),
    (
        "attention",
        "prompt = \"animal\"\nlayer = 5\nhead = 1\nvalues = false",
    ),
    (
        "attention",
        "prompt = \"animal\"\nlayer = 5\nhead = 2\nstage = \"scores\"",
    ),
    ("cross-attention", "prompt = \"seq2seq\"\nlayer = 1"),
    (
        "cross-attention",
        "prompt = \"seq2seq\"\nlayer = 1\nhead = 1\npickers = \"heads\"",
    ),
];

fn main() {
    let Some(dir) = std::env::args().nth(1).map(std::path::PathBuf::from) else {
        eprintln!("usage: preview OUT_DIR (writes figs.html and one .svg per figure)");
        std::process::exit(2);
    };
    std::fs::create_dir_all(&dir).unwrap();
    let traces = preview_traces();
    // TBF_PROMPT draws every "robots" block from another prompt, e.g. a real trace.
    let prompt = std::env::var("TBF_PROMPT").unwrap_or_else(|_| "robots".to_string());
    // TBF_LAYER draws the layer-5 blocks from another layer, for models with fewer.
    let layer = std::env::var("TBF_LAYER").unwrap_or_else(|_| "5".to_string());
    let mut pages: Vec<(&str, String, f64)> = Vec::new();
    for (i, (kind, body)) in BLOCKS.iter().enumerate() {
        assert!(kinds().contains(kind));
        let body = body
            .replace("\"robots\"", &format!("\"{prompt}\""))
            .replace("layer = 5", &format!("layer = {layer}"));
        let figure = render(kind, &toml::from_str(&body).unwrap(), &traces)
            .unwrap_or_else(|e| panic!("{kind} {body}: {e:?}"));
        std::fs::write(dir.join(format!("{i}-{kind}.svg")), &figure.svg).unwrap();
        println!("{i}-{kind}.svg: {} bytes", figure.svg.len());
        let html = format!(
            "<figure><figcaption>figure {kind} · {}</figcaption>{}</figure>\n",
            body.replace('\n', " · ").replace('<', "&lt;"),
            figure.svg
        );
        let height = view_box_height(&figure.svg) + 40.0;
        match pages.last_mut() {
            Some((k, figures, total)) if k == kind => {
                figures.push_str(&html);
                *total += height;
            }
            _ => pages.push((kind, html, height)),
        }
    }
    let mut heights = String::new();
    for (kind, figures, height) in &pages {
        std::fs::write(dir.join(format!("{kind}.html")), page(figures)).unwrap();
        heights.push_str(&format!("{kind} {}\n", height.ceil() + 40.0));
    }
    let all: String = pages.iter().map(|p| p.1.as_str()).collect();
    std::fs::write(dir.join("figs.html"), page(&all)).unwrap();
    std::fs::write(dir.join("heights.txt"), heights).unwrap();
}

/// A page showing `figures` at phone width (358 px) and desktop width side by side.
fn page(figures: &str) -> String {
    format!(
        "<!doctype html><meta charset=utf-8><style>\
         body{{font:16px system-ui;margin:0;display:flex;gap:24px;padding:16px;color:#1d1d1f;background:#fff}}\
         @media (prefers-color-scheme:dark){{body{{color:#e6e6e6;background:#15161a}}}}\
         .col{{flex:none}} .phone{{width:358px}} .desk{{width:700px}}\
         figure{{margin:0 0 28px}} figcaption{{font-size:12px;opacity:.6;margin-bottom:6px}}</style>\
         <div class='col phone'>{figures}</div><div class='col desk'>{figures}</div>"
    )
}

/// The height in the root's viewBox: the height the figure is shown at, at most.
fn view_box_height(svg: &str) -> f64 {
    let start = svg.find("viewBox=\"").unwrap() + 9;
    let view_box = &svg[start..start + svg[start..].find('"').unwrap()];
    view_box.split(' ').nth(3).unwrap().parse().unwrap()
}
