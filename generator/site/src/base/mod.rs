//! The vocabulary every stage shares, reading no file of the site and no other stage:
//! diagnostics and the source positions they point at, HTML escaping, output paths, the
//! error an article body's parsers give before it is placed in its file, and the scan of
//! generated HTML's attributes, and the records the site keeps under `.tracebook/`.

pub mod cache_file;
pub mod diagnostic;
pub mod escape;
pub mod html_scan;
pub mod paths;
pub mod source;

/// The error an article body's parsers give before it is placed in its file: the claims
/// crate's, which claims share with every other parser of a body.
pub mod problem {
    pub use tracebook_claims::Problem;
}
