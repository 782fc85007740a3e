//! Trace files: JSON, header, metadata, base64 and every tensor decoded through the codec; a
//! trace that reads writes back to a file that reads back to the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracebook_trace::Trace;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(trace) = Trace::from_json(common::text(data)) else {
        return;
    };
    let names: Vec<String> = trace.tensor_names().map(str::to_string).collect();
    for name in &names {
        let shape = trace
            .shape(name)
            .expect("listed tensors have a shape")
            .to_vec();
        if let Ok(tensor) = trace.tensor(name) {
            assert_eq!(tensor.shape, shape);
            assert_eq!(tensor.data.len(), shape.iter().product::<usize>());
        }
    }
    let json = trace.to_json();
    let again = Trace::from_json(&json).expect("a trace that was read writes a readable file");
    assert_eq!(
        again.to_json(),
        json,
        "writing a trace read back gives the same text"
    );
});
