//! Attention: each token's query, key and value (`qkv`, `heads`), the weights a head makes
//! of them (`attention`, `attention-steps`, `attention-grid`), the heads joined into one
//! vector again (`head-mix`), and query heads that share key/value heads (`gqa`).
//! `attention/` also draws the panels of `cross-attention`.

pub(super) mod attention;
pub(super) mod attention_grid;
pub(super) mod attention_steps;
pub(super) mod gqa;
pub(super) mod head_mix;
pub(super) mod heads;
pub(super) mod qkv;
