//! The value types figure options are declared with. Each deserializes itself and checks
//! what it can know alone (type, fixed range); the keys whose range depends on the trace
//! (a layer, a head, a token position, a number of dimensions or candidates) are resolved
//! against it by [`Block`](super::Block) or by their own `within` method, under the key
//! name their type carries ([`Keyed::KEY`]).

use super::serde_errors::Problem;
use crate::error::FigureError;
use serde::de::{Deserialize, Deserializer, Error};

/// An option type that is always written under one key.
pub trait Keyed {
    const KEY: &'static str;
    /// The integer as written.
    fn value(&self) -> i64;
}

/// Declares an integer option type written under one key, with its default.
macro_rules! keyed_integer {
    ($(#[$doc:meta])* $name:ident = $key:literal, default $default:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $name(pub i64);

        impl Keyed for $name {
            const KEY: &'static str = $key;
            fn value(&self) -> i64 {
                self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name($default)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                i64::deserialize(d).map($name)
            }
        }
    };
}

keyed_integer!(
    /// `layer = N`: a block, `0..n_layer` of the traced model.
    LayerKey = "layer", default 0
);
keyed_integer!(
    /// `head = N`: an attention head, `0..n_head`.
    HeadKey = "head", default 0
);
keyed_integer!(
    /// `token = N`: a token of the prompt, negative counting from the end (default -1,
    /// the last).
    TokenKey = "token", default -1
);
keyed_integer!(
    /// `position = N`: the position whose next token is drawn, like `token` (default -1).
    PositionKey = "position", default -1
);
keyed_integer!(
    /// `dims = N`: how many dimensions of a vector to show, at most the vector's width
    /// (and a kind's own cap); each kind has its default.
    Dims = "dims", default 0
);
keyed_integer!(
    /// `tokens = N`: how many tokens to show where the bound depends on the figure.
    Tokens = "tokens", default 0
);
keyed_integer!(
    /// `top_k = N`: a sampling rule, keep the N likeliest tokens (at most the vocabulary).
    TopKRule = "top_k", default 0
);
keyed_integer!(
    /// `k = N`: how many next-token candidates to show, at most the trace's top-k.
    TopK = "k", default 0
);

/// A `dims`- or `k`-like count within `1..=most` (a bound that comes from the trace), or
/// `default` (clamped to `most`) when the option is absent.
pub fn capped<K: Keyed>(
    option: Option<K>,
    default: usize,
    most: usize,
) -> Result<usize, FigureError> {
    let most = most.max(1);
    let Some(option) = option else {
        return Ok(default.clamp(1, most));
    };
    let value = option.value();
    if (1..=most as i64).contains(&value) {
        return Ok(value as usize);
    }
    let key = K::KEY;
    Err(
        FigureError::at(key, format!("{key} = {value} is out of range"))
            .with_hint(format!("{key} must be between 1 and {most}")),
    )
}

/// An integer with a fixed range and default: `steps: Int<1, 32, 12>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Int<const LO: i64, const HI: i64, const DEFAULT: i64>(i64);

impl<const LO: i64, const HI: i64, const DEFAULT: i64> Int<LO, HI, DEFAULT> {
    /// The value, which is within `LO..=HI` and so not negative for the ranges figures use.
    pub fn get(self) -> usize {
        self.0.max(0) as usize
    }
}

impl<const LO: i64, const HI: i64, const DEFAULT: i64> Default for Int<LO, HI, DEFAULT> {
    fn default() -> Self {
        Int(DEFAULT)
    }
}

impl<'de, const LO: i64, const HI: i64, const DEFAULT: i64> Deserialize<'de>
    for Int<LO, HI, DEFAULT>
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = i64::deserialize(d)?;
        if (LO..=HI).contains(&value) {
            Ok(Int(value))
        } else {
            Err(D::Error::custom(Problem::out_of_range(value, LO, HI)))
        }
    }
}

/// A sampling temperature, `0..=10` (0 is greedy).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Temperature(pub f64);

/// A top-p threshold, `0 < p ≤ 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probability(pub f64);

/// One to four temperatures, default `[0.5, 1.0, 2.0]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Temperatures(pub Vec<f64>);

const MAX_TEMPERATURE: f64 = 10.0;
const MOST_TEMPERATURES: usize = 4;

impl<'de> Deserialize<'de> for Temperature {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = f64::deserialize(d)?;
        if (0.0..=MAX_TEMPERATURE).contains(&value) {
            Ok(Temperature(value))
        } else {
            Err(D::Error::custom(Problem::out_of_range(
                value,
                0,
                MAX_TEMPERATURE,
            )))
        }
    }
}

impl<'de> Deserialize<'de> for Probability {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = f64::deserialize(d)?;
        if value > 0.0 && value <= 1.0 {
            Ok(Probability(value))
        } else {
            Err(D::Error::custom(Problem::new(
                format!("{{key}} = {value} is out of range"),
                "{key} must be above 0 and at most 1",
            )))
        }
    }
}

impl Default for Temperatures {
    fn default() -> Self {
        Temperatures(vec![0.5, 1.0, 2.0])
    }
}

impl<'de> Deserialize<'de> for Temperatures {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let values = Vec::<Temperature>::deserialize(d)?;
        if values.is_empty() || values.len() > MOST_TEMPERATURES {
            return Err(D::Error::custom(Problem::new(
                format!("`{{key}}` has {} values", values.len()),
                format!("give 1 to {MOST_TEMPERATURES} values, e.g. {{key}} = [0.5, 1.0, 2.0]"),
            )));
        }
        Ok(Temperatures(values.into_iter().map(|t| t.0).collect()))
    }
}
