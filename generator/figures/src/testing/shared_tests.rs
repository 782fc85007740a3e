//! Shared colour scales through the public API, as the site uses them: each figure's
//! domain, their union, and the figures drawn on it.

use crate::testing::test_svg::{all_texts, parse, text_of};
use crate::testing::test_traces::{options, trace_of, TestTraces};
use crate::{domain, render, render_shared, scaled_kinds, Domain, SharedScale};

/// Two prompts of different lengths, so their attention scores reach different sizes.
fn traces() -> TestTraces {
    let mut traces = TestTraces::with("a", trace_of(&[10, 11, 12, 13]));
    traces.0.insert("b".to_string(), trace_of(&[10, 11]));
    traces
}

/// The labels under a legend's swatches: the tick texts of the group titled `title`.
fn legend_ticks(svg: &str, title: &str) -> Vec<String> {
    let doc = parse(svg);
    let legend = doc
        .descendants()
        .find(|n| {
            n.has_tag_name("g")
                && n.children()
                    .any(|c| c.has_tag_name("text") && text_of(c) == title)
        })
        .unwrap_or_else(|| panic!("no legend titled {title:?} in {svg}"));
    legend
        .descendants()
        .filter(|n| n.has_tag_name("g"))
        .flat_map(|g| g.children().filter(|c| c.has_tag_name("text")).map(text_of))
        .collect()
}

fn union_of(kind: &str, bodies: &[&str], traces: &TestTraces) -> Domain {
    bodies
        .iter()
        .map(|body| domain(kind, &options(body), traces).unwrap().unwrap())
        .reduce(|a, b| a.union(b).unwrap())
        .unwrap()
}

#[test]
fn two_figures_on_one_scale_show_the_same_limits_and_say_so() {
    let traces = traces();
    let bodies = [
        "prompt = \"a\"\nlayer = 1\nhead = 0\nstage = \"scores\"\nscale = \"s\"",
        "prompt = \"b\"\nlayer = 0\nhead = 1\nstage = \"scores\"\nscale = \"s\"",
    ];
    let title = "score q·k/√dₕ";
    let own: Vec<Vec<String>> = bodies
        .iter()
        .map(|b| {
            legend_ticks(
                &render("attention", &options(b), &traces).unwrap().svg,
                title,
            )
        })
        .collect();
    assert_ne!(
        own[0], own[1],
        "the test needs figures with different scales"
    );
    let shared = SharedScale {
        name: "s".to_string(),
        domain: union_of("attention", &bodies, &traces),
        figures: 2,
    };
    let drawn: Vec<String> = bodies
        .iter()
        .map(|b| {
            render_shared("attention", &options(b), &traces, &shared)
                .unwrap()
                .svg
        })
        .collect();
    let ticks: Vec<Vec<String>> = drawn.iter().map(|svg| legend_ticks(svg, title)).collect();
    assert_eq!(ticks[0], ticks[1]);
    // The union is the wider of the two.
    assert!(own.contains(&ticks[0]), "{ticks:?} in {own:?}");
    for svg in &drawn {
        assert!(all_texts(svg)
            .contains(&"colour scale shared with 1 other figure (scale \"s\")".to_string()));
    }
}

#[test]
fn strips_and_residual_views_share_too() {
    let traces = traces();
    for (kind, title) in [
        ("embedding", "embedding value"),
        ("residual", "length ‖x‖ (log scale)"),
    ] {
        let bodies = [
            "prompt = \"a\"\nscale = \"x\"",
            "prompt = \"b\"\nscale = \"x\"",
        ];
        let shared = SharedScale {
            name: "x".to_string(),
            domain: union_of(kind, &bodies, &traces),
            figures: 3,
        };
        let ticks: Vec<Vec<String>> = bodies
            .iter()
            .map(|b| {
                render_shared(kind, &options(b), &traces, &shared)
                    .unwrap()
                    .svg
            })
            .inspect(|svg| {
                let line = "colour scale shared with 2 other figures (scale \"x\")";
                assert!(all_texts(svg).contains(&line.to_string()), "{kind}");
            })
            .map(|svg| legend_ticks(&svg, title))
            .collect();
        assert_eq!(ticks[0], ticks[1], "{kind}");
    }
}

#[test]
fn signed_data_gets_a_diverging_domain_and_weights_the_unit_one() {
    let traces = traces();
    let signed = domain("qkv", &options("prompt = \"a\"\nlayer = 0"), &traces).unwrap();
    assert!(matches!(signed, Some(Domain::Signed { limit }) if limit > 0.0));
    let grid = domain("attention-grid", &options("prompt = \"a\""), &traces).unwrap();
    assert_eq!(grid, Some(Domain::Unit));
    assert_eq!(
        domain("tokens", &options("prompt = \"a\""), &traces).unwrap(),
        None
    );
}

#[test]
fn a_scale_on_a_kind_without_colours_is_an_error_naming_the_kinds_with_them() {
    let traces = traces();
    for body in ["prompt = \"a\"\nscale = \"s\"", "prompt = \"a\"\nscale = 3"] {
        let error = render("tokens", &options(body), &traces).unwrap_err();
        assert_eq!(error.key.as_deref(), Some("scale"));
        let hint = error.hint.unwrap();
        assert!(hint.contains("`tokens` colours nothing by value"), "{hint}");
        assert!(hint.contains(&scaled_kinds().join(", ")), "{hint}");
    }
    // `next-token` has a `scale` of its own (top or full); a name there gets the same hint.
    let error = render(
        "next-token",
        &options("prompt = \"a\"\nscale = \"s\""),
        &traces,
    )
    .unwrap_err();
    assert_eq!(error.key.as_deref(), Some("scale"));
    assert!(error.hint.unwrap().contains("attention-grid"));
    let error = render(
        "attention-grid",
        &options("prompt = \"a\"\nscale = 3"),
        &traces,
    )
    .unwrap_err();
    assert!(
        error.message.contains("name of a shared colour scale"),
        "{error:?}"
    );
}

#[test]
fn without_a_shared_scale_a_scale_name_changes_nothing() {
    let traces = traces();
    let plain = render("embedding", &options("prompt = \"a\""), &traces).unwrap();
    let named = render(
        "embedding",
        &options("prompt = \"a\"\nscale = \"e\""),
        &traces,
    )
    .unwrap();
    assert_eq!(plain.svg, named.svg);
}
