//! The file itself: deterministic bytes, the documented key layout, metadata round trips.

use crate::common::{small_trace, Rng};
use tracebook_trace::{Precision, Trace, FORMAT, FORMAT_VERSION};

#[test]
fn re_encoding_a_read_trace_gives_the_same_bytes() {
    for precision in Precision::ALL {
        let text = small_trace(precision).to_json();
        let back = Trace::from_json(&text).unwrap();
        assert_eq!(back.to_json(), text, "{precision}");
        assert_eq!(back, small_trace(precision));
    }
}

#[test]
fn equal_input_gives_byte_identical_json_whatever_the_insertion_order() {
    let mut rng = Rng::new(11);
    let tensors: Vec<(String, Vec<f32>)> = (0..6)
        .map(|i| (format!("blocks.{i}.resid_post"), rng.normals(32, 2.0)))
        .collect();
    let build = |order: &mut dyn Iterator<Item = &(String, Vec<f32>)>| {
        let mut trace = Trace::new(crate::common::meta(Precision::Compact));
        for (name, data) in order {
            trace.insert(name, vec![4, 8], data).unwrap();
        }
        trace.to_json()
    };
    let forward = build(&mut tensors.iter());
    let backward = build(&mut tensors.iter().rev());
    assert_eq!(forward, backward);
}

#[test]
fn the_file_has_the_documented_top_level_layout() {
    let text = small_trace(Precision::Compact).to_json();
    assert!(text.ends_with("}\n"));
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["format", "meta", "tensors", "version"]);
    assert!(text.find("\"format\"") < text.find("\"version\""));
    assert!(text.find("\"version\"") < text.find("\"meta\""));
    assert_eq!(value["format"], FORMAT);
    assert_eq!(value["version"], FORMAT_VERSION);
    let pattern = &value["tensors"]["blocks.0.attn.pattern"];
    assert_eq!(pattern["shape"], serde_json::json!([2, 3, 3]));
    assert_eq!(pattern["encoding"], "unorm8");
    assert_eq!(
        pattern["data"].as_str().unwrap().len(),
        24,
        "18 bytes in base64"
    );
    assert_eq!(value["tensors"]["embed"]["encoding"], "int8_rows");
    assert_eq!(value["tensors"]["logits.topk_ids"]["encoding"], "f32");
    assert_eq!(value["meta"]["prompt"]["text"], "The robots will bring");
    assert_eq!(value["meta"]["token_texts"]["464"], "The");
}

#[test]
fn metadata_survives_including_non_finite_probabilities() {
    let mut trace = small_trace(Precision::F32);
    trace.meta.generation[0].prob = f32::NAN;
    trace.meta.generation[0].top[1].prob = f32::INFINITY;
    let back = Trace::from_json(&trace.to_json()).unwrap();
    assert!(back.meta.generation[0].prob.is_nan());
    assert_eq!(back.meta.generation[0].top[1].prob, f32::INFINITY);
    assert_eq!(back.meta.tokens, trace.meta.tokens);
    assert_eq!(back.meta.token_texts, trace.meta.token_texts);
    assert_eq!(back.meta.model, trace.meta.model);
}

#[test]
fn stored_values_count_every_tensor() {
    let trace = small_trace(Precision::Compact);
    assert_eq!(trace.stored_values(), 24 + 18 + 10 + 6 + 6);
    let names: Vec<&str> = trace.tensor_names().collect();
    assert_eq!(
        names,
        [
            "blocks.0.attn.pattern",
            "embed",
            "logits.last",
            "logits.topk_ids",
            "logits.topk_values"
        ]
    );
    assert_eq!(trace.shape("embed"), Some(&[3usize, 8][..]));
    assert_eq!(trace.shape("nope"), None);
}

/// Found by fuzzing (`trace`): a config number such as `1e-307` read, written and read again
/// came back one unit in the last place off, so the second write differed from the first.
#[test]
fn numbers_in_the_metadata_survive_any_number_of_round_trips() {
    let text = include_str!("regressions/epsilon-1e-307.json");
    let once = Trace::from_json(text).unwrap().to_json();
    let twice = Trace::from_json(&once).unwrap().to_json();
    assert_eq!(twice, once);
    assert_eq!(
        Trace::from_json(&once)
            .unwrap()
            .meta
            .model
            .config
            .layer_norm_epsilon,
        1e-307
    );
}

/// A version-1 file as tracebook 0.1 wrote it: no compression, no predictions.
#[test]
fn version_1_files_still_read_bit_for_bit() {
    use base64::Engine;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut int8 = [1.0f32.to_le_bytes(), 0.5f32.to_le_bytes()].concat();
    int8.extend([127u8, (-64i8) as u8, 0, 3]);
    let mut f16_rows = (-80.5f32).to_le_bytes().to_vec();
    f16_rows.extend([0x00, 0x00, 0x00, 0xbc]); // 0 and -1.0 in binary16
    let mut value: serde_json::Value =
        serde_json::from_str(&small_trace(Precision::Compact).to_json()).unwrap();
    value["version"] = 1.into();
    value["tensors"] = serde_json::json!({
        "embed": {"shape": [2, 2], "encoding": "int8_rows", "data": b64(&int8)},
        "blocks.0.attn.pattern": {"shape": [3], "encoding": "unorm8", "data": b64(&[255, 0, 51])},
        "logits.last": {"shape": [2], "encoding": "f16_rows", "data": b64(&f16_rows)},
    });
    let trace = Trace::from_json(&value.to_string()).unwrap();
    let bits = |name: &str| -> Vec<u32> {
        let data = trace.tensor(name).unwrap().data;
        data.iter().map(|x| x.to_bits()).collect()
    };
    let expected = |v: &[f32]| -> Vec<u32> { v.iter().map(|x| x.to_bits()).collect() };
    assert_eq!(bits("embed"), expected(&[127.0, -64.0, 0.0, 1.5]));
    assert_eq!(bits("blocks.0.attn.pattern"), expected(&[1.0, 0.0, 0.2]));
    assert_eq!(bits("logits.last"), expected(&[-80.5, -81.5]));
    assert_eq!(trace.meta.prompt.text, "The robots will bring");
}
