//! Options beyond the basic ones: real numbers, lists of them, and a layer that may be
//! left out to mean "every layer".

use super::problems::wrong_type;
use super::reader::Options;
use super::values::Layer;
use crate::error::FigureError;
use std::ops::RangeInclusive;
use toml::Value;

impl Options<'_> {
    /// An optional number within `range` (an integer is taken as a number), `default`
    /// when absent.
    pub fn float(
        &self,
        key: &str,
        default: f64,
        range: RangeInclusive<f64>,
    ) -> Result<f64, FigureError> {
        match self.table.get(key) {
            None => Ok(default),
            Some(value) => {
                let number = as_number(key, value, &format!("{key} = {default}"))?;
                in_range(key, number, &range)
            }
        }
    }

    /// An optional number within `range`, `None` when absent.
    pub fn optional_float(
        &self,
        key: &str,
        range: RangeInclusive<f64>,
    ) -> Result<Option<f64>, FigureError> {
        if self.table.contains_key(key) {
            self.float(key, *range.start(), range).map(Some)
        } else {
            Ok(None)
        }
    }

    /// An optional integer within `range`, `None` when absent.
    pub fn optional_integer(
        &self,
        key: &str,
        range: RangeInclusive<i64>,
    ) -> Result<Option<i64>, FigureError> {
        if self.table.contains_key(key) {
            self.integer(key, *range.start(), range).map(Some)
        } else {
            Ok(None)
        }
    }

    /// An optional array of 1 to `max_len` numbers, each within `range`.
    pub fn floats(
        &self,
        key: &str,
        default: &[f64],
        range: RangeInclusive<f64>,
        max_len: usize,
    ) -> Result<Vec<f64>, FigureError> {
        let example = format!("{key} = [0.5, 1.0, 2.0]");
        let items = match self.table.get(key) {
            None => return Ok(default.to_vec()),
            Some(Value::Array(items)) => items,
            Some(other) => return Err(wrong_type(key, "an array of numbers", other, &example)),
        };
        if items.is_empty() || items.len() > max_len {
            return Err(
                FigureError::at(key, format!("`{key}` has {} values", items.len()))
                    .with_hint(format!("give 1 to {max_len} values, e.g. {example}")),
            );
        }
        items
            .iter()
            .map(|item| in_range(key, as_number(key, item, &example)?, &range))
            .collect()
    }

    /// A layer index, or `None` when the key is absent (meaning every layer).
    pub fn layer_or_all(&self, key: &str, n_layer: usize) -> Result<Option<Layer>, FigureError> {
        if self.table.contains_key(key) {
            self.index(key, n_layer, "layers").map(|l| Some(Layer(l)))
        } else {
            Ok(None)
        }
    }
}

fn as_number(key: &str, value: &Value, example: &str) -> Result<f64, FigureError> {
    match value {
        Value::Float(f) => Ok(*f),
        Value::Integer(i) => Ok(*i as f64),
        other => Err(wrong_type(key, "a number", other, example)),
    }
}

fn in_range(key: &str, value: f64, range: &RangeInclusive<f64>) -> Result<f64, FigureError> {
    if range.contains(&value) {
        return Ok(value);
    }
    Err(
        FigureError::at(key, format!("{key} = {value} is out of range")).with_hint(format!(
            "{key} must be between {} and {}",
            range.start(),
            range.end()
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::super::Options;
    use crate::test_traces::options;

    #[test]
    fn numbers_accept_integers_and_check_ranges() {
        let table = options("t = 2\nu = 0.5\nv = \"x\"\nw = 9.5");
        let opts = Options::new("demo", &table, &["t", "u", "v", "w", "none"]).unwrap();
        assert_eq!(opts.float("t", 1.0, 0.0..=5.0), Ok(2.0));
        assert_eq!(opts.float("u", 1.0, 0.0..=5.0), Ok(0.5));
        assert_eq!(opts.float("none", 1.0, 0.0..=5.0), Ok(1.0));
        assert_eq!(opts.optional_float("none", 0.0..=5.0), Ok(None));
        let error = opts.float("v", 1.0, 0.0..=5.0).unwrap_err();
        assert_eq!(error.message, "`v` must be a number, not the string \"x\"");
        let error = opts.float("w", 1.0, 0.0..=5.0).unwrap_err();
        assert_eq!(error.message, "w = 9.5 is out of range");
        assert_eq!(error.hint.as_deref(), Some("w must be between 0 and 5"));
    }

    #[test]
    fn number_lists_check_length_type_and_range() {
        let table = options("a = [0.5, 1, 2.0]\nb = []\nc = [1, \"x\"]\nd = 3\ne = [1, 99]");
        let opts = Options::new("demo", &table, &["a", "b", "c", "d", "e", "f"]).unwrap();
        assert_eq!(opts.floats("a", &[], 0.0..=5.0, 4), Ok(vec![0.5, 1.0, 2.0]));
        assert_eq!(opts.floats("f", &[1.0], 0.0..=5.0, 4), Ok(vec![1.0]));
        assert_eq!(
            opts.floats("a", &[], 0.0..=5.0, 2)
                .unwrap_err()
                .key
                .as_deref(),
            Some("a")
        );
        assert!(opts.floats("b", &[], 0.0..=5.0, 4).is_err());
        assert!(opts.floats("c", &[], 0.0..=5.0, 4).is_err());
        assert!(opts
            .floats("d", &[], 0.0..=5.0, 4)
            .unwrap_err()
            .message
            .contains("array"));
        assert!(opts.floats("e", &[], 0.0..=5.0, 4).is_err());
    }

    #[test]
    fn a_missing_layer_means_every_layer() {
        let table = options("layer = 1\nbad = 5");
        let opts = Options::new("demo", &table, &["layer", "bad", "none"]).unwrap();
        assert_eq!(opts.layer_or_all("layer", 2).unwrap().map(|l| l.0), Some(1));
        assert_eq!(opts.layer_or_all("none", 2), Ok(None));
        assert_eq!(
            opts.layer_or_all("bad", 2).unwrap_err().key.as_deref(),
            Some("bad")
        );
        assert_eq!(opts.optional_integer("layer", 0..=3), Ok(Some(1)));
        assert_eq!(opts.optional_integer("none", 0..=3), Ok(None));
    }
}
