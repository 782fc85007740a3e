//! Tests of the options reader against real TOML and the tiny test traces.

use super::values::TokenIndex;
use super::{Head, Layer, Options};
use crate::test_traces::{options, tiny_trace, TestTraces};
use crate::FigureError;

fn read(body: &str, keys: &[&'static str]) -> Result<(), FigureError> {
    Options::new("demo", &options(body), keys).map(|_| ())
}

fn hint(error: &FigureError) -> &str {
    error.hint.as_deref().unwrap_or("")
}

#[test]
fn unknown_keys_are_rejected_with_the_nearest_accepted_key() {
    let error = read("prompt = \"robots\"\nlayr = 3", &["layer", "head"]).unwrap_err();
    assert_eq!(error.key.as_deref(), Some("layr"));
    assert_eq!(error.message, "unknown option `layr` for figure `demo`");
    assert_eq!(
        hint(&error),
        "did you mean `layer`? `demo` accepts: prompt, caption, layer, head"
    );
    let error = read("colour = \"red\"", &["layer"]).unwrap_err();
    assert_eq!(hint(&error), "`demo` accepts: prompt, caption, layer");
    assert!(read("prompt = \"x\"\ncaption = \"c\"\nlayer = 1", &["layer"]).is_ok());
}

#[test]
fn prompt_is_required_and_resolved_with_a_did_you_mean() {
    let traces = TestTraces::with("robots", tiny_trace());
    let table = options("prompt = \"robot\"");
    let error = Options::new("demo", &table, &[])
        .unwrap()
        .prompt(&traces)
        .unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert_eq!(error.message, "unknown prompt \"robot\"");
    assert_eq!(hint(&error), "did you mean `robots`?");

    let table = options("prompt = \"giraffes\"");
    let error = Options::new("demo", &table, &[])
        .unwrap()
        .prompt(&traces)
        .unwrap_err();
    assert_eq!(hint(&error), "known prompts: \"robots\"");

    let empty = toml::Table::new();
    let error = Options::new("demo", &empty, &[])
        .unwrap()
        .prompt(&traces)
        .unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert_eq!(error.message, "figure `demo` needs `prompt`");

    let table = options("prompt = \"robots\"");
    let prompt = Options::new("demo", &table, &[])
        .unwrap()
        .prompt(&traces)
        .unwrap();
    assert_eq!(prompt.name, "robots");
    assert_eq!(prompt.trace.meta.tokens.len(), 4);
}

#[test]
fn no_prompts_at_all_says_where_to_define_them() {
    let traces = TestTraces(Default::default());
    let table = options("prompt = \"robots\"");
    let error = Options::new("demo", &table, &[])
        .unwrap()
        .prompt(&traces)
        .unwrap_err();
    assert!(hint(&error).contains("[prompts]"), "{error:?}");
}

#[test]
fn wrong_types_name_the_key_and_show_the_right_form() {
    let table = options("prompt = 3\nk = \"5\"\nspans = 1\ncaption = true");
    let opts = Options::new("demo", &table, &["k", "spans"]).unwrap();
    let error = opts.string("prompt").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert_eq!(
        error.message,
        "`prompt` must be a string, not the integer 3"
    );
    let error = opts.integer("k", 10, 1..=20).unwrap_err();
    assert_eq!(
        error.message,
        "`k` must be an integer, not the string \"5\""
    );
    assert_eq!(hint(&error), "write it as k = 10");
    let error = opts.bool("spans", false).unwrap_err();
    assert_eq!(
        (error.key.as_deref(), hint(&error)),
        (Some("spans"), "write it as spans = true")
    );
    assert_eq!(opts.caption().unwrap_err().key.as_deref(), Some("caption"));
}

#[test]
fn integers_respect_their_ranges_and_defaults() {
    let table = options("k = 25\nt = 2\nu = 0.5");
    let opts = Options::new("demo", &table, &["k", "t", "u", "v"]).unwrap();
    let error = opts.integer("k", 10, 1..=20).unwrap_err();
    assert_eq!(error.message, "k = 25 is out of range");
    assert_eq!(hint(&error), "k must be between 1 and 20");
    assert_eq!(opts.integer("v", 7, 1..=20), Ok(7));
    assert_eq!(opts.integer("t", 7, 1..=20), Ok(2));
    let error = opts.integer("u", 7, 1..=20).unwrap_err();
    assert_eq!(error.message, "`u` must be an integer, not the number 0.5");
}

#[test]
fn layers_and_heads_are_required_and_below_the_model_size() {
    let table = options("layer = 11\nhead = 12\nbad = -1");
    let opts = Options::new("demo", &table, &["layer", "head", "bad", "none"]).unwrap();
    assert_eq!(opts.layer("layer", 12), Ok(Layer(11)));
    let error = opts.layer("layer", 11).unwrap_err();
    assert_eq!(
        error.message,
        "layer = 11 is out of range: the model has 11 layers"
    );
    assert_eq!(hint(&error), "layers are numbered 0 to 10");
    let error = opts.head("head", 12).unwrap_err();
    assert_eq!(
        (error.key.as_deref(), hint(&error)),
        (Some("head"), "heads are numbered 0 to 11")
    );
    assert_eq!(opts.head("layer", 12), Ok(Head(11)));
    assert!(opts.layer("bad", 12).is_err());
    let error = opts.layer("none", 12).unwrap_err();
    assert_eq!(error.message, "figure `demo` needs `none`");
}

#[test]
fn token_positions_count_from_either_end() {
    let table = options("a = 0\nb = -1\nc = -4\nd = 4\ne = -5");
    let opts = Options::new("demo", &table, &["a", "b", "c", "d", "e", "f"]).unwrap();
    assert_eq!(opts.token("a", -1, 4), Ok(TokenIndex(0)));
    assert_eq!(opts.token("b", 0, 4), Ok(TokenIndex(3)));
    assert_eq!(opts.token("c", 0, 4), Ok(TokenIndex(0)));
    assert_eq!(opts.token("f", -1, 4), Ok(TokenIndex(3)));
    for key in ["d", "e"] {
        let error = opts.token(key, 0, 4).unwrap_err();
        assert_eq!(error.key.as_deref(), Some(key));
        assert!(
            error
                .message
                .ends_with("is out of range: the prompt has 4 tokens"),
            "{error:?}"
        );
        assert_eq!(
            hint(&error),
            "use 0 to 3 from the start, or -1 to -4 from the end"
        );
    }
}

#[test]
fn choices_suggest_the_nearest_valid_one() {
    let table = options("scale = \"ful\"\nother = \"zzz\"");
    let opts = Options::new("demo", &table, &["scale", "other", "absent"]).unwrap();
    let error = opts.choice("scale", "top", &["top", "full"]).unwrap_err();
    assert_eq!(error.message, "scale = \"ful\" is not a valid choice");
    assert_eq!(
        hint(&error),
        "did you mean `full`? scale is one of \"top\", \"full\""
    );
    let error = opts.choice("other", "top", &["top", "full"]).unwrap_err();
    assert_eq!(hint(&error), "other is one of \"top\", \"full\"");
    assert_eq!(opts.choice("absent", "top", &["top", "full"]), Ok("top"));
}
