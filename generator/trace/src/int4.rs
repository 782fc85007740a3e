//! Int4 weights, group-wise: how the browser model of a site (`[live] precision = "int4"`)
//! stores its weight matrices, for models the size of GPT-2 small (about 66 MB at int4 against
//! 125 MB at int8), and how the model crate reads them back.
//!
//! Each row of a `rows × cols` matrix (`cols` even) is cut into groups of [`GROUP`] values (the
//! last one shorter when `cols` is not a multiple). A value becomes `q = round(w / s)` in
//! −7..=7, read back as `q × s`, where its group's step `s = code × unit` is stored in two
//! levels (as QLoRA's double quantization): one f32 `unit` per row, `max|row| / (7 × 255)`,
//! and one byte `code` per group, `⌈max|group| / (7 × unit)⌉`, so that `s ≥ max|group| / 7`
//! and no value needs more than ±7 steps. The error of every weight is at most half a step:
//! `|w − q × s| ≤ s / 2 ≤ max|group| / 14 + max|row| / 3570` ([`error_bound`]). A weight
//! costs 4.25 bits (4, and 8 per group of 32), so GPT-2 small's matrices take 66 MB.
//!
//! In a safetensors file the matrix `NAME` is a `U8` tensor of shape `[rows, cols / 2]`, two
//! values per byte (the even column in the low nibble), each stored as `q + 8`; its codes are
//! the `U8` tensor `NAME` + [`CODE_SUFFIX`] of shape `[rows, groups]` and its units the `F32`
//! tensor `NAME` + [`UNIT_SUFFIX`] of shape `[rows]`.

/// The key suffix of a quantized matrix's group codes.
pub const CODE_SUFFIX: &str = ".int4_code";
/// The key suffix of a quantized matrix's row units.
pub const UNIT_SUFFIX: &str = ".int4_unit";

/// Values per step along a row.
pub const GROUP: usize = 32;

/// The largest error of a weight read back whose group's largest magnitude is `group_max` in a
/// row whose largest is `row_max` (f32 rounding included).
pub fn error_bound(group_max: f32, row_max: f32) -> f32 {
    (group_max / 14.0 + row_max / 3570.0) * (1.0 + 1e-5)
}

/// A matrix at int4: packed nibbles, a code per group of each row, a unit per row.
#[derive(Debug, Clone, PartialEq)]
pub struct Int4 {
    pub packed: Vec<u8>,
    pub codes: Vec<u8>,
    pub units: Vec<f32>,
}

/// `values` (row-major, rows of `cols`) at int4; None when `cols` is odd or zero (such a matrix
/// stays at another precision).
pub fn quantize(values: &[f32], cols: usize) -> Option<Int4> {
    if cols == 0 || !cols.is_multiple_of(2) || !values.len().is_multiple_of(cols) {
        return None;
    }
    let rows = values.len() / cols;
    let mut out = Int4 {
        packed: Vec::with_capacity(values.len() / 2),
        codes: Vec::with_capacity(rows * cols.div_ceil(GROUP)),
        units: Vec::with_capacity(rows),
    };
    let magnitude = |group: &[f32]| group.iter().fold(0f32, |m, v| m.max(v.abs()));
    for row in values.chunks(cols) {
        let row_max = magnitude(row);
        let unit = if row_max > 0.0 {
            row_max / (7.0 * 255.0)
        } else {
            1.0
        };
        out.units.push(unit);
        let mut nibbles = Vec::with_capacity(cols);
        for group in row.chunks(GROUP) {
            let code = (magnitude(group) / (7.0 * unit)).ceil().min(255.0) as u8;
            out.codes.push(code);
            let step = f32::from(code) * unit;
            nibbles.extend(group.iter().map(|v| {
                let q = if step > 0.0 {
                    (v / step).round().clamp(-7.0, 7.0)
                } else {
                    0.0
                };
                (q as i8 + 8) as u8
            }));
        }
        out.packed
            .extend(nibbles.chunks(2).map(|pair| pair[0] | (pair[1] << 4)));
    }
    Some(out)
}

