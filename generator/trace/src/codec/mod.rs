//! The tensor codec: how a tensor's f32 values become the bytes of its `data` field, and back.
//!
//! Byte layouts and error bounds are specified in `docs/trace-format.md`; every encoding is
//! little-endian. A lossy encoding is used only where its documented bound holds for every
//! value of the tensor; otherwise the tensor is stored as f32. The encoded bytes may then be
//! compressed (`compress`). A tensor that follows from others is stored as that computation
//! (`derive`, version 3) or, in version-2 files, as its difference from a prediction
//! (`predict`).

pub mod bound;
mod compress;
mod derive;
pub mod exact_math;
mod float;
mod int8_rows;
mod predict;
mod unorm8;

pub use compress::{pack, unpack, Compression};
pub use derive::{Derivation, DeriveOp};
pub use predict::{Base, Prediction, MAX_DEPTH};

use serde::{Deserialize, Serialize};
use std::fmt;

/// How a tensor's values are stored.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// 4 bytes per value, exact.
    #[serde(rename = "f32")]
    F32,
    /// 2 bytes per value, IEEE binary16.
    #[serde(rename = "f16")]
    F16,
    /// An f32 offset per row (the row's maximum), then 2 bytes per value: binary16 of
    /// `value - offset`. For logits, whose softmax depends on the values near the maximum.
    #[serde(rename = "f16_rows")]
    F16Rows,
    /// 1 byte per value: `byte / 255`, for values in [0, 1].
    #[serde(rename = "unorm8")]
    Unorm8,
    /// An f32 scale per row (last dimension), then 1 signed byte per value: `q * scale`.
    #[serde(rename = "int8_rows")]
    Int8Rows,
}

impl Encoding {
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::F32 => "f32",
            Encoding::F16 => "f16",
            Encoding::F16Rows => "f16_rows",
            Encoding::Unorm8 => "unorm8",
            Encoding::Int8Rows => "int8_rows",
        }
    }

    /// The number of bytes a tensor of `shape` takes in this encoding (None if that number
    /// does not fit in a usize, as only a corrupt shape can ask).
    pub fn byte_len(self, shape: &[usize]) -> Option<usize> {
        let layout = Layout::checked(shape)?;
        let len = layout.rows.checked_mul(layout.cols)?;
        match self {
            Encoding::F32 => len.checked_mul(4),
            Encoding::F16 => len.checked_mul(2),
            Encoding::F16Rows => layout.rows.checked_mul(4)?.checked_add(len.checked_mul(2)?),
            Encoding::Unorm8 => Some(len),
            Encoding::Int8Rows => layout.rows.checked_mul(4)?.checked_add(len),
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A shape seen as rows: the last dimension is a row, every other dimension counts rows.
/// A scalar (empty shape) is one row of one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub rows: usize,
    pub cols: usize,
}

impl Layout {
    /// The layout of a shape already known to be sane (its tensor exists in memory).
    pub fn of(shape: &[usize]) -> Layout {
        Layout::checked(shape).expect("the shape of a tensor in memory fits in a usize")
    }

    /// The layout of any shape, None when its row count overflows.
    pub fn checked(shape: &[usize]) -> Option<Layout> {
        match shape.split_last() {
            Some((&cols, leading)) => Some(Layout {
                rows: leading.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?,
                cols,
            }),
            None => Some(Layout { rows: 1, cols: 1 }),
        }
    }

    pub fn len(self) -> usize {
        self.rows * self.cols
    }
}

/// The number of values of a tensor of `shape`, None when it overflows.
pub(crate) fn value_count(shape: &[usize]) -> Option<usize> {
    let layout = Layout::checked(shape)?;
    layout.rows.checked_mul(layout.cols)
}

/// Encode `data` (row-major, `shape`) as `preferred`, or as f32 where `preferred` cannot hold
/// the values within its bound (any NaN or infinity, f16 overflow, a probability outside
/// [0, 1], a row scale outside the normal f32 range). Returns the encoding actually used.
pub(crate) fn encode(preferred: Encoding, shape: &[usize], data: &[f32]) -> (Encoding, Vec<u8>) {
    debug_assert_eq!(Layout::of(shape).len(), data.len());
    let lossy = if data.iter().all(|x| x.is_finite()) {
        match preferred {
            Encoding::F32 => None,
            Encoding::F16 => float::encode_f16(data),
            Encoding::F16Rows => float::encode_f16_rows(Layout::of(shape), data),
            Encoding::Unorm8 => unorm8::encode(data),
            Encoding::Int8Rows => int8_rows::encode(Layout::of(shape), data),
        }
    } else {
        None
    };
    match lossy {
        Some(bytes) => (preferred, bytes),
        None => (Encoding::F32, float::encode_f32(data)),
    }
}

/// Decode the bytes of a tensor of `shape`; the error says what is wrong with them.
pub(crate) fn decode(
    encoding: Encoding,
    shape: &[usize],
    bytes: &[u8],
) -> Result<Vec<f32>, String> {
    check_len(encoding, shape, bytes.len())?;
    Ok(match encoding {
        Encoding::F32 => float::decode_f32(bytes),
        Encoding::F16 => float::decode_f16(bytes),
        Encoding::F16Rows => float::decode_f16_rows(Layout::of(shape), bytes),
        Encoding::Unorm8 => unorm8::decode(bytes),
        Encoding::Int8Rows => int8_rows::decode(Layout::of(shape), bytes),
    })
}

/// Whether `len` bytes are exactly what a tensor of `shape` takes in `encoding`.
pub(crate) fn check_len(encoding: Encoding, shape: &[usize], len: usize) -> Result<(), String> {
    match encoding.byte_len(shape) {
        Some(needed) if needed == len => Ok(()),
        Some(needed) => Err(format!(
            "its data has {len} bytes, but shape {shape:?} stored as {encoding} needs {needed}"
        )),
        None => Err(format!("its shape {shape:?} is too large to exist")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_treat_the_last_dimension_as_a_row() {
        assert_eq!(
            Layout::of(&[12, 16, 64]),
            Layout {
                rows: 192,
                cols: 64
            }
        );
        assert_eq!(Layout::of(&[7]), Layout { rows: 1, cols: 7 });
        assert_eq!(Layout::of(&[]), Layout { rows: 1, cols: 1 });
        assert_eq!(Layout::of(&[3, 0]), Layout { rows: 3, cols: 0 });
        assert_eq!(Encoding::Int8Rows.byte_len(&[2, 5]), Some(2 * 4 + 10));
        assert_eq!(Encoding::F32.byte_len(&[usize::MAX, 2]), None);
    }

    #[test]
    fn non_finite_values_force_f32_whatever_was_asked() {
        let data = [1.0, f32::NAN, f32::INFINITY, -2.0];
        for preferred in [
            Encoding::F16,
            Encoding::F16Rows,
            Encoding::Unorm8,
            Encoding::Int8Rows,
        ] {
            let (used, bytes) = encode(preferred, &[4], &data);
            assert_eq!(used, Encoding::F32);
            let back = decode(used, &[4], &bytes).unwrap();
            assert_eq!(back[0], 1.0);
            assert!(back[1].is_nan());
            assert_eq!(back[2], f32::INFINITY);
        }
    }

    #[test]
    fn a_wrong_byte_count_is_reported_with_the_expected_one() {
        let err = decode(Encoding::F16, &[2, 3], &[0; 10]).unwrap_err();
        assert_eq!(
            err,
            "its data has 10 bytes, but shape [2, 3] stored as f16 needs 12"
        );
    }
}
