//! Tests of the options reader against real TOML and the tiny test traces (2 layers,
//! 2 heads, 4 tokens), through a demo kind that declares one field of every type.

use super::values::TokenIndex;
use super::{capped, choice, Block, Dims, Head, HeadKey, Int, Layer, LayerKey, Temperatures};
use super::{Probability, Temperature, TokenKey};
use crate::testing::test_traces::{options, tiny_trace, TestTraces};
use crate::FigureError;
use serde::Deserialize;

choice! {
    /// A demo choice.
    enum Scale { Top = "top", Full = "full" } default Top
}

/// A demo kind's options.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Demo {
    layer: Option<LayerKey>,
    head: Option<HeadKey>,
    #[serde(default)]
    token: TokenKey,
    #[serde(default)]
    steps: Int<1, 20, 10>,
    #[serde(default)]
    spans: bool,
    #[serde(default)]
    scale: Scale,
    dims: Option<Dims>,
    temperature: Option<Temperature>,
    top_p: Option<Probability>,
    #[serde(default)]
    temperatures: Temperatures,
}

fn read(body: &str) -> Result<Block<'static, Demo>, FigureError> {
    let traces: &'static TestTraces = Box::leak(Box::new(TestTraces::with("robots", tiny_trace())));
    Block::<Demo>::read("demo", &options(body), traces)
}

fn error(body: &str) -> FigureError {
    read(&format!("prompt = \"robots\"\n{body}")).unwrap_err()
}

fn hint(error: &FigureError) -> &str {
    error.hint.as_deref().unwrap_or("")
}

#[test]
fn the_accepted_keys_come_from_the_struct() {
    assert_eq!(
        super::keys::<Demo>(),
        [
            "prompt",
            "caption",
            "layer",
            "head",
            "token",
            "steps",
            "spans",
            "scale",
            "dims",
            "temperature",
            "top_p",
            "temperatures"
        ]
    );
}

#[test]
fn unknown_keys_are_rejected_with_the_nearest_accepted_key() {
    let error = self::error("layr = 3");
    assert_eq!(error.key.as_deref(), Some("layr"));
    assert_eq!(error.message, "unknown option `layr` for figure `demo`");
    assert!(
        hint(&error)
            .starts_with("did you mean `layer`? `demo` accepts: prompt, caption, layer, head"),
        "{error:?}"
    );
    let error = self::error("colour = \"red\"");
    assert!(hint(&error).starts_with("`demo` accepts: prompt, caption, layer"));
    assert!(read("prompt = \"robots\"\ncaption = \"c\"\nlayer = 1").is_ok());
}

#[test]
fn prompt_is_required_and_resolved_with_a_did_you_mean() {
    let error = read("prompt = \"robot\"").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert_eq!(error.message, "unknown prompt \"robot\"");
    assert_eq!(hint(&error), "did you mean `robots`?");
    let error = read("prompt = \"giraffes\"").unwrap_err();
    assert_eq!(hint(&error), "known prompts: \"robots\"");
    let error = read("").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert_eq!(error.message, "figure `demo` needs `prompt`");
    let block = read("prompt = \"robots\"\ncaption = \"Robots.\"").unwrap();
    assert_eq!(block.prompt.name, "robots");
    assert_eq!(block.caption.as_deref(), Some("Robots."));
    assert_eq!(block.prompt.trace.meta.tokens.len(), 4);
}

#[test]
fn no_prompts_at_all_says_where_to_define_them() {
    let traces = TestTraces(Default::default());
    let error = Block::<Demo>::read("demo", &options("prompt = \"robots\""), &traces).unwrap_err();
    assert!(hint(&error).contains("[prompts]"), "{error:?}");
}

#[test]
fn defaults_fill_what_the_author_left_out() {
    let block = read("prompt = \"robots\"").unwrap();
    let demo = &block.options;
    assert_eq!(demo.steps.get(), 10);
    assert!(!demo.spans);
    assert_eq!(demo.scale, Scale::Top);
    assert_eq!(demo.token, TokenKey(-1));
    assert_eq!(demo.temperatures, Temperatures(vec![0.5, 1.0, 2.0]));
    assert_eq!(
        (demo.layer, demo.dims, demo.temperature, demo.top_p),
        (None, None, None, None)
    );
    let block = read("prompt = \"robots\"\nsteps = 3\nspans = true\nscale = \"full\"").unwrap();
    assert_eq!(block.options.steps.get(), 3);
    assert!(block.options.spans);
    assert_eq!(block.options.scale, Scale::Full);
}

