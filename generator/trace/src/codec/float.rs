//! The float encodings: f32 (exact), IEEE binary16, and binary16 relative to each row's maximum.

use super::Layout;
use half::f16;

pub fn encode_f32(data: &[f32]) -> Vec<u8> {
    data.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn decode_f32(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Half precision, or None when a value is beyond ±65504 (the largest finite f16).
pub fn encode_f16(data: &[f32]) -> Option<Vec<u8>> {
    let max = f16::MAX.to_f32();
    if data.iter().any(|x| x.abs() > max) {
        return None;
    }
    Some(
        data.iter()
            .flat_map(|&x| f16::from_f32(x).to_le_bytes())
            .collect(),
    )
}

pub fn decode_f16(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(2)
        .map(|b| f16::from_le_bytes([b[0], b[1]]).to_f32())
        .collect()
}

/// Per row: the row's maximum as an f32 offset, then each value minus that offset as f16
/// (offsets first, then all the f16 values, row-major). The values nearest the maximum, which
/// dominate a softmax, keep the most precision: |error| <= |x - max| * 2^-11 + 2^-25 (f16
/// subnormals) plus f32 rounding.
/// None when a difference would overflow f16.
pub fn encode_f16_rows(layout: Layout, data: &[f32]) -> Option<Vec<u8>> {
    let limit = f16::MAX.to_f32();
    let rows: Vec<&[f32]> = row_slices(layout, data);
    let offsets: Vec<f32> = rows
        .iter()
        .map(|row| row.iter().copied().fold(f32::NEG_INFINITY, f32::max))
        .map(|m| if m.is_finite() { m } else { 0.0 })
        .collect();
    let mut bytes: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
    for (row, offset) in rows.iter().zip(&offsets) {
        for &x in row.iter() {
            let diff = x - offset;
            if diff.abs() > limit {
                return None;
            }
            bytes.extend(f16::from_f32(diff).to_le_bytes());
        }
    }
    Some(bytes)
}

pub fn decode_f16_rows(layout: Layout, bytes: &[u8]) -> Vec<f32> {
    let (offsets, values) = bytes.split_at(layout.rows * 4);
    let offsets = decode_f32(offsets);
    let values = decode_f16(values);
    if layout.cols == 0 {
        return Vec::new();
    }
    values
        .chunks(layout.cols)
        .zip(offsets)
        .flat_map(|(row, offset)| row.iter().map(move |d| offset + d))
        .collect()
}

fn row_slices(layout: Layout, data: &[f32]) -> Vec<&[f32]> {
    if layout.cols == 0 {
        return vec![&[][..]; layout.rows];
    }
    data.chunks(layout.cols).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_refuses_values_it_would_overflow() {
        assert!(encode_f16(&[65504.0, -65504.0]).is_some());
        assert!(encode_f16(&[65505.0]).is_none());
        assert!(encode_f16(&[-1e6]).is_none());
    }

    #[test]
    fn f16_rows_keep_values_near_the_row_maximum_precise() {
        let layout = Layout { rows: 2, cols: 3 };
        let data = [-101.37, -98.21, -130.9, 5.5, 0.0, -3.25];
        let back = decode_f16_rows(layout, &encode_f16_rows(layout, &data).unwrap());
        for (x, y) in data.iter().zip(&back) {
            let row_max = if *x > -50.0 && *x < 10.0 {
                5.5f32
            } else {
                -98.21
            };
            let bound = (x - row_max).abs() * 2f32.powi(-11) + 1e-5;
            assert!((x - y).abs() <= bound, "{x} came back as {y}");
        }
        assert_eq!(back[1], -98.21, "the maximum is exact");
        // Plain f16 rounds -101.37 by 0.005; relative to the maximum, by under 0.001.
        let plain = f16::from_f32(-101.37).to_f32();
        assert!((plain + 101.37).abs() > 0.004 && (back[0] + 101.37).abs() < 0.001);
    }

    #[test]
    fn f32_bytes_are_little_endian() {
        assert_eq!(encode_f32(&[1.0]), vec![0x00, 0x00, 0x80, 0x3f]);
        assert_eq!(decode_f32(&[0x00, 0x00, 0x80, 0x3f]), vec![1.0]);
        assert_eq!(encode_f16(&[1.0]).unwrap(), vec![0x00, 0x3c]);
    }
}
