//! The MLP and the norms: one block's MLP for one token (`mlp`, `gated-mlp`), and one
//! token's vector before and after a norm (`layernorm`, `rmsnorm`).

pub(super) mod gated_mlp;
pub(super) mod layernorm;
pub(super) mod mlp;
pub(super) mod rmsnorm;