#[test]
fn wrong_types_name_the_key_and_show_the_right_form() {
    let error = read("prompt = 3").unwrap_err();
    assert_eq!(error.key.as_deref(), Some("prompt"));
    assert_eq!(
        error.message,
        "`prompt` must be a string, not the integer 3"
    );
    let error = self::error("steps = \"5\"");
    assert_eq!(error.key.as_deref(), Some("steps"));
    assert_eq!(
        error.message,
        "`steps` must be an integer, not the string \"5\""
    );
    assert_eq!(hint(&error), "write it as steps = 0");
    let error = self::error("spans = 1");
    assert_eq!(
        (error.key.as_deref(), error.message.as_str(), hint(&error)),
        (
            Some("spans"),
            "`spans` must be true or false, not the integer 1",
            "write it as spans = true"
        )
    );
    let error = self::error("caption = true");
    assert_eq!(error.key.as_deref(), Some("caption"));
    let error = self::error("steps = 0.5");
    assert_eq!(
        error.message,
        "`steps` must be an integer, not the number 0.5"
    );
    let error = self::error("temperature = \"hot\"");
    assert_eq!(
        error.message,
        "`temperature` must be a number, not the string \"hot\""
    );
}

#[test]
fn fixed_ranges_are_checked_by_the_field_types() {
    let error = self::error("steps = 25");
    assert_eq!(error.key.as_deref(), Some("steps"));
    assert_eq!(error.message, "steps = 25 is out of range");
    assert_eq!(hint(&error), "steps must be between 1 and 20");
    let error = self::error("temperature = 11");
    assert_eq!(error.message, "temperature = 11 is out of range");
    let error = self::error("top_p = 0");
    assert_eq!(hint(&error), "top_p must be above 0 and at most 1");
    let error = self::error("temperatures = []");
    assert_eq!(
        (error.key.as_deref(), error.message.as_str()),
        (Some("temperatures"), "`temperatures` has 0 values")
    );
    let error = self::error("temperatures = [1, 99]");
    assert_eq!(error.key.as_deref(), Some("temperatures"));
    assert_eq!(error.message, "temperatures = 99 is out of range");
    let block = read("prompt = \"robots\"\ntemperatures = [0, 1.5]\ntop_p = 0.5").unwrap();
    assert_eq!(block.options.temperatures.0, vec![0.0, 1.5]);
    assert_eq!(block.options.top_p, Some(Probability(0.5)));
}

#[test]
fn layers_and_heads_are_required_and_below_the_model_size() {
    let block = read("prompt = \"robots\"\nlayer = 1\nhead = 2").unwrap();
    assert_eq!(block.layer("demo", block.options.layer), Ok(Layer(1)));
    let error = block.head("demo", block.options.head).unwrap_err();
    assert_eq!(
        error.message,
        "head = 2 is out of range: the model has 2 heads"
    );
    assert_eq!(
        (error.key.as_deref(), hint(&error)),
        (Some("head"), "heads are numbered 0 to 1")
    );
    assert_eq!(block.head("demo", Some(HeadKey(1))), Ok(Head(1)));
    let error = block.layer("demo", Some(LayerKey(-1))).unwrap_err();
    assert_eq!(hint(&error), "layers are numbered 0 to 1");
    let error = block.layer("demo", None).unwrap_err();
    assert_eq!(error.message, "figure `demo` needs `layer`");
    assert_eq!(hint(&error), "add a line layer = 0 (0 to 1)");
    assert_eq!(block.layer_or_all(None), Ok(None));
}

#[test]
fn token_positions_count_from_either_end() {
    let block = read("prompt = \"robots\"").unwrap();
    assert_eq!(block.token(TokenKey(0)), Ok(TokenIndex(0)));
    assert_eq!(block.token(TokenKey(-1)), Ok(TokenIndex(3)));
    assert_eq!(block.token(TokenKey(-4)), Ok(TokenIndex(0)));
    for value in [4, -5] {
        let error = block.token(TokenKey(value)).unwrap_err();
        assert_eq!(error.key.as_deref(), Some("token"));
        assert_eq!(
            error.message,
            format!("token = {value} is out of range: the prompt has 4 tokens")
        );
        assert_eq!(
            hint(&error),
            "use 0 to 3 from the start, or -1 to -4 from the end"
        );
    }
}

#[test]
fn counts_capped_by_the_trace_name_their_key() {
    assert_eq!(capped::<Dims>(None, 16, 8), Ok(8));
    assert_eq!(capped(Some(Dims(3)), 16, 8), Ok(3));
    let error = capped(Some(Dims(9)), 16, 8).unwrap_err();
    assert_eq!(error.key.as_deref(), Some("dims"));
    assert_eq!(error.message, "dims = 9 is out of range");
    assert_eq!(hint(&error), "dims must be between 1 and 8");
}

#[test]
fn choices_suggest_the_nearest_valid_one() {
    let error = self::error("scale = \"ful\"");
    assert_eq!(error.key.as_deref(), Some("scale"));
    assert_eq!(error.message, "scale = \"ful\" is not a valid choice");
    assert_eq!(
        hint(&error),
        "did you mean `full`? scale is one of \"top\", \"full\""
    );
    let error = self::error("scale = \"zzz\"");
    assert_eq!(hint(&error), "scale is one of \"top\", \"full\"");
    assert_eq!(Scale::WORDS, ["top", "full"]);
    assert_eq!(Scale::Full.to_string(), "full");
}
