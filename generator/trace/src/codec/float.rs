//! The float encodings: f32 (exact) and IEEE binary16.

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
    fn f32_bytes_are_little_endian() {
        assert_eq!(encode_f32(&[1.0]), vec![0x00, 0x00, 0x80, 0x3f]);
        assert_eq!(decode_f32(&[0x00, 0x00, 0x80, 0x3f]), vec![1.0]);
        assert_eq!(encode_f16(&[1.0]).unwrap(), vec![0x00, 0x3c]);
    }
}
