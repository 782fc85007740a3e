//! Tests of `figure shapes`: the shapes drawn are the trace's and the config's.

use super::render;
use crate::testing::test_svg::groups_texts;
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::{Figure, FigureError};

fn draw(body: &str) -> Result<Figure, FigureError> {
    let traces = TestTraces::with("robots", tiny_trace());
    render(&options(&format!("prompt = \"robots\"\n{body}")), &traces)
}

/// The symbol and number labels under the arrays, in drawing order.
fn labels(figure: &Figure) -> Vec<String> {
    groups_texts(&figure.svg, "tbf-s").concat()
}

#[test]
fn every_array_has_its_symbols_and_this_models_sizes() {
    // The tiny test model: T = 4 tokens, d = 8, H = 2 heads of dh = 4.
    let figure = draw("").unwrap();
    let labels = labels(&figure);
    let pairs: Vec<(&str, &str)> = labels
        .chunks(2)
        .map(|c| (c[0].as_str(), c[1].as_str()))
        .collect();
    assert_eq!(
        &pairs[..3],
        [("T×d", "4×8"), ("d×3d", "8×24"), ("T×3d", "4×24")]
    );
    assert!(pairs.contains(&("H×T×T", "2×4×4")), "{pairs:?}");
    assert!(pairs.contains(&("H×dh×T", "2×4×4")), "{pairs:?}");
    assert!(pairs.contains(&("d×4d", "8×32")), "{pairs:?}");
    assert!(pairs.contains(&("4d×d", "32×8")), "{pairs:?}");
    let names = groups_texts(&figure.svg, "tbf-s tbf-dim").concat();
    // Named in words, not by the trace's tensor names.
    assert!(names.contains(&"weights".to_string()), "{names:?}");
    assert!(
        !names
            .iter()
            .any(|n| n.contains("attn.") || n.contains("mlp.")),
        "{names:?}"
    );
    assert!(
        figure.alt.contains("T×d (4×8) × d×3d (8×24) = T×3d (4×24)"),
        "{}",
        figure.alt
    );
}

#[test]
fn sides_grow_with_the_square_root_of_the_size() {
    let figure = draw("").unwrap();
    // The first product: T×d (4×8) × d×3d (8×24); sides ∝ √size, 4d = 32 the longest.
    let widths = crate::testing::test_traces::numbers(&figure.svg, "<rect", "width");
    let longest = 104.0;
    let expected = |n: f64| (longest * (n / 32.0).sqrt()).max(5.0);
    assert!((widths[0] - expected(8.0)).abs() < 0.06, "{widths:?}");
    assert!((widths[1] - expected(24.0)).abs() < 0.06, "{widths:?}");
}

#[test]
fn the_layer_names_the_tensors_and_a_shape_the_config_denies_is_an_error() {
    let figure = draw("layer = 1").unwrap();
    assert!(
        figure.svg.contains("layer 1's matrix products"),
        "{}",
        figure.svg
    );
    assert_eq!(draw("layer = 2").unwrap_err().key.as_deref(), Some("layer"));

    let meta = tiny_trace().meta;
    let traces = TestTraces::with("robots", tracebook_trace::Trace::new(meta.clone()));
    let error = render(&options("prompt = \"robots\""), &traces).unwrap_err();
    assert!(
        error.message.contains("has no `blocks.0.ln1.normalized`"),
        "{}",
        error.message
    );

    let mut trace = tracebook_trace::Trace::new(meta);
    trace
        .insert("blocks.0.ln1.normalized", vec![4, 9], &[0.0; 36])
        .unwrap();
    let traces = TestTraces::with("robots", trace);
    let error = render(&options("prompt = \"robots\""), &traces).unwrap_err();
    assert!(error.message.contains("[4, 9]"), "{}", error.message);
    assert!(error.message.contains("[4, 8]"), "{}", error.message);
}

#[test]
fn every_title_fits_the_width() {
    let figure = draw("").unwrap();
    for title in groups_texts(&figure.svg, "tbf-s tbf-b").concat() {
        let width = crate::svg::text_width(&title, crate::svg::Font::Sans, 12.0) * 1.06;
        assert!(width <= super::WIDTH, "{title:?} is {width} wide");
    }
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(draw("").unwrap().svg);
}
