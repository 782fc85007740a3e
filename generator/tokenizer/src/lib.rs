//! GPT-2's byte-level BPE tokenizer for tracebook: loaded from a `tokenizer.json`, or built
//! in from the r50k_base ranks that tiktoken-rs embeds, with exact byte spans per token.

mod builtin;
mod byte_map;
mod error;
mod merges;
mod source;
mod spans;
mod tokenizer;

pub use error::TokenizerError;
pub use source::TokenizerSource;
pub use tokenizer::Tokenizer;
/// One token of an encoded text: id, text, byte span. Defined by the trace format.
pub use tracebook_trace::Token;
