//! Probabilities in one byte each: `q = round(p * 255)`, decoded as `q / 255`.

/// One byte per value, or None when a value is outside [0, 1].
pub fn encode(data: &[f32]) -> Option<Vec<u8>> {
    if data.iter().any(|p| !(0.0..=1.0).contains(p)) {
        return None;
    }
    Some(
        data.iter()
            .map(|&p| (f64::from(p) * 255.0).round() as u8)
            .collect(),
    )
}

pub fn decode(bytes: &[u8]) -> Vec<f32> {
    bytes.iter().map(|&q| f32::from(q) / 255.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_and_one_are_exact_and_out_of_range_values_are_refused() {
        assert_eq!(
            decode(&encode(&[0.0, 1.0, 0.5]).unwrap()),
            vec![0.0, 1.0, 128.0 / 255.0]
        );
        assert!(encode(&[1.01]).is_none());
        assert!(encode(&[-0.001]).is_none());
    }
}
