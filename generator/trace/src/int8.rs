//! Int8 weights, per row: how the browser model of a site (`[live] precision = "int8"`) stores
//! its weight matrices, and how the model crate reads them back.
//!
//! A matrix of `rows × cols` f32 values is stored as `rows × cols` signed bytes and one f32
//! scale per row: `scale = max|row| / 127`, `q = round(w / scale)`, read back as `q × scale`.
//! The error of every weight is at most half a step, `|w − q × scale| ≤ max|row| / 254`
//! (plus f32 rounding), [`ERROR_BOUND_STEPS`] steps of its row's scale. Quantizing weights
//! read back from int8 gives the same bytes again (a step is exact), so a browser model can
//! itself be a site's model.
//!
//! In a safetensors file the matrix `NAME` is an `I8` tensor and its scales are the `F32`
//! tensor `NAME` + [`SCALE_SUFFIX`] of shape `[rows]`.

/// The key suffix of a quantized matrix's row scales.
pub const SCALE_SUFFIX: &str = ".int8_scale";

/// The largest error of a weight read back, in steps of its row's scale.
pub const ERROR_BOUND_STEPS: f32 = 0.5;

/// `values` (row-major, rows of `cols`) as signed bytes and one scale per row.
pub fn quantize_rows(values: &[f32], cols: usize) -> (Vec<i8>, Vec<f32>) {
    let cols = cols.max(1);
    let mut bytes = Vec::with_capacity(values.len());
    let mut scales = Vec::with_capacity(values.len() / cols);
    for row in values.chunks(cols) {
        let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
        let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
        scales.push(scale);
        bytes.extend(
            row.iter()
                .map(|v| (v / scale).round().clamp(-127.0, 127.0) as i8),
        );
    }
    (bytes, scales)
}

/// The f32 values of a matrix stored by [`quantize_rows`]; `None` when `scales` does not have
/// one entry per row of `cols` values.
pub fn dequantize_rows(bytes: &[i8], scales: &[f32], cols: usize) -> Option<Vec<f32>> {
    if cols == 0 || bytes.len() != scales.len() * cols {
        return None;
    }
    Some(
        bytes
            .chunks(cols)
            .zip(scales)
            .flat_map(|(row, &scale)| row.iter().map(move |&q| q as f32 * scale))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SplitMix64;

    fn random_matrix(rows: usize, cols: usize, seed: u64) -> Vec<f32> {
        let mut rng = SplitMix64::new(seed);
        (0..rows * cols)
            .map(|i| {
                // Rows of very different magnitudes, and one row of zeros.
                let magnitude = [0.02, 1.0, 37.0, 0.0][(i / cols) % 4];
                ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * magnitude
            })
            .collect()
    }

    #[test]
    fn every_weight_is_within_half_a_step_of_its_row() {
        let (rows, cols) = (16, 33);
        let values = random_matrix(rows, cols, 7);
        let (bytes, scales) = quantize_rows(&values, cols);
        let back = dequantize_rows(&bytes, &scales, cols).unwrap();
        for (r, row) in values.chunks(cols).enumerate() {
            let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
            let bound = max / 254.0 * (1.0 + 1e-5);
            for (c, &w) in row.iter().enumerate() {
                let err = (w - back[r * cols + c]).abs();
                assert!(
                    err <= bound,
                    "row {r} col {c}: {w} read back with error {err} > {bound}"
                );
            }
        }
    }

    #[test]
    fn quantizing_weights_read_back_gives_the_same_bytes() {
        let (rows, cols) = (12, 20);
        let (bytes, scales) = quantize_rows(&random_matrix(rows, cols, 3), cols);
        let back = dequantize_rows(&bytes, &scales, cols).unwrap();
        let (again, again_scales) = quantize_rows(&back, cols);
        assert_eq!(again, bytes);
        assert_eq!(again_scales, scales);
    }

    #[test]
    fn scales_must_match_the_rows() {
        assert!(dequantize_rows(&[1, 2, 3, 4], &[1.0], 2).is_none());
        assert!(dequantize_rows(&[1, 2], &[1.0], 0).is_none());
    }
}
