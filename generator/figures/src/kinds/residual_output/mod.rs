//! The residual stream and the output: the stream through the layers (`residual`), the
//! next-token distribution it ends in (`next-token`, `logits`), and what it would predict
//! after each layer (`logit-lens`).

pub(super) mod logit_lens;
pub(super) mod logits;
pub(super) mod next_token;
pub(super) mod residual;
