//! Tokens and embeddings: the prompt as the model's tokens (`tokens`, `bpe`), each token's
//! vector (`embedding`), and how its position comes in (`positional`, `embedding-sum`,
//! `sinusoidal`, `rope`).

pub(super) mod bpe;
pub(super) mod embedding;
pub(super) mod embedding_sum;
pub(super) mod positional;
pub(super) mod rope;
pub(super) mod sinusoidal;
pub(super) mod tokens;

// What `rope` reads from the trace and the panels it draws.
mod rope_model;
mod rope_panels;
