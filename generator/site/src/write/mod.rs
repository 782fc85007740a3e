//! Stage 4, **write**: the output folder and what checks it.
//!
//! Takes the rendered pages; adds the files that belong to the whole site ([`assemble`]: the
//! search index, theme and static files, sitemap, feed, the offline worker, live mode's
//! model and scripts from [`live`]), checks every internal link and anchor of the result
//! ([`linkcheck`]), and writes it atomically ([`output`]). [`external`] checks the links to
//! other sites (`check --external`).

pub mod assemble;
pub mod external;
pub mod feed;
pub mod files;
pub mod linkcheck;
pub mod live;
pub mod output;
