//! Broken trace files: each error names the file and says how to fix it.

use crate::common::small_trace;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tracebook_trace::{Derivation, DeriveOp, Precision, Trace, TraceError};

/// Write `text` as a trace file in a fresh folder; the folder lives as long as the guard.
fn file_with(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("robots.json");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn good_json() -> Value {
    serde_json::from_str(&small_trace(Precision::Compact).to_json()).unwrap()
}

/// Read `value` back from a file and return the error, checked for the path and the fix.
fn read_error(text: &str) -> (TraceError, String) {
    let (_dir, path) = file_with(text);
    let err = Trace::read(&path).unwrap_err();
    let message = err.to_string();
    assert_names_file_and_fix(&message, &path);
    (err, message)
}

fn assert_names_file_and_fix(message: &str, path: &Path) {
    assert!(
        message.starts_with(&format!("{}: ", path.display())),
        "names the file: {message}"
    );
    assert!(
        message.contains("`tracebook trace`"),
        "says how to fix it: {message}"
    );
}

#[test]
fn text_that_is_not_json_is_reported_with_its_position() {
    let (err, message) = read_error("{\n  \"format\": oops\n}");
    assert!(
        matches!(err, TraceError::NotJson { line: 2, .. }),
        "{err:?}"
    );
    assert!(message.contains("line 2, column"), "{message}");
}

#[test]
fn a_file_cut_short_is_not_json() {
    let text = small_trace(Precision::Compact).to_json();
    let (err, _) = read_error(&text[..text.len() / 2]);
    assert!(matches!(err, TraceError::NotJson { .. }), "{err:?}");
}

#[test]
fn another_format_is_named_as_such() {
    let mut value = good_json();
    value["format"] = "tracebook-site".into();
    let (err, message) = read_error(&value.to_string());
    assert!(matches!(err, TraceError::WrongFormat { .. }), "{err:?}");
    assert!(
        message.contains("\"tracebook-site\", not \"tracebook-trace\""),
        "{message}"
    );
    let (err, _) = read_error("[1, 2, 3]");
    assert!(matches!(err, TraceError::WrongFormat { .. }), "{err:?}");
    let (_, message) = read_error("{\"version\": 1}");
    assert!(message.contains("no \"format\" key"), "{message}");
}

#[test]
fn a_newer_version_says_which_versions_this_tool_reads() {
    let mut value = good_json();
    value["version"] = 4.into();
    // A version-4 file need not look like version 3 at all; the version is checked first.
    value["meta"] = Value::Null;
    let (err, message) = read_error(&value.to_string());
    assert!(
        matches!(&err, TraceError::UnknownVersion { found, .. } if found == "4"),
        "{err:?}"
    );
    assert!(message.contains("format version 4"), "{message}");
    assert!(message.contains("reads versions 1 to 3"), "{message}");
}

#[test]
fn truncated_base64_is_a_corrupt_tensor() {
    let mut value = good_json();
    let data = value["tensors"]["embed"]["data"]
        .as_str()
        .unwrap()
        .to_string();
    value["tensors"]["embed"]["data"] = data[..data.len() - 3].into();
    let (err, message) = read_error(&value.to_string());
    assert!(
        matches!(&err, TraceError::CorruptTensor { name, .. } if name == "embed"),
        "{err:?}"
    );
    assert!(message.contains("not valid base64"), "{message}");
}

#[test]
fn data_shorter_than_its_shape_is_a_corrupt_tensor() {
    let mut value = good_json();
    let data = value["tensors"]["logits.last"]["data"]
        .as_str()
        .unwrap()
        .to_string();
    // Whole base64 quanta removed: valid base64, 3 bytes short.
    value["tensors"]["logits.last"]["data"] = data[4..].into();
    let (_, message) = read_error(&value.to_string());
    assert!(
        message.contains("tensor \"logits.last\" is corrupt: its data has 21 bytes, but shape [10] stored as f16_rows needs 24"),
        "{message}"
    );
}

#[test]
fn a_shape_that_does_not_match_the_data_is_a_corrupt_tensor() {
    let mut value = good_json();
    value["tensors"]["embed"]["shape"] = serde_json::json!([3, 9]);
    let (_, message) = read_error(&value.to_string());
    assert!(
        message.contains("shape [3, 9] stored as int8_rows needs 39"),
        "{message}"
    );
    value["tensors"]["embed"]["shape"] = serde_json::json!([usize::MAX, usize::MAX]);
    let (_, message) = read_error(&value.to_string());
    assert!(message.contains("is too large to exist"), "{message}");
}

#[test]
fn an_unknown_encoding_or_missing_key_does_not_match_the_schema() {
    let mut value = good_json();
    value["tensors"]["embed"]["encoding"] = "int4".into();
    let (err, message) = read_error(&value.to_string());
    assert!(matches!(err, TraceError::Schema { .. }), "{err:?}");
    assert!(message.contains("unknown variant `int4`"), "{message}");
    let mut value = good_json();
    value["meta"].as_object_mut().unwrap().remove("tokens");
    let (_, message) = read_error(&value.to_string());
    assert!(message.contains("missing field `tokens`"), "{message}");
}

#[test]
fn a_missing_file_says_how_to_create_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absent.json");
    let err = Trace::read(&path).unwrap_err();
    assert!(matches!(err, TraceError::Read { .. }));
    assert_names_file_and_fix(&err.to_string(), &path);
}

