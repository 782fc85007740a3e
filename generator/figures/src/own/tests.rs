//! An author's kind drawn from the tests' tiny trace: what it reads is the trace's, the frame is
//! every figure's, and each mistake (a template's syntax, a tensor that is not there, output
//! that is not SVG, too much of it, a render that does not end) is refused with where and why.

use super::{OwnKind, Prompts};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::Traces;

/// One bar per token, its height the token's log-sum-exp, coloured on the sequential ramp.
const BARS: &str = r#"{% set lse = value(of="logits.lse") -%}
<svg viewBox="0 0 {{ 40 * prompt.tokens | length }} 60">
<title>Bars</title>
<desc>{{ prompt.tokens | length }} bars for "{{ prompt.text }}", layer {{ options.layer }}</desc>
{% for t in prompt.tokens -%}
<rect x="{{ loop.index0 * 40 }}" y="0" width="30" height="{{ 10 + loop.index0 }}" class="{{ fill(value=loop.index0, min=0, max=4) }}"/>
<text x="{{ loop.index0 * 40 }}" y="58">{{ t.text }}</text>
<text x="{{ loop.index0 * 40 }}" y="40">{{ lse[loop.index0] | num(digits=1) }}</text>
{% endfor -%}
</svg>
"#;

const DECLARED: &str = "[options.layer]\ntype = \"integer\"\ndefault = 1\nmin = 0\n";

fn kind(template: &str) -> OwnKind {
    OwnKind::new(
        "bars",
        ("figures/bars.svg", template),
        Some(("figures/bars.toml", DECLARED)),
    )
    .unwrap()
}

fn traces() -> TestTraces {
    TestTraces::with("p", tiny_trace())
}

#[test]
fn a_template_draws_from_the_trace_in_every_figure_s_frame() {
    let traces = traces();
    let figure = kind(BARS)
        .render(&options("prompt = \"p\"\ncaption = \"Mine\""), &traces)
        .unwrap();
    let trace = traces.get("p").unwrap();
    let lse = trace.tensor("logits.lse").unwrap();
    let first = format!(
        ">{}</text>",
        crate::format::signed(f64::from(lse.data[0]), 1)
    );
    assert!(figure.svg.contains(&first), "{}", figure.svg);
    assert!(figure.svg.contains("class=\"tbf tbf-own tbf-own-bars\""));
    assert!(figure.svg.contains("role=\"img\""));
    assert!(figure.svg.contains(">Bars</title>"));
    assert_eq!(figure.alt, "4 bars for \"The robots will bring\", layer 1");
    assert_eq!(figure.caption.as_deref(), Some("Mine"));
    // The ramp's rules travel with the figure, so the theme restyles its cells.
    assert!(figure
        .svg
        .contains(&crate::svg::Ramp::unit().css().as_str()[..20]));
    let layer0 = kind(BARS)
        .render(&options("prompt = \"p\"\nlayer = 0"), &traces)
        .unwrap();
    assert!(layer0.alt.ends_with("layer 0"));
}

#[test]
fn a_hostile_token_text_stays_text() {
    let mut trace = tiny_trace();
    trace.meta.tokens[1].text = "</text><script>alert(1)</script>".into();
    let traces = TestTraces::with("p", trace);
    let figure = kind(BARS)
        .render(&options("prompt = \"p\""), &traces)
        .unwrap();
    assert!(!figure.svg.contains("<script>"));
    assert!(figure.svg.contains("&lt;/text&gt;&lt;script&gt;"));
}

#[test]
fn a_syntax_error_names_the_template_s_line_and_column() {
    let broken =
        "<svg viewBox=\"0 0 1 1\">\n<desc>x</desc>\n{% for t in prompt.tokens %}\n</svg>\n";
    let e = OwnKind::new("bars", ("figures/bars.svg", broken), None).unwrap_err();
    assert_eq!(e.file, "figures/bars.svg");
    let range = e.range.expect("a place in the template");
    assert!(range.start >= broken.find("{%").unwrap(), "{range:?}");
    assert!(e.message.contains("syntax error"), "{}", e.message);
}

#[test]
fn an_unknown_tensor_or_option_is_refused_at_the_block() {
    let traces = traces();
    let typo = BARS.replace("logits.lse", "logits.lsf");
    let e = kind(&typo)
        .render(&options("prompt = \"p\""), &traces)
        .unwrap_err();
    assert!(
        e.message.starts_with("figures/bars.svg:1:"),
        "{}",
        e.message
    );
    assert!(e.message.contains("logits.lsf"), "{}", e.message);
    let e = kind(BARS)
        .render(&options("prompt = \"p\"\nlayer = -1"), &traces)
        .unwrap_err();
    assert_eq!(e.key.as_deref(), Some("layer"));
    let e = kind(BARS)
        .render(&options("prompt = \"q\""), &traces)
        .unwrap_err();
    assert_eq!(e.key.as_deref(), Some("prompt"));
}

#[test]
fn output_that_is_not_an_svg_or_too_large_is_refused() {
    let traces = traces();
    let p = options("prompt = \"p\"");
    let e = kind("<svg viewBox=\"0 0 1 1\"><desc>x</desc><g></svg>")
        .render(&p, &traces)
        .unwrap_err();
    assert!(e.message.contains("not well formed"), "{}", e.message);
    let huge = "<svg viewBox=\"0 0 1 1\"><desc>x</desc>{% for i in range(end=100000) %}<rect x=\"{{ i }}\"/>{% endfor %}</svg>";
    let e = kind(huge).render(&p, &traces).unwrap_err();
    assert!(e.message.contains("grew past"), "{}", e.message);
}

#[test]
fn a_render_that_does_not_end_is_stopped() {
    let traces = traces();
    let mut slow = kind("<svg viewBox=\"0 0 1 1\"><desc>x</desc>{% for i in range(end=100000) %}{% for j in range(end=100000) %}{% endfor %}{% endfor %}</svg>");
    slow.limit = std::time::Duration::from_millis(300);
    let e = slow
        .render(&options("prompt = \"p\""), &traces)
        .unwrap_err();
    assert!(e.message.contains("was stopped after"), "{}", e.message);
}

#[test]
fn a_kind_of_several_prompts_reads_each() {
    let mut traces = traces();
    traces
        .0
        .insert("q".into(), crate::testing::test_traces::trace_of(&[10, 11]));
    let template = "<svg viewBox=\"0 0 10 10\"><desc>{% for p in prompts %}{{ p.name }}:{{ value(of=\"count()\", prompt=p.name) }} {% endfor %}</desc></svg>";
    let mut two = OwnKind::new("pair", ("figures/pair.svg", template), None).unwrap();
    two.declaration.prompts = Prompts::Several;
    let figure = two
        .render(&options("prompts = [\"p\", \"q\"]"), &traces)
        .unwrap();
    assert_eq!(figure.alt, "p:4 q:2");
}

#[test]
fn a_built_in_name_or_a_bad_file_name_is_refused() {
    let e = OwnKind::new("attention", ("figures/attention.svg", BARS), None).unwrap_err();
    assert!(e.message.contains("built-in"), "{}", e.message);
    let e = OwnKind::new("My Kind", ("figures/My Kind.svg", BARS), None).unwrap_err();
    assert!(e.message.contains("cannot name"), "{}", e.message);
}
