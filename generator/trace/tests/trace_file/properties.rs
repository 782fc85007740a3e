//! Property tests of the codec through the file format: for any values and any shape,
//! decode(encode(x)) keeps the shape and stays within the bound `docs/trace-format.md`
//! states for the encoding the tensor got; NaN and ±infinity force f32 and survive bit
//! for bit; and reading any text as a trace fails cleanly or succeeds, never panics.

use crate::common::meta;
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use tracebook_trace::{Encoding, Precision, Trace};

/// Tensor names of every kind the codec tells apart.
const NAMES: [&str; 6] = [
    "blocks.0.resid_mid",
    "blocks.0.attn.pattern",
    "logits.topk_values",
    "logits.lse",
    "logits.topk_ids",
    "logit_lens.topk_probs",
];

fn precision() -> impl Strategy<Value = Precision> {
    prop_oneof![
        Just(Precision::F32),
        Just(Precision::F16),
        Just(Precision::Compact)
    ]
}

/// Any f32 at all, specials included, or plain values of a typical size.
fn value() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => -10.0f32..10.0,
        2 => 0.0f32..=1.0,
        1 => any::<f32>(),
        1 => Just(0.0f32),
    ]
}

/// Probabilities, now and then with a value outside [0, 1] that forces the fallback.
fn probability() -> impl Strategy<Value = f32> {
    prop_oneof![
        30 => 0.0f32..=1.0,
        2 => Just(0.0f32),
        2 => Just(1.0f32),
        1 => value(),
    ]
}

/// A shape of 1 to 3 dimensions and values to fill it.
fn tensor() -> impl Strategy<Value = (Vec<usize>, Vec<f32>)> {
    shaped(value().boxed())
}

fn shaped(values: BoxedStrategy<f32>) -> impl Strategy<Value = (Vec<usize>, Vec<f32>)> {
    prop::collection::vec(1usize..6, 1..=3).prop_flat_map(move |shape| {
        let n = shape.iter().product::<usize>();
        (Just(shape), prop::collection::vec(values.clone(), n))
    })
}

/// A tensor name and values of the sort that name holds.
fn named_tensor() -> impl Strategy<Value = (&'static str, Vec<usize>, Vec<f32>)> {
    prop::sample::select(&NAMES[..]).prop_flat_map(|name| {
        let values = if name.ends_with("pattern") || name.ends_with("_probs") {
            probability().boxed()
        } else {
            value().boxed()
        };
        shaped(values).prop_map(move |(shape, data)| (name, shape, data))
    })
}

fn round_trip(
    precision: Precision,
    name: &str,
    shape: &[usize],
    data: &[f32],
) -> (Encoding, Trace) {
    let mut trace = Trace::new(meta(precision));
    trace.insert(name, shape.to_vec(), data).unwrap();
    let back = Trace::from_json(&trace.to_json()).unwrap();
    (back.encoding(name).unwrap(), back)
}

/// Parses `text` as a trace and decodes every tensor in it; errors are fine, panics not.
fn read_everything(text: &str) {
    if let Ok(trace) = Trace::from_json(text) {
        let names: Vec<String> = trace.tensor_names().map(str::to_owned).collect();
        for name in names {
            let _ = trace.tensor(&name);
        }
    }
}

/// The documented bound on |x − x'| for a value of `row` under `encoding`.
fn bound(encoding: Encoding, x: f32, row: &[f32]) -> f32 {
    let eps = 2f32.powi(-23);
    match encoding {
        Encoding::F32 => 0.0,
        Encoding::F16 => {
            if x.abs() >= 2f32.powi(-14) {
                x.abs() * 2f32.powi(-11)
            } else {
                2f32.powi(-25)
            }
        }
        Encoding::F16Rows => {
            let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            (x - max).abs() * 2f32.powi(-11) + 2f32.powi(-25) + eps * x.abs().max(max.abs())
        }
        Encoding::Unorm8 => 1.0 / 510.0 + 2f32.powi(-24),
        Encoding::Int8Rows => {
            let max = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            max * (1.0 / 254.0 + eps)
        }
    }
}

