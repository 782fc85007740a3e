//! JSON for an f32 that may be NaN or infinite: a number when finite, else "NaN", "inf" or "-inf".
//!
//! Plain serde_json writes non-finite floats as `null`, which would not read back; a broken
//! checkpoint can produce NaN probabilities, and such a trace must still round-trip.

use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};
use std::fmt;

pub fn serialize<S: Serializer>(value: &f32, serializer: S) -> Result<S::Ok, S::Error> {
    match *value {
        v if v.is_finite() => serializer.serialize_f32(v),
        v if v.is_nan() => serializer.serialize_str("NaN"),
        v if v > 0.0 => serializer.serialize_str("inf"),
        _ => serializer.serialize_str("-inf"),
    }
}

pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f32, D::Error> {
    deserializer.deserialize_any(FloatVisitor)
}

struct FloatVisitor;

impl Visitor<'_> for FloatVisitor {
    type Value = f32;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number, or \"NaN\", \"inf\" or \"-inf\"")
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f32, E> {
        Ok(v as f32)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f32, E> {
        Ok(v as f32)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f32, E> {
        Ok(v as f32)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<f32, E> {
        match v {
            "NaN" => Ok(f32::NAN),
            "inf" => Ok(f32::INFINITY),
            "-inf" => Ok(f32::NEG_INFINITY),
            other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
        }
    }
}

/// A list of such floats.
pub mod vec {
    use serde::ser::SerializeSeq;
    use serde::{Deserialize, Deserializer, Serializer};

    #[derive(serde::Serialize, Deserialize)]
    struct F(#[serde(with = "super")] f32);

    pub fn serialize<S: Serializer>(values: &[f32], serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(values.len()))?;
        for v in values {
            seq.serialize_element(&F(*v))?;
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<f32>, D::Error> {
        Ok(Vec::<F>::deserialize(deserializer)?
            .into_iter()
            .map(|f| f.0)
            .collect())
    }
}

/// A list of lists of such floats (rows of a table).
pub mod rows {
    use serde::ser::SerializeSeq;
    use serde::{Deserialize, Deserializer, Serializer};

    #[derive(serde::Serialize, Deserialize)]
    struct Row(#[serde(with = "super::vec")] Vec<f32>);

    pub fn serialize<S: Serializer>(rows: &[Vec<f32>], serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(rows.len()))?;
        for r in rows {
            seq.serialize_element(&Row(r.clone()))?;
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<Vec<f32>>, D::Error> {
        Ok(Vec::<Row>::deserialize(deserializer)?
            .into_iter()
            .map(|r| r.0)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize)]
    struct Prob(#[serde(with = "super")] f32);

    #[test]
    fn finite_values_are_numbers_and_the_rest_are_named() {
        for (value, json) in [
            (0.25f32, "0.25"),
            (f32::INFINITY, "\"inf\""),
            (f32::NEG_INFINITY, "\"-inf\""),
        ] {
            assert_eq!(serde_json::to_string(&Prob(value)).unwrap(), json);
            assert_eq!(serde_json::from_str::<Prob>(json).unwrap().0, value);
        }
        let nan = serde_json::to_string(&Prob(f32::NAN)).unwrap();
        assert_eq!(nan, "\"NaN\"");
        assert!(serde_json::from_str::<Prob>(&nan).unwrap().0.is_nan());
        assert!(serde_json::from_str::<Prob>("\"big\"").is_err());
    }
}
