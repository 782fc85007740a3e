//! Tokens as traces name them: the prompt's, and candidates for the next one.

use serde::{Deserialize, Serialize};

/// A prompt token: vocabulary id, text, and its byte span `start..end` in the prompt text.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub id: u32,
    pub text: String,
    pub start: usize,
    pub end: usize,
}

/// A possible next token and its probability.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Candidate {
    pub id: u32,
    pub text: String,
    #[serde(with = "crate::float_json")]
    pub prob: f32,
}