#[test]
fn bytes_that_are_not_utf8_are_not_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("binary.json");
    std::fs::write(&path, [b'{', b'\n', b' ', 0xff, 0xfe, b'}']).unwrap();
    let err = Trace::read(&path).unwrap_err();
    assert!(
        matches!(
            err,
            TraceError::NotJson {
                line: 2,
                column: 2,
                ..
            }
        ),
        "{err:?}"
    );
    assert_names_file_and_fix(&err.to_string(), &path);
}

#[test]
fn an_unknown_tensor_suggests_the_closest_name_and_how_to_list_them() {
    let (_dir, path) = file_with(&small_trace(Precision::Compact).to_json());
    let trace = Trace::read(&path).unwrap();
    assert_eq!(trace.path(), Some(path.as_path()));
    let message = trace
        .tensor("blocks.0.attn.patern")
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        format!(
            "{0}: no tensor \"blocks.0.attn.patern\"; did you mean `blocks.0.attn.pattern`?\n  \
             hint: `tracebook inspect {0}` lists its tensors",
            path.display()
        )
    );
    let message = trace.tensor("mlp").unwrap_err().to_string();
    assert!(
        message.contains("no tensor \"mlp\"\n"),
        "no far-fetched guess: {message}"
    );
}

#[test]
fn inserting_a_wrong_length_or_a_name_twice_is_refused() {
    let mut trace = small_trace(Precision::Compact);
    let err = trace
        .insert("blocks.0.mlp.pre", vec![2, 3], &[0.0; 5])
        .unwrap_err();
    assert!(
        err.to_string().starts_with(
            "tensor \"blocks.0.mlp.pre\": shape [2, 3] holds 6 values, but 5 were given"
        ),
        "{err}"
    );
    let err = trace.insert("embed", vec![1], &[0.0]).unwrap_err();
    assert!(matches!(err, TraceError::DuplicateTensor { .. }), "{err:?}");
    assert_eq!(
        trace,
        small_trace(Precision::Compact),
        "a refused insert changes nothing"
    );
}

#[test]
fn from_json_errors_say_they_come_from_trace_json() {
    let err = Trace::from_json("nope").unwrap_err().to_string();
    assert!(err.starts_with("trace JSON: not valid JSON"), "{err}");
}

/// A version-2 compact trace whose `blocks.0.resid_pre` is predicted from `embed` and
/// `pos_embed` (the difference stored is all zeros), as tracebook wrote them before version 3.
fn predicted_json() -> Value {
    let mut trace = Trace::new(crate::common::meta(Precision::Compact));
    let values: Vec<f32> = (0..64).map(|i| (i % 4) as f32 - 1.5).collect();
    let zeros = vec![0.0; 64];
    trace.insert("embed", vec![2, 32], &values).unwrap();
    trace.insert("pos_embed", vec![2, 32], &zeros).unwrap();
    trace
        .insert("blocks.0.resid_pre", vec![2, 32], &zeros)
        .unwrap();
    let mut value: Value = serde_json::from_str(&trace.to_json()).unwrap();
    value["version"] = 2.into();
    value["tensors"]["blocks.0.resid_pre"]["predict"] =
        serde_json::json!({"op": "sum", "from": ["embed", "pos_embed"]});
    assert_eq!(value["tensors"]["embed"]["compression"], "zlib");
    let back = Trace::from_json(&value.to_string()).unwrap();
    let embed = back.tensor("embed").unwrap().data;
    assert_eq!(back.tensor("blocks.0.resid_pre").unwrap().data, embed);
    value
}

