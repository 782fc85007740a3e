//! Generation and sampling: how the next token is chosen from the distribution
//! (`temperature`, `sampling`), and the loop that writes a continuation token by token
//! (`generation`, `beam`).

pub(super) mod beam;
pub(super) mod generation;
pub(super) mod sampling;
pub(super) mod temperature;
