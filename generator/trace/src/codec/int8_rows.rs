//! Activations as signed bytes with one f32 scale per row: `scale = max|row| / 127`,
//! `q = round(x / scale)`, decoded as `q * scale`.
//!
//! Layout: every row's scale (f32, row order), then every value (i8, row-major). Keeping the
//! scales together lets a reader view them as one f32 array and the values as one i8 array.

use super::Layout;

/// Scales then values, or None when a row's scale would not be a normal f32 (rows whose
/// largest magnitude is below ~1.5e-36, or so large that `127 * scale` overflows).
pub fn encode(layout: Layout, data: &[f32]) -> Option<Vec<u8>> {
    let scales = scales(layout, data)?;
    let mut bytes = scale_bytes(&scales);
    for (r, &scale) in scales.iter().enumerate() {
        bytes.extend(
            row(layout, data, r)
                .iter()
                .map(|&x| quantize(f64::from(x), scale) as u8),
        );
    }
    Some(bytes)
}

fn scales(layout: Layout, data: &[f32]) -> Option<Vec<f32>> {
    (0..layout.rows)
        .map(|r| row_scale(row(layout, data, r)))
        .collect()
}

fn scale_bytes(scales: &[f32]) -> Vec<u8> {
    scales.iter().flat_map(|s| s.to_le_bytes()).collect()
}

pub fn decode(layout: Layout, bytes: &[u8]) -> Vec<f32> {
    let (scale_bytes, values) = bytes.split_at(4 * layout.rows);
    let scales = scale_bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let mut data = Vec::with_capacity(values.len());
    for (r, scale) in scales.enumerate() {
        let start = r * layout.cols;
        let row = &values[start..start + layout.cols];
        data.extend(row.iter().map(|&q| f32::from(q as i8) * scale));
    }
    data
}

fn row(layout: Layout, data: &[f32], r: usize) -> &[f32] {
    &data[r * layout.cols..(r + 1) * layout.cols]
}

/// `max|row| / 127`; 0 for a row of zeros (stored as zeros, decoded exactly).
fn row_scale(row: &[f32]) -> Option<f32> {
    let max = row.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 {
        return Some(0.0);
    }
    let scale = (f64::from(max) / 127.0) as f32;
    (scale.is_normal() && (127.0 * scale).is_finite()).then_some(scale)
}

fn quantize(x: f64, scale: f32) -> i8 {
    if scale == 0.0 {
        return 0;
    }
    (x / f64::from(scale)).round().clamp(-127.0, 127.0) as i8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_come_first_then_the_bytes_of_each_row() {
        let layout = Layout { rows: 2, cols: 2 };
        let bytes = encode(layout, &[127.0, -63.5, 0.0, 0.0]).unwrap();
        assert_eq!(&bytes[0..4], &1.0f32.to_le_bytes());
        assert_eq!(&bytes[4..8], &0.0f32.to_le_bytes());
        assert_eq!(&bytes[8..], &[127u8, (-64i8) as u8, 0, 0]);
        assert_eq!(decode(layout, &bytes), vec![127.0, -64.0, 0.0, 0.0]);
    }

    #[test]
    fn rows_too_small_for_a_normal_scale_are_refused() {
        let layout = Layout { rows: 1, cols: 2 };
        assert!(encode(layout, &[1e-40, 0.0]).is_none());
        assert!(encode(layout, &[3e38, 1.0]).is_some());
    }
}
