//! GPT-2's byte-level BPE tokenizer for tracebook: loaded from a `tokenizer.json`, or built
//! in from the r50k_base ranks that tiktoken-rs embeds, with exact byte spans per token; and
//! [`Vocab`], the cheap token text → id lookup for when no text needs encoding.

mod builtin;
mod byte_map;
mod error;
mod merges;
mod r50k;
mod replay;
mod source;
mod spans;
mod tokenizer;
mod tokenizer_json;
mod vocab;

pub use error::TokenizerError;
pub use source::TokenizerSource;
pub use tokenizer::Tokenizer;
/// One token of an encoded text: id, text, byte span. Defined by the trace format.
pub use tracebook_trace::Token;
pub use vocab::Vocab;
