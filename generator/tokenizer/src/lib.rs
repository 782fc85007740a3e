//! GPT-2's byte-level BPE tokenizer for tracebook: loaded from a `tokenizer.json`, or built
//! in from the r50k_base ranks that tiktoken-rs embeds, with exact byte spans per token.

mod builtin;
mod byte_map;
mod error;
mod merges;
mod source;
mod spans;
mod token;
mod tokenizer;

pub use error::TokenizerError;
pub use source::TokenizerSource;
pub use token::Piece;
pub use tokenizer::Tokenizer;
