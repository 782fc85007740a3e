//! A safetensors tensor's values as f32, as both readers of weights need them: the model crate
//! loading a checkpoint (a site's model may itself be a browser model) and the site writing
//! the browser model. Float tensors (F32, F16, BF16) convert one by one; an int8 matrix
//! ([`crate::int8`]) is read back with the row scales stored beside it, an int4 one
//! ([`crate::int4`], packed in `U8`) with its group scales.

use crate::{int4, int8};
use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensors};

/// The values of float bytes of `dtype` (little-endian); None for other dtypes.
pub fn float_values(dtype: Dtype, bytes: &[u8]) -> Option<Vec<f32>> {
    let words = |n: usize| bytes.chunks_exact(n);
    Some(match dtype {
        Dtype::F32 => words(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
        Dtype::F16 => words(2)
            .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        Dtype::BF16 => words(2)
            .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        _ => return None,
    })
}

/// The values of tensor `key` (`view`) of `file`: a float tensor, or an int8 or int4 matrix
/// with its scales. The error says what is wrong with the tensor, naming it.
pub fn tensor_values(
    file: &SafeTensors<'_>,
    key: &str,
    view: &TensorView<'_>,
) -> Result<Vec<f32>, String> {
    match view.dtype() {
        Dtype::I8 => {}
        Dtype::U8 => return int4_values(file, key, view),
        dtype => {
            return float_values(dtype, view.data())
                .ok_or_else(|| format!("tensor {key} has dtype {dtype:?}, not a float"))
        }
    }
    let scale_key = format!("{key}{}", int8::SCALE_SUFFIX);
    let scales = file
        .tensor(&scale_key)
        .map_err(|_| format!("tensor {key} is int8 but {scale_key} is missing"))?;
    let scale_values = match scales.dtype() {
        Dtype::F32 => float_values(Dtype::F32, scales.data()).expect("f32 reads"),
        other => return Err(format!("tensor {scale_key} has dtype {other:?}, not F32")),
    };
    let cols = view.shape().last().copied().unwrap_or(1);
    let bytes: Vec<i8> = view.data().iter().map(|&b| b as i8).collect();
    int8::dequantize_rows(&bytes, &scale_values, cols).ok_or_else(|| {
        format!(
            "tensor {scale_key} has {} scales for the {} rows of {key}",
            scale_values.len(),
            bytes.len() / cols.max(1)
        )
    })
}

/// An int4 matrix: `U8` nibbles of shape `[rows, cols / 2]`, its `U8` group codes and `F32`
/// row units.
fn int4_values(
    file: &SafeTensors<'_>,
    key: &str,
    view: &TensorView<'_>,
) -> Result<Vec<f32>, String> {
    let part = |suffix: &str, dtype: Dtype| {
        let name = format!("{key}{suffix}");
        let tensor = file.tensor(&name).map_err(|_| {
            format!("tensor {key} is U8 but {name} is missing (an int4 matrix keeps its steps beside it)")
        })?;
        if tensor.dtype() != dtype {
            return Err(format!(
                "tensor {name} has dtype {:?}, not {dtype:?}",
                tensor.dtype()
            ));
        }
        Ok(tensor.data().to_vec())
    };
    let codes = part(int4::CODE_SUFFIX, Dtype::U8)?;
    let units = float_values(Dtype::F32, &part(int4::UNIT_SUFFIX, Dtype::F32)?).expect("f32 reads");
    let cols = view.shape().last().copied().unwrap_or(0) * 2;
    int4::dequantize(view.data(), &codes, &units, cols).ok_or_else(|| {
        format!(
            "the {} codes and {} units beside {key} do not fit its {:?} nibbles",
            codes.len(),
            units.len(),
            view.shape()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(tensors: &[(&str, Dtype, Vec<usize>, Vec<u8>)]) -> Vec<u8> {
        let views: Vec<(&str, TensorView<'_>)> = tensors
            .iter()
            .map(|(name, dtype, shape, bytes)| {
                (
                    *name,
                    TensorView::new(*dtype, shape.clone(), bytes).unwrap(),
                )
            })
            .collect();
        safetensors::serialize(views, None).unwrap()
    }

    #[test]
    fn floats_and_int8_matrices_read_back() {
        let weights = [0.5f32, -1.0, 0.25, 2.0];
        let (bytes, scales) = int8::quantize_rows(&weights, 2);
        let f32_bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let half: Vec<u8> = weights
            .iter()
            .flat_map(|&w| half::f16::from_f32(w).to_le_bytes())
            .collect();
        let bytes = file(&[
            ("a", Dtype::F32, vec![2, 2], f32_bytes(&weights)),
            ("b", Dtype::F16, vec![4], half),
            (
                "m",
                Dtype::I8,
                vec![2, 2],
                bytes.iter().map(|&b| b as u8).collect(),
            ),
            ("m.int8_scale", Dtype::F32, vec![2], f32_bytes(&scales)),
            ("lonely", Dtype::I8, vec![1, 2], vec![1, 2]),
            ("ids", Dtype::I64, vec![1], vec![0; 8]),
        ]);
        let st = SafeTensors::deserialize(&bytes).unwrap();
        let read = |key: &str| tensor_values(&st, key, &st.tensor(key).unwrap());
        assert_eq!(read("a").unwrap(), weights);
        assert_eq!(read("b").unwrap(), weights);
        let m = read("m").unwrap();
        for (w, r) in weights.iter().zip(&m) {
            assert!((w - r).abs() <= 2.0 / 254.0, "{w} {r}");
        }
        assert_eq!(
            read("lonely").unwrap_err(),
            "tensor lonely is int8 but lonely.int8_scale is missing"
        );
        assert_eq!(
            read("ids").unwrap_err(),
            "tensor ids has dtype I64, not a float"
        );
    }

    #[test]
    fn int4_matrices_read_back_within_their_bound() {
        let weights: Vec<f32> = (0..8).map(|i| (i as f32 - 3.5) / 2.0).collect();
        let q = int4::quantize(&weights, 4).unwrap();
        let units: Vec<u8> = q.units.iter().flat_map(|u| u.to_le_bytes()).collect();
        let bytes = file(&[
            ("m", Dtype::U8, vec![2, 2], q.packed.clone()),
            ("m.int4_code", Dtype::U8, vec![2, 1], q.codes.clone()),
            ("m.int4_unit", Dtype::F32, vec![2], units.clone()),
            ("lonely", Dtype::U8, vec![2, 2], q.packed),
            ("short", Dtype::U8, vec![1, 2], vec![0x88, 0x88]),
            ("short.int4_code", Dtype::U8, vec![2, 1], q.codes),
            ("short.int4_unit", Dtype::F32, vec![2], units),
        ]);
        let st = SafeTensors::deserialize(&bytes).unwrap();
        let read = |key: &str| tensor_values(&st, key, &st.tensor(key).unwrap());
        let m = read("m").unwrap();
        for (row, back) in weights.chunks(4).zip(m.chunks(4)) {
            let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
            for (w, r) in row.iter().zip(back) {
                assert!((w - r).abs() <= int4::error_bound(max, max), "{w} {r}");
            }
        }
        assert!(read("lonely")
            .unwrap_err()
            .contains("lonely.int4_code is missing"));
        let short = read("short").unwrap_err();
        assert!(
            short.contains("the 2 codes and 2 units beside short do not fit its [1, 2] nibbles"),
            "{short}"
        );
    }
}
