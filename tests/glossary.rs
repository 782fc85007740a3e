//! The example site's glossary defines every term an article defines: a term set in bold in an
//! article (`**Top-k**`: one to three words of letters, digits, hyphens and parentheses; bold
//! with other punctuation is emphasis, not a term) must be a term of content/glossary.md (a definition list's term, whose parts
//! separated by commas or in parentheses count alone), compared without case.

use std::collections::BTreeSet;
use std::path::Path;

fn content() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("content")
}

/// The glossary's terms, lowercased: "Temperature, top-k, top-p" gives all three, "BPE
/// (byte-pair encoding)" both names.
fn glossary_terms(text: &str) -> BTreeSet<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut terms = BTreeSet::new();
    for pair in lines.windows(2) {
        if pair[1].starts_with(": ") && !pair[0].trim().is_empty() {
            let term = pair[0].trim().to_lowercase();
            terms.insert(term.clone());
            for part in term.split([',', '(', ')']) {
                let part = part.trim();
                if !part.is_empty() {
                    terms.insert(part.to_string());
                }
            }
        }
    }
    terms
}

/// The bold phrases of `text` that read as a defined term.
fn bold_terms(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (i, piece) in text.split("**").enumerate() {
        let is_term = i % 2 == 1
            && (1..=3).contains(&piece.split_whitespace().count())
            && piece
                .chars()
                .all(|c| c.is_alphanumeric() || " -/()".contains(c));
        if is_term {
            found.push(piece.trim().to_string());
        }
    }
    found
}

#[test]
fn every_term_an_article_defines_in_bold_is_in_the_glossary() {
    let glossary = std::fs::read_to_string(content().join("glossary.md")).unwrap();
    let terms = glossary_terms(&glossary);
    assert!(terms.len() >= 25, "{terms:?}");
    let mut missing = Vec::new();
    for entry in walkdir::WalkDir::new(content()).into_iter().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "md") || path.ends_with("glossary.md") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for term in bold_terms(&text) {
            if !terms.contains(&term.to_lowercase()) {
                missing.push(format!("{}: **{term}**", path.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "terms defined in bold but not in content/glossary.md:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_glossary_defines_the_terms_the_series_uses() {
    let glossary = std::fs::read_to_string(content().join("glossary.md")).unwrap();
    let terms = glossary_terms(&glossary);
    for term in [
        "bpe",
        "gelu",
        "w_o",
        "perplexity",
        "beam search",
        "cross-attention",
        "rope",
        "rmsnorm",
        "gqa",
        "swiglu",
        "kv cache",
        "ablation",
        "activation patching",
        "adamw",
    ] {
        assert!(
            terms
                .iter()
                .any(|t| t.replace(['$', '\\'], "").contains(term)),
            "the glossary has no entry for {term}"
        );
    }
}

#[test]
fn terms_are_read_from_definition_lists_and_bold_text() {
    let terms = glossary_terms(
        "Temperature, top-k, top-p\n: The settings.\n\nBPE (byte-pair encoding)\n: Merges.\n",
    );
    assert!(
        terms.contains("top-k") && terms.contains("byte-pair encoding") && terms.contains("bpe")
    );
    assert_eq!(
        bold_terms("A **Top-p** sampler. **Still no sense.** and **not OpenAI's GPT-2**."),
        vec!["Top-p".to_string()]
    );
}
