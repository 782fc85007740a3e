//! Claims `{{ claim PROMPT EXPRESSION }}`: the expression language's lexer, parser and
//! evaluator on one of the example traces (every function, indexing, quantifiers).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    common::FIXTURE.with(|site| site.claim(common::text(data)));
});
