//! Prompts as authors write them in TOML (tracebook.toml and article front matter).

use std::collections::BTreeMap;
use tracebook_trace::{PromptSpec, TraceOptions};

#[derive(Debug, serde::Deserialize)]
struct Front {
    prompts: BTreeMap<String, PromptSpec>,
}

#[test]
fn strings_and_tables_mix_in_one_prompts_table() {
    let front: Front = toml::from_str(
        r#"
        [prompts]
        robots = "The robots will bring"
        animal = { text = "The animal didn't cross the street", generate = 4, temperature = 0.7, top_p = 0.9, seed = 1 }
        "#,
    )
    .unwrap();
    assert_eq!(
        front.prompts["robots"],
        PromptSpec::new("The robots will bring")
    );
    let animal = &front.prompts["animal"];
    assert_eq!(animal.text, "The animal didn't cross the street");
    assert_eq!(animal.options.generate, 4);
    assert_eq!(animal.options.temperature, Some(0.7));
    assert_eq!(animal.options.top_p, Some(0.9));
    assert_eq!(animal.options.seed, Some(1));
    assert_eq!(animal.options.top_k, None);
}

#[test]
fn a_misspelt_option_is_an_error_pointing_at_it() {
    let err = toml::from_str::<Front>("[prompts]\nanimal = { text = \"x\", genrate = 4 }\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `genrate`"), "{err}");
    assert!(err.contains("line 2"), "{err}");
    let err = toml::from_str::<Front>("[prompts]\nanimal = { text = \"x\", temperature = -1.0 }\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("temperature must be a number ≥ 0"), "{err}");
}

#[test]
fn the_trace_section_of_tracebook_toml_has_defaults() {
    let options: TraceOptions = toml::from_str("precision = \"f16\"").unwrap();
    assert_eq!(options.top_k, 20);
    assert_eq!(options.precision.to_string(), "f16");
    assert!(toml::from_str::<TraceOptions>("precision = \"f8\"").is_err());
}
