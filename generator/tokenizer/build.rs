//! Writes GPT-2's token byte strings (tiktoken-rs' r50k_base, in rank order) to a compact
//! blob that `src/r50k.rs` embeds: reading it at run time takes about a millisecond, where
//! `tiktoken_rs::r50k_base()` takes ~50 ms (base64 decoding, regex compilation).
//!
//! Blob format: for each rank 0..=50256, one length byte, then that many bytes.

use std::path::PathBuf;

const GPT2_VOCAB_SIZE: u32 = 50257;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let bpe = tiktoken_rs::r50k_base().expect("tiktoken-rs builds r50k_base from embedded data");
    let mut blob = Vec::with_capacity(450_000);
    for rank in 0..GPT2_VOCAB_SIZE {
        let bytes = bpe
            .decode_bytes(&[rank])
            .unwrap_or_else(|_| panic!("r50k_base has no token {rank}"));
        let len = u8::try_from(bytes.len())
            .unwrap_or_else(|_| panic!("r50k_base token {rank} is longer than 255 bytes"));
        blob.push(len);
        blob.extend_from_slice(&bytes);
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("r50k_token_bytes.bin"), blob).expect("writing OUT_DIR blob");
}
