//! Staleness: a trace is stale when the model, the weights (where known), the prompt or the
//! trace options differ from what the site asks.

use crate::common::small_trace;
use tracebook_trace::{Expected, Precision, PromptOptions, PromptSpec, Trace, TraceOptions};

const MODEL: &str = "openai-community/gpt2";

fn reason(
    trace: &Trace,
    prompt: &PromptSpec,
    options: &TraceOptions,
    sha: Option<&str>,
) -> Option<String> {
    trace.stale_reason(&Expected {
        model_id: MODEL,
        prompt,
        options,
        weights_sha256: sha,
    })
}

fn fixture() -> (Trace, PromptSpec, TraceOptions) {
    let trace = small_trace(Precision::Compact);
    let prompt = trace.meta.prompt.clone();
    let options = trace.meta.options.clone();
    (trace, prompt, options)
}

#[test]
fn a_trace_matching_everything_is_up_to_date() {
    let (trace, prompt, options) = fixture();
    let sha = trace.meta.model.weights_sha256.to_uppercase();
    assert_eq!(reason(&trace, &prompt, &options, None), None);
    assert_eq!(
        reason(&trace, &prompt, &options, Some(&sha)),
        None,
        "hex case does not matter"
    );
}

#[test]
fn another_model_is_named() {
    let (trace, prompt, options) = fixture();
    let expected = Expected {
        model_id: "./models/tiny",
        prompt: &prompt,
        options: &options,
        weights_sha256: Some("00"),
    };
    assert_eq!(
        trace.stale_reason(&expected).unwrap(),
        "made by model openai-community/gpt2, but this prompt uses tiny (other weights)"
    );
    let unknown = Expected {
        model_id: "distilgpt2",
        weights_sha256: None,
        ..expected
    };
    assert_eq!(
        trace.stale_reason(&unknown).unwrap(),
        "made by model openai-community/gpt2, but this prompt uses distilgpt2"
    );
}

#[test]
fn a_folder_is_the_same_model_however_its_path_is_written_or_wherever_it_moved() {
    let (mut trace, prompt, options) = fixture();
    trace.meta.model.id = "models/tiny".into();
    let sha = trace.meta.model.weights_sha256.clone();
    for (id, sha) in [
        ("./models/tiny/", Some(sha.as_str())),
        ("/home/author/site/models/tiny", Some(sha.as_str())),
        ("../elsewhere/renamed", Some(sha.as_str())),
        ("/srv/ci/models/tiny", None),
    ] {
        let expected = Expected {
            model_id: id,
            prompt: &prompt,
            options: &options,
            weights_sha256: sha,
        };
        assert_eq!(trace.stale_reason(&expected), None, "{id}");
    }
}

#[test]
fn weights_are_compared_only_where_they_are_known() {
    let (trace, prompt, options) = fixture();
    let other = "9".repeat(64);
    assert_eq!(
        reason(&trace, &prompt, &options, Some(&other)).unwrap(),
        "the weights of model openai-community/gpt2 changed \
         (sha256 248dfc391186… in the trace, 999999999999… on this machine)"
    );
    assert_eq!(reason(&trace, &prompt, &options, None), None);
}

#[test]
fn prompt_text_and_options_changes_say_what_changed() {
    let (trace, _, options) = fixture();
    let text = PromptSpec::new("The robots will take");
    assert_eq!(
        reason(&trace, &text, &options, None).unwrap(),
        "the prompt text changed (was \"The robots will bring\", now \"The robots will take\")"
    );
    let generate = PromptSpec {
        text: "The robots will bring".to_string(),
        options: PromptOptions {
            generate: 4,
            seed: Some(3),
            ..PromptOptions::default()
        },
        model: None,
        model_name: None,
    };
    assert_eq!(
        reason(&trace, &generate, &options, None).unwrap(),
        "the prompt options changed (was generate 0, now generate 4, seed 3)"
    );
}

#[test]
fn trace_option_changes_name_both_values_and_all_reasons_are_given() {
    let (trace, prompt, _) = fixture();
    let f32 = TraceOptions {
        precision: Precision::F32,
        top_k: 2,
    };
    assert_eq!(
        reason(&trace, &prompt, &f32, None).unwrap(),
        "made with precision compact, the site asks f32"
    );
    let both = TraceOptions {
        precision: Precision::F32,
        top_k: 20,
    };
    let long = PromptSpec::new("a".repeat(100));
    let all = reason(&trace, &long, &both, None).unwrap();
    let parts: Vec<&str> = all.split("; ").collect();
    assert_eq!(parts.len(), 3, "{all}");
    assert!(
        parts[0].ends_with(&format!("now \"{}…\")", "a".repeat(40))),
        "{all}"
    );
    assert_eq!(parts[1], "made with precision compact, the site asks f32");
    assert_eq!(parts[2], "made with top_k 2, the site asks 20");
}
