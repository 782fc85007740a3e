//! The native token ids of strings, for checks of other tokenizers against this one (the
//! browser test of `[live]` compares the WebAssembly module's ids with these).
//!
//!     tokenize_reference TOKENIZER_JSON < strings.json > ids.json
//!
//! Reads a JSON array of strings on stdin and prints a JSON array of arrays of ids, each string
//! read as ordinary text (special tokens spelled out), as prompts are by default.

use std::io::Read;
use std::path::PathBuf;
use tracebook_tokenizer::Tokenizer;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: tokenize_reference TOKENIZER_JSON < strings.json")?,
    );
    let tokenizer = Tokenizer::from_json(&std::fs::read_to_string(&path)?, &path)?;
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input)?;
    let strings: Vec<String> = serde_json::from_str(&input)?;
    let ids = strings
        .iter()
        .map(|s| {
            Ok(tokenizer
                .encode(s)?
                .iter()
                .map(|t| t.id)
                .collect::<Vec<u32>>())
        })
        .collect::<Result<Vec<_>, Box<dyn std::error::Error>>>()?;
    println!("{}", serde_json::to_string(&ids)?);
    Ok(())
}
