//! A decoded tensor: its shape and row-major f32 values, indexable from either end.

use serde::{Deserialize, Serialize};

/// A tensor as readers see it, whatever encoding it was stored with.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Tensor {
    pub shape: Vec<usize>,
    /// Row-major values; `data.len()` is the product of `shape`.
    pub data: Vec<f32>,
}

/// An index that does not address a value of a tensor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    #[error("{given} indices given, but the tensor has {rank} dimensions (shape {shape:?})")]
    WrongRank {
        given: usize,
        rank: usize,
        shape: Vec<usize>,
    },
    #[error("index {index} is out of range for dimension {axis} of size {size} (valid: {} to {})", -(*size as i64), *size as i64 - 1)]
    OutOfRange {
        axis: usize,
        index: i64,
        size: usize,
    },
}

impl Tensor {
    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The position in `data` of `index`, one entry per dimension; negative entries count
    /// from the end (`-1` is the last).
    pub fn offset(&self, index: &[i64]) -> Result<usize, IndexError> {
        if index.len() != self.shape.len() {
            return Err(IndexError::WrongRank {
                given: index.len(),
                rank: self.shape.len(),
                shape: self.shape.clone(),
            });
        }
        let mut offset = 0;
        for (axis, (&i, &size)) in index.iter().zip(&self.shape).enumerate() {
            let resolved = if i < 0 { i + size as i64 } else { i };
            if resolved < 0 || resolved >= size as i64 {
                return Err(IndexError::OutOfRange {
                    axis,
                    index: i,
                    size,
                });
            }
            offset = offset * size + resolved as usize;
        }
        Ok(offset)
    }

    /// The value at `index` (negative entries count from the end).
    pub fn get(&self, index: &[i64]) -> Result<f32, IndexError> {
        self.offset(index).map(|o| self.data[o])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Tensor {
        Tensor {
            shape: vec![2, 3],
            data: vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
        }
    }

    #[test]
    fn indices_count_from_either_end() {
        let t = grid();
        assert_eq!(t.get(&[1, 2]), Ok(5.0));
        assert_eq!(t.get(&[-1, -3]), Ok(3.0));
        assert_eq!(t.get(&[0, -1]), Ok(2.0));
    }

    #[test]
    fn bad_indices_say_what_is_valid() {
        let t = grid();
        assert_eq!(
            t.get(&[0, 3]).unwrap_err().to_string(),
            "index 3 is out of range for dimension 1 of size 3 (valid: -3 to 2)"
        );
        assert_eq!(
            t.get(&[-3, 0]).unwrap_err().to_string(),
            "index -3 is out of range for dimension 0 of size 2 (valid: -2 to 1)"
        );
        assert_eq!(
            t.get(&[1]).unwrap_err().to_string(),
            "1 indices given, but the tensor has 2 dimensions (shape [2, 3])"
        );
    }
}
