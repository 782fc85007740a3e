//! The tokenizer for tracebook: any `tokenizer.json` (GPT-2's, Llama 3's and Qwen's
//! byte-level BPE; Llama 2's, Mistral's and Gemma's SentencePiece-style BPE with byte
//! fallback), or GPT-2's built in from the r50k_base ranks that tiktoken-rs embeds, with a
//! byte span per token; [`MarianTokenizer`], Marian's (opus-mt) SentencePiece pair and
//! vocab.json read as transformers' MarianTokenizer reads them; and [`Vocab`], the cheap token
//! text → id lookup for when no text needs encoding.

mod builtin;
mod byte_map;
mod error;
mod marian;
mod merges;
mod pieces;
mod r50k;
mod replay;
mod source;
mod spans;
mod spm;
mod tokenizer;
mod tokenizer_json;
mod train;
mod vocab;

pub use error::TokenizerError;
pub use marian::{MarianSide, MarianTokenizer};
pub use source::TokenizerSource;
pub use tokenizer::{tokenizer_json_in, Tokenizer};
/// One token of an encoded text: id, text, byte span. Defined by the trace format.
pub use tracebook_trace::Token;
pub use train::{train_byte_level_bpe, train_language_model_bpe, END_OF_TEXT};
pub use vocab::Vocab;
