//! Lossless compression of a tensor's encoded bytes before base64: zlib (RFC 1950), which
//! Python's `zlib.decompress` and every zlib binding read as they are.

use miniz_oxide::deflate::core::{
    compress_to_output, create_comp_flags_from_zip_params, CompressionStrategy, CompressorOxide,
    TDEFLFlush, TDEFLStatus,
};
use miniz_oxide::inflate::decompress_to_vec_zlib_with_limit;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How the encoded bytes of a tensor are compressed in the file (absent: not compressed).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compression {
    /// A zlib stream (deflate with a two-byte header and an Adler-32 checksum).
    #[serde(rename = "zlib")]
    Zlib,
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("zlib")
    }
}

/// The bytes as stored: compressed when that is smaller (small tensors and incompressible
/// data stay as they are). Deterministic: the same bytes always give the same output.
pub fn pack(bytes: Vec<u8>) -> (Option<Compression>, Vec<u8>) {
    let packed = deflate(&bytes);
    if packed.len() < bytes.len() {
        (Some(Compression::Zlib), packed)
    } else {
        (None, bytes)
    }
}

/// A zlib stream of `bytes`, deflated with run-length matches only (miniz's RLE strategy):
/// quantized tensors have few long repeats but many runs, above all of zeros in differences
/// from a prediction. On the tensors of a 257-token GPT-2-small trace, plain tensors shrink to
/// 77.4% in 0.6 s (miniz level 1: 78.5% in 0.35 s; level 9: 78.1% in 2.8 s) and differences
/// to 13.9% in 0.19 s (level 1: 19.6% in 0.09 s; level 9: 13.3% in 4.4 s).
fn deflate(bytes: &[u8]) -> Vec<u8> {
    let flags = create_comp_flags_from_zip_params(6, 1, CompressionStrategy::RLE as i32);
    let mut compressor = CompressorOxide::new(flags);
    let mut out = Vec::with_capacity(bytes.len() / 2 + 64);
    let (status, _) = compress_to_output(&mut compressor, bytes, TDEFLFlush::Finish, |chunk| {
        out.extend_from_slice(chunk);
        true
    });
    debug_assert_eq!(status, TDEFLStatus::Done);
    out
}

/// The encoded bytes back; `expected` is their length, which the stream must have exactly
/// (it is never inflated beyond it).
pub fn unpack(compression: Compression, bytes: &[u8], expected: usize) -> Result<Vec<u8>, String> {
    let out = match compression {
        Compression::Zlib => decompress_to_vec_zlib_with_limit(bytes, expected)
            .map_err(|e| format!("its zlib data does not inflate ({:?})", e.status))?,
    };
    if out.len() != expected {
        return Err(format!(
            "its zlib data inflates to {} bytes, but its shape and encoding need {expected}",
            out.len()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repetitive_bytes_are_compressed_and_inflate_back() {
        let bytes: Vec<u8> = (0..4000).map(|i| (i / 100) as u8).collect();
        let (compression, packed) = pack(bytes.clone());
        assert_eq!(compression, Some(Compression::Zlib));
        assert!(packed.len() < 100);
        assert_eq!(unpack(Compression::Zlib, &packed, bytes.len()), Ok(bytes));
    }

    #[test]
    fn tiny_tensors_stay_uncompressed() {
        assert_eq!(pack(vec![1, 2, 3]), (None, vec![1, 2, 3]));
    }

    #[test]
    fn streams_longer_than_the_tensor_or_broken_are_refused() {
        let (_, packed) = pack(vec![0; 1000]);
        assert!(unpack(Compression::Zlib, &packed, 999).is_err());
        assert!(unpack(Compression::Zlib, &packed, 1001).is_err());
        assert!(unpack(Compression::Zlib, &packed[..packed.len() - 5], 1000).is_err());
    }
}