fn encoding_index(encoding: Encoding) -> usize {
    match encoding {
        Encoding::F32 => 0,
        Encoding::F16 => 1,
        Encoding::F16Rows => 2,
        Encoding::Unorm8 => 3,
        Encoding::Int8Rows => 4,
    }
}

/// Checks one round trip against the bound; notes the encoding it got in `seen`.
fn within_bound(
    precision: Precision,
    name: &str,
    shape: &[usize],
    data: &[f32],
    seen: &std::cell::RefCell<[bool; 5]>,
) -> Result<(), TestCaseError> {
    let (encoding, back) = round_trip(precision, name, shape, data);
    seen.borrow_mut()[encoding_index(encoding)] = true;
    let tensor = back.tensor(name).unwrap();
    prop_assert_eq!(&tensor.shape, &shape.to_vec());
    prop_assert_eq!(tensor.data.len(), data.len());
    let cols = *shape.last().unwrap();
    for (row, decoded) in data.chunks(cols).zip(tensor.data.chunks(cols)) {
        for (&x, &y) in row.iter().zip(decoded) {
            if !x.is_finite() {
                prop_assert_eq!(
                    x.to_bits(),
                    y.to_bits(),
                    "non-finite values are kept bit for bit"
                );
                continue;
            }
            let limit = bound(encoding, x, row);
            prop_assert!(
                (x - y).abs() <= limit,
                "{:?}: {} became {} (bound {})",
                encoding,
                x,
                y,
                limit
            );
        }
    }
    Ok(())
}

#[test]
fn decode_encode_stays_within_the_documented_bound() {
    let config = ProptestConfig {
        cases: 2048,
        ..ProptestConfig::default()
    };
    let seen = std::cell::RefCell::new([false; 5]);
    TestRunner::new(config)
        .run(
            &(precision(), named_tensor()),
            |(precision, (name, shape, data))| within_bound(precision, name, &shape, &data, &seen),
        )
        .unwrap();
    assert_eq!(
        *seen.borrow(),
        [true; 5],
        "every encoding was tested (f32, f16, f16_rows, unorm8, int8_rows)"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn non_finite_values_force_f32(
        precision in precision(),
        name in prop::sample::select(&NAMES[..]),
        (shape, mut data) in tensor(),
        special in prop::sample::select(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY]),
        at in any::<prop::sample::Index>(),
    ) {
        let i = at.index(data.len());
        data[i] = special;
        let (encoding, back) = round_trip(precision, name, &shape, &data);
        prop_assert_eq!(encoding, Encoding::F32);
        let decoded = back.tensor(name).unwrap().data;
        for (x, y) in data.iter().zip(&decoded) {
            prop_assert_eq!(x.to_bits(), y.to_bits());
        }
    }

    #[test]
    fn token_ids_are_exact_at_every_precision(
        precision in precision(),
        ids in prop::collection::vec(0u32..50_257, 1..40),
    ) {
        let data: Vec<f32> = ids.iter().map(|&id| id as f32).collect();
        let (_, back) = round_trip(precision, "logits.topk_ids", &[data.len()], &data);
        let decoded = back.tensor("logits.topk_ids").unwrap().data;
        prop_assert_eq!(decoded, data);
    }

    #[test]
    fn reading_any_text_never_panics(text in ".{0,200}") {
        read_everything(&text);
    }

    #[test]
    fn reading_a_damaged_trace_never_panics(cut in 0usize..4000, byte in any::<u8>()) {
        let mut trace = Trace::new(meta(Precision::Compact));
        trace.insert("blocks.0.resid_mid", vec![3, 4], &[0.5; 12]).unwrap();
        trace.insert("blocks.0.attn.pattern", vec![3, 3], &[0.25; 9]).unwrap();
        let mut bytes = trace.to_json().into_bytes();
        let at = cut % bytes.len();
        bytes[at] = byte;
        if let Ok(text) = String::from_utf8(bytes.clone()) {
            read_everything(&text);
        }
        bytes.truncate(at);
        if let Ok(text) = String::from_utf8(bytes) {
            let complete = text.trim_end().ends_with('}');
            prop_assert!(complete || Trace::from_json(&text).is_err(), "a cut trace is an error");
        }
    }
}
