//! Encoder-decoders (Marian, BART): what only they have, the decoder's attention to the
//! source (`cross-attention`). The kinds that draw both families (the attention kinds'
//! `stack`, `architecture`, `generation`, `beam`) stay in their own folders.

pub(super) mod cross_attention;
