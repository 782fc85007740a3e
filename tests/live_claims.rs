//! [live-claims] item 2, natively: the live session (generator/live, the code the browser
//! runs) asks the example's claims of a text it traced. On the author's own text, with the
//! site's model and `[trace]` options, every claim that carries over holds, as the build
//! found it, and every other one is the author's; on readers' sentences each is decided or
//! set aside as the author's, never an error, and the ones that carry over as written are
//! decided on any sentence long enough for them.

use std::collections::BTreeMap;
use std::path::Path;
use tracebook_live::{ModelBytes, Session};
use tracebook_trace::{Precision, PromptSpec, Trace, TraceOptions};

const READERS: [&str; 3] = [
    "My sister bought a new bike and rode it to the park",
    "The teacher put the book on the table because it was heavy",
    "Hello",
];

#[path = "support/claims_list.rs"]
mod claims_list;

/// Every claim of the example: (prompt, expression, carries).
fn claims() -> Vec<(String, String, String)> {
    let list = claims_list::example();
    let text = |v: &serde_json::Value| v.as_str().unwrap().to_string();
    (list["claims"].as_array().unwrap().iter())
        .map(|c| (text(&c["prompt"]), text(&c["claim"]), text(&c["carries"])))
        .collect()
}

/// The example site's model, as its tracebook.toml names it (`[model] id`, a folder here).
fn site_model(root: &Path) -> String {
    let config: toml::Table = std::fs::read_to_string(root.join("tracebook.toml"))
        .unwrap()
        .parse()
        .unwrap();
    config["model"]["id"].as_str().unwrap().to_string()
}

/// A session over the site's model folder, tracing as the site's `[trace]` says.
fn session(id: &str, model: &Path) -> Session {
    let read = |name: &str| std::fs::read(model.join(name)).unwrap();
    let text = |name: &str| String::from_utf8(read(name)).unwrap();
    let weights = read("model.safetensors");
    let (config, tokenizer) = (text("config.json"), text("tokenizer.json"));
    let bytes = ModelBytes {
        id,
        config_json: &config,
        weights: &weights,
        tokenizer_json: Some(&tokenizer),
        training: None,
    };
    let options = TraceOptions {
        precision: Precision::Compact,
        top_k: 20,
    };
    Session::from_bytes(&bytes, options).unwrap()
}

#[test]
fn the_session_asks_the_pages_claims_of_a_text_as_the_build_asked_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let id = site_model(root);
    let model = root.join(&id);
    let mut by_prompt: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (prompt, source, carries) in claims() {
        by_prompt.entry(prompt).or_default().push((source, carries));
    }
    let mut session = session(&id, &model);
    let (mut asked, mut decided_for_readers) = (0, 0);
    for (prompt, claims) in &by_prompt {
        let Ok(trace) = Trace::read(&root.join("traces").join(format!("{prompt}.json"))) else {
            continue;
        };
        if trace.meta.model.id != id {
            continue;
        }
        let sources: Vec<String> = claims.iter().map(|(s, _)| s.clone()).collect();

        // The author's own text: the build's verdicts (every claim of the example holds).
        let spec: PromptSpec = trace.meta.prompt.clone();
        session.trace(prompt, &spec).unwrap();
        let checks = session.check_claims(prompt, &sources);
        for ((source, carries), check) in claims.iter().zip(&checks) {
            let expected = if carries == "author" {
                "author"
            } else {
                "holds"
            };
            assert_eq!(
                check.live, expected,
                "{prompt}: `{source}` on the author's text: {}",
                check.detail
            );
            asked += 1;
        }

        // Readers' sentences: decided, or the author's with the reason; never an error.
        for text in READERS {
            // As the page hands a reader's text to the session: patched into nothing.
            let mut reader = PromptSpec {
                text: text.to_string(),
                ..spec.clone()
            };
            reader.options.patch = None;
            session.trace(prompt, &reader).unwrap();
            let checks = session.check_claims(prompt, &sources);
            assert_eq!(checks.len(), sources.len());
            for ((source, carries), check) in claims.iter().zip(&checks) {
                assert!(["holds", "fails", "author"].contains(&check.live));
                assert!(!check.detail.is_empty(), "`{source}`: a verdict says why");
                if carries == "author" {
                    assert_eq!(check.live, "author", "`{source}`");
                }
                if carries == "always" && check.live != "author" {
                    decided_for_readers += 1;
                }
                // Carried as written, only a text too short for it sets it aside.
                if carries == "always" && text != "Hello" {
                    assert_ne!(
                        check.live, "author",
                        "`{source}` on {text:?}: {}",
                        check.detail
                    );
                }
            }
        }
    }
    eprintln!("{asked} claims asked of the author's texts; {decided_for_readers} decided on readers' sentences");
    assert!(
        asked > 50 && decided_for_readers > 20,
        "{asked}, {decided_for_readers}"
    );
}
