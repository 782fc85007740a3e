//! The alt text of `figure cross-attention`: what the rows and columns are, then the
//! alignment, each written token with the source token it looks at most.

use super::read::Sides;
use crate::format::weight;
use crate::kinds::self_attention::attention::matrix::Matrix;
use crate::options::Layer;

pub(super) fn describe(matrix: &Matrix, sides: &Sides, layer: Layer, heads: String) -> String {
    let mut out = format!(
        "Cross-attention in layer {}, {heads}: each row is a token the decoder wrote ({} in all) \
         and how it divided its attention, summing to 1, over the {} source tokens it \
         translates.",
        layer.0,
        sides.written.len(),
        sides.source.len()
    );
    let links: Vec<String> = matrix
        .shown()
        .filter_map(|q| {
            let k = matrix.top_key(q)?;
            Some(format!(
                "{:?} at {:?} ({})",
                sides.written[q],
                sides.source[k],
                weight(matrix.at(q, k))
            ))
        })
        .collect();
    if !links.is_empty() {
        out.push_str(&format!(
            " Where the decoder looked most while writing each token: {}.",
            links.join("; ")
        ));
    }
    out
}
