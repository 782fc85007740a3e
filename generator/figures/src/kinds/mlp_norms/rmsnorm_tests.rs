//! Tests of `figure rmsnorm` on the tiny Llama trace, whose RMSNorm divides by
//! √(mean(x²) + ε) and multiplies dimension j by 1 + 0.1 j.

use super::render;
use crate::format::short;
use crate::testing::test_llama::{llama_trace, norm_weight, resid_pre, rms, D};
use crate::testing::test_svg::{all_texts, texts_in, texts_in_last};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::{Figure, FigureError};
use tracebook_trace::Trace;

fn draw(trace: Trace, body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("p", trace);
    render(&options(&format!("prompt = \"p\"\n{body}")), &traces, None).map(|(figure, _)| figure)
}

/// The root mean square with nothing added, as the strips' summaries state it.
fn plain_rms(x: &[f64]) -> f64 {
    (x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64).sqrt()
}

#[test]
fn input_scaled_and_output_carry_their_rms() {
    // Token 1 of the prompt is vocabulary id 11.
    let figure = draw(llama_trace(), "layer = 1\ntoken = 1").unwrap();
    assert_eq!(texts_in(&figure.svg, "tbf-m"), ["x", "x ÷ rms", "output"]);
    let x = resid_pre(1, 11);
    let traced = rms(&x);
    let out: Vec<f64> = (0..D).map(|j| x[j] / traced * norm_weight(j)).collect();
    let summaries = texts_in_last(&figure.svg, "tbf-s");
    // x's rms is the traced one, the divisor (ε included): one number for it on the page.
    assert_eq!(summaries[0], format!("rms {}", short(traced)));
    // x ÷ rms has rms 1 up to ε.
    assert_eq!(summaries[1], "rms 1.00");
    assert_eq!(summaries[2], format!("rms {}", short(plain_rms(&out))));
    let mean = x.iter().sum::<f64>() / D as f64;
    let texts = all_texts(&figure.svg).join("\n");
    assert!(
        texts.contains(&format!(
            "x's mean {} is only divided by the rms, to {}, not moved to 0",
            short(mean),
            short(mean / traced)
        )),
        "{texts}"
    );
    assert!(
        texts.contains(&format!("= {}, as traced.", short(traced))),
        "{texts}"
    );
    assert!(
        figure.alt.contains("before attention in layer 1"),
        "{}",
        figure.alt
    );
}

#[test]
fn ln2_reads_the_middle_of_the_block() {
    let figure = draw(llama_trace(), "layer = 0\nnorm = \"ln2\"").unwrap();
    let x: Vec<f64> = resid_pre(0, 13).iter().map(|v| 0.8 * v - 0.1).collect();
    let summaries = texts_in_last(&figure.svg, "tbf-s");
    assert_eq!(summaries[0], format!("rms {}", short(rms(&x))));
    assert!(
        figure.alt.contains("before the MLP in layer 0"),
        "{}",
        figure.alt
    );
    let error = draw(llama_trace(), "norm = \"final\"\nlayer = 0").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("norm"));
}

#[test]
fn gpt2_is_refused_by_name() {
    let error = draw(tiny_trace(), "layer = 1").unwrap_err();
    assert!(
        error.message.starts_with("figure `rmsnorm` draws RMSNorm"),
        "{}",
        error.message
    );
    assert!(
        error
            .message
            .ends_with("GPT-2 normalises with LayerNorm; see `layernorm`"),
        "{}",
        error.message
    );
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw(llama_trace(), "layer = 1\ndims = 8").unwrap().svg);
}

/// modern-llm.html printed "x ÷ rms … rms 1.01": x is stored rounded, and its rms over the
/// traced rms passed 1, which x ÷ √(mean(x²) + ε) never does. The row's rms now comes from
/// the traced rms alone, and every declared relation holds.
#[test]
fn x_over_rms_never_prints_an_rms_above_one() {
    let x: Vec<f64> = (0..128).map(|j| (j as f64 * 0.37).sin() * 0.1).collect();
    let stored = plain_rms(&x);
    let normed = super::Normed {
        input: x.clone(),
        output: x.iter().map(|v| v / stored).collect(),
        rms: stored / 1.01,
        recomputed: stored,
        eps: 1e-5,
        place: String::new(),
    };
    assert_eq!(short(stored / normed.rms), "1.01", "the slip as it was");
    assert!(normed.unit() <= 1.0);
    for relation in normed.relations() {
        assert!(relation.check().is_ok(), "{relation:?}");
    }
    let figure = draw(llama_trace(), "layer = 1\ntoken = 1").unwrap();
    for relation in &figure.relations {
        assert!(relation.check().is_ok(), "{relation:?}");
    }
}