/// A version-3 trace whose `blocks.0.resid_pre` is derived as `embed + pos_embed`.
fn derived_json() -> Value {
    let mut trace = Trace::new(crate::common::meta(Precision::Compact));
    let values: Vec<f32> = (0..64).map(|i| (i % 4) as f32 - 1.5).collect();
    trace.insert("embed", vec![2, 32], &values).unwrap();
    trace.insert("pos_embed", vec![2, 32], &values).unwrap();
    let sum = Derivation::new(DeriveOp::Sum, &["embed", "pos_embed"]);
    let doubled: Vec<f32> = values.iter().map(|v| 2.0 * v).collect();
    trace
        .insert_derived("blocks.0.resid_pre", vec![2, 32], &doubled, sum)
        .unwrap();
    let value: Value = serde_json::from_str(&trace.to_json()).unwrap();
    assert_eq!(
        value["tensors"]["blocks.0.resid_pre"],
        serde_json::json!({"shape": [2, 32], "derive": {"op": "sum", "from": ["embed", "pos_embed"]}})
    );
    value
}

#[test]
fn a_derivation_from_a_missing_or_circular_base_or_with_bad_arguments_is_corrupt() {
    let mut value = derived_json();
    value["tensors"]["blocks.0.resid_pre"]["derive"]["from"][1] = "pos_embedd".into();
    let message = tensor_error(&value, "blocks.0.resid_pre");
    assert!(
        message.contains("base \"pos_embedd\" is not in the trace"),
        "{message}"
    );

    let mut value = derived_json();
    let own = value["tensors"]["blocks.0.resid_pre"].clone();
    value["tensors"]["embed"] = own;
    value["tensors"]["embed"]["derive"]["from"] = serde_json::json!(["blocks.0.resid_pre"]);
    let message = tensor_error(&value, "embed");
    assert!(message.contains("depends on itself"), "{message}");

    let mut value = derived_json();
    value["tensors"]["blocks.0.resid_pre"]["derive"]["op"] = "std".into();
    let (err, message) = read_error(&value.to_string());
    assert!(matches!(err, TraceError::CorruptTensor { .. }), "{err:?}");
    assert!(message.contains("cannot take 2 bases"), "{message}");

    let mut value = derived_json();
    value["tensors"]["blocks.0.resid_pre"]["data"] = "AAAA".into();
    let (_, message) = read_error(&value.to_string());
    assert!(message.contains("it is derived, so it has no"), "{message}");

    let mut value = derived_json();
    value["tensors"]["blocks.0.resid_pre"]["shape"] = serde_json::json!([2, 31]);
    let message = tensor_error(&value, "blocks.0.resid_pre");
    assert!(
        message.contains("has shape [2, 32], not [2, 31]"),
        "{message}"
    );
}

/// The error reading tensor `name` of `value` from a file, checked for the path and the fix.
fn tensor_error(value: &Value, name: &str) -> String {
    let (_dir, path) = file_with(&value.to_string());
    let err = Trace::read(&path).unwrap().tensor(name).unwrap_err();
    assert!(matches!(err, TraceError::CorruptTensor { .. }), "{err:?}");
    let message = err.to_string();
    assert_names_file_and_fix(&message, &path);
    message
}

#[test]
fn a_zlib_stream_that_does_not_inflate_to_the_tensor_is_corrupt() {
    let mut value = predicted_json();
    value["tensors"]["embed"]["data"] = "eJxjYGBgAAAABAAB".into();
    let message = tensor_error(&value, "embed");
    assert!(message.contains("its zlib data"), "{message}");
}

#[test]
fn a_prediction_from_a_missing_or_circular_base_or_too_many_bases_is_corrupt() {
    let mut value = predicted_json();
    value["tensors"]["blocks.0.resid_pre"]["predict"]["from"][1] = "pos_embedd".into();
    let message = tensor_error(&value, "blocks.0.resid_pre");
    assert!(
        message.contains("base \"pos_embedd\" is not in the trace"),
        "{message}"
    );

    let mut value = predicted_json();
    let from = &mut value["tensors"]["blocks.0.resid_pre"]["predict"]["from"];
    *from = serde_json::json!(["embed", "embed", "embed", "embed"]);
    let message = tensor_error(&value, "blocks.0.resid_pre");
    assert!(message.contains("\"sum\" cannot take 4 bases"), "{message}");

    let mut value = predicted_json();
    let own = value["tensors"]["blocks.0.resid_pre"]["predict"].clone();
    value["tensors"]["embed"]["predict"] = own;
    let message = tensor_error(&value, "embed");
    assert!(
        message.contains("at most 2 levels are allowed"),
        "{message}"
    );
}
