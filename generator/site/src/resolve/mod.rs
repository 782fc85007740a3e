//! Stage 2, **resolve**: what reads the traces or the whole site to give a value.
//!
//! Takes what **load** gave; gives values and diagnostics, never HTML pages: the prompts an
//! article may use and their traces ([`scope`]), every cross-reference id of the site,
//! collected before any page renders ([`refs`]), inline values and citations evaluated to
//! their text ([`inline`]), claims checked against the traces (the `tracebook_claims` crate), and
//! what the build does with their verdicts ([`claim_report`]). **render** calls these for
//! each page it renders.

pub mod claim_report;
pub mod inline;
pub mod printed;
pub mod refs;
pub mod scope;