/// The f32 values of a matrix stored by [`quantize`] with `cols` values per row; None when the
/// sizes do not fit together.
pub fn dequantize(packed: &[u8], codes: &[u8], units: &[f32], cols: usize) -> Option<Vec<f32>> {
    if cols == 0 || !cols.is_multiple_of(2) || packed.len() != units.len() * (cols / 2) {
        return None;
    }
    let groups = cols.div_ceil(GROUP);
    if codes.len() != units.len() * groups {
        return None;
    }
    let mut out = Vec::with_capacity(units.len() * cols);
    let rows = packed.chunks(cols / 2).zip(codes.chunks(groups)).zip(units);
    for ((row, row_codes), &unit) in rows {
        let nibbles = row.iter().flat_map(|b| [b & 0x0f, b >> 4]);
        for (i, nibble) in nibbles.enumerate() {
            let step = f32::from(row_codes[i / GROUP]) * unit;
            out.push(f32::from(nibble as i8 - 8) * step);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SplitMix64;

    fn random_matrix(rows: usize, cols: usize, seed: u64) -> Vec<f32> {
        let mut rng = SplitMix64::new(seed);
        (0..rows * cols)
            .map(|i| {
                // Rows of very different magnitudes (a tiny one, a huge one), and one of zeros;
                // within a row, groups of different magnitudes too.
                let magnitude = [0.02, 1.0, 37.0, 0.0, 1e-7, 3e5][(i / cols) % 6];
                let group = [1.0, 0.01, 0.3][(i % cols) / GROUP % 3];
                ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0)
                    * magnitude
                    * group
            })
            .collect()
    }

    fn magnitude(v: &[f32]) -> f32 {
        v.iter().fold(0f32, |m, x| m.max(x.abs()))
    }

    #[test]
    fn every_weight_is_within_half_a_step_of_its_group() {
        // 150 columns: four whole groups and a short one.
        let (rows, cols) = (18, 150);
        let values = random_matrix(rows, cols, 7);
        let q = quantize(&values, cols).unwrap();
        assert_eq!(q.packed.len(), rows * cols / 2);
        assert_eq!(q.codes.len(), rows * 5);
        let back = dequantize(&q.packed, &q.codes, &q.units, cols).unwrap();
        for (r, row) in values.chunks(cols).enumerate() {
            for (g, group) in row.chunks(GROUP).enumerate() {
                let bound = error_bound(magnitude(group), magnitude(row));
                for (i, &w) in group.iter().enumerate() {
                    let c = g * GROUP + i;
                    let err = (w - back[r * cols + c]).abs();
                    assert!(
                        err <= bound,
                        "row {r} col {c}: {w} back with error {err} > {bound}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_bound_is_tight_enough_to_mean_something() {
        // Somewhere the error comes close to half a step: the bound is not loose by design.
        let values = random_matrix(6, 128, 11);
        let q = quantize(&values, 128).unwrap();
        let back = dequantize(&q.packed, &q.codes, &q.units, 128).unwrap();
        let worst = values
            .chunks(GROUP)
            .zip(back.chunks(GROUP))
            .filter(|(w, _)| magnitude(w) > 0.0)
            .map(|(w, b)| {
                let max = magnitude(w);
                w.iter()
                    .zip(b)
                    .map(|(x, y)| (x - y).abs() / max)
                    .fold(0f32, f32::max)
            })
            .fold(0f32, f32::max);
        assert!(worst > 0.8 / 14.0, "{worst}");
    }

    #[test]
    fn odd_rows_and_mismatched_steps_are_refused() {
        assert!(quantize(&[1.0, 2.0, 3.0], 3).is_none());
        assert!(quantize(&[1.0, 2.0], 0).is_none());
        let q = quantize(&[1.0, -2.0, 0.5, 4.0], 4).unwrap();
        assert!(dequantize(&q.packed, &q.codes[..0], &q.units, 4).is_none());
        assert!(dequantize(&q.packed, &q.codes, &q.units, 6).is_none());
        assert_eq!(
            dequantize(&q.packed, &q.codes, &q.units, 4).unwrap().len(),
            4
        );
        // A row of zeros reads back as zeros.
        let zeros = quantize(&[0.0; 4], 4).unwrap();
        assert_eq!(
            dequantize(&zeros.packed, &zeros.codes, &zeros.units, 4).unwrap(),
            [0.0; 4]
        );
    }
}
