//! Native verdicts for tests/browser/live_claims.test.mjs: a page's claims asked of readers'
//! sentences by the live session, natively, over a built site's browser model (its `live/`
//! folder), exactly as the session in the reader's browser asks them. The browser test
//! compares the marks the page shows with these.
//!
//! `claims_reference LIVE_DIR [MANIFEST] < request.json` (MANIFEST relative to LIVE_DIR, as
//! a page's live data names a model other than the site's; default `manifest.json`), the request
//! `{"prompt": NAME, "options": {prompt options}, "sentences": [...], "claims": [...]}`;
//! prints, per sentence, the list of `{"live", "detail"}` of the claims in order.

use std::io::Read;
use std::path::Path;
use tracebook_live::{ModelBytes, Session};
use tracebook_trace::{PromptOptions, PromptSpec, TraceOptions};

#[derive(serde::Deserialize)]
struct Request {
    prompt: String,
    #[serde(default)]
    options: PromptOptions,
    sentences: Vec<String>,
    claims: Vec<String>,
}

fn main() {
    let usage = "usage: claims_reference LIVE_DIR [MANIFEST] < request.json";
    let dir = std::env::args().nth(1).expect(usage);
    let dir = Path::new(&dir);
    let manifest = std::env::args()
        .nth(2)
        .unwrap_or_else(|| "manifest.json".into());
    let mut request = String::new();
    std::io::stdin().read_to_string(&mut request).unwrap();
    let request: Request = serde_json::from_str(&request).expect("a request");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(manifest)).unwrap()).unwrap();
    let file = |key: &str| dir.join(manifest[key].as_str().unwrap());
    let config = std::fs::read_to_string(file("config")).unwrap();
    let tokenizer = std::fs::read_to_string(file("tokenizer")).unwrap();
    let mut weights = Vec::new();
    for part in manifest["weights"]["parts"].as_array().unwrap() {
        weights.extend(std::fs::read(dir.join(part["file"].as_str().unwrap())).unwrap());
    }
    let options: TraceOptions = serde_json::from_value(manifest["trace_options"].clone()).unwrap();
    let bytes = ModelBytes {
        id: manifest["model_id"].as_str().unwrap(),
        config_json: &config,
        weights: &weights,
        tokenizer_json: Some(&tokenizer),
        training: None,
    };
    let mut session = Session::from_bytes(&bytes, options).unwrap();
    let verdicts: Vec<Vec<tracebook_live::ClaimCheck>> = (request.sentences.iter())
        .map(|text| {
            let prompt = PromptSpec {
                text: text.clone(),
                options: request.options.clone(),
                model: None,
                model_name: None,
            };
            session.trace(&request.prompt, &prompt).unwrap();
            session.check_claims(&request.prompt, &request.claims)
        })
        .collect();
    println!("{}", serde_json::to_string(&verdicts).unwrap());
}
