//! The sampler's numbers for the browser tests (tests/browser): for each case `T,K,P`
//! (K 0 = no top-k, P `off` = no top-p), the probabilities Rust computes over all V logits of
//! a trace's last position, as JSON on stdout. The page's controls must show the same.
//!
//! `cargo run --release -p tracebook-figures --example sampler_reference -- TRACE T,K,P ...`

use std::path::Path;
use tracebook_figures::sampler::{sample, Rules};
use tracebook_trace::Trace;

/// Rows reported per case: more than any figure shows.
const ROWS: usize = 20;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((path, cases)) = args.split_first() else {
        eprintln!("usage: sampler_reference TRACE T,K,P [T,K,P ...]");
        std::process::exit(2);
    };
    let trace = Trace::read(Path::new(path)).unwrap_or_else(|e| fail(&e.to_string()));
    let logits = trace
        .tensor("logits.last")
        .unwrap_or_else(|e| fail(&e.to_string()))
        .data;
    let out: Vec<String> = cases.iter().map(|case| report(&logits, case)).collect();
    println!("[{}]", out.join(",\n"));
}

fn report(logits: &[f32], case: &str) -> String {
    let parts: Vec<&str> = case.split(',').collect();
    let [t, k, p] = parts[..] else {
        fail(&format!("a case is T,K,P, not {case}"))
    };
    let number = |s: &str| -> f64 {
        s.parse()
            .unwrap_or_else(|_| fail(&format!("not a number: {s}")))
    };
    let k = number(k) as usize;
    let rules = Rules {
        temperature: number(t),
        top_k: (k > 0).then_some(k),
        top_p: (p != "off").then(|| number(p)),
    };
    let sampled = sample(logits, rules);
    let rows = ROWS.min(sampled.sorted.len());
    let list = |f: &dyn Fn(usize) -> f64| {
        (0..rows)
            .map(|r| format!("{}", f(r)))
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        "{{\"case\":\"{case}\",\"survivors\":{},\"mass\":{},\"ids\":[{}],\"probs\":[{}],\"drawn\":[{}]}}",
        sampled.survivors,
        sampled.mass,
        (0..rows).map(|r| sampled.sorted[r].0.to_string()).collect::<Vec<_>>().join(","),
        list(&|r| sampled.sorted[r].1),
        list(&|r| sampled.drawn(r)),
    )
}

fn fail(message: &str) -> ! {
    eprintln!("sampler_reference: {message}");
    std::process::exit(1)
}
