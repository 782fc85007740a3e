//! The products `figure shapes` draws, as data: dimensions with their symbols and sizes, the
//! arrays of each product, the steps of a layer and the model's sizes. `shapes.rs` builds
//! GPT-2's steps and draws any; `shapes_decoder.rs` builds the Llama family's.

/// A dimension: its symbol and its size in this model and prompt.
#[derive(Debug, Clone, Copy)]
pub(super) struct Dim {
    pub symbol: &'static str,
    pub size: usize,
}

/// One array of a product: its rows and columns, how many copies (heads) it stacks, and
/// the trace tensor it is (if any).
#[derive(Debug, Clone)]
pub(super) struct Array {
    pub rows: Dim,
    pub cols: Dim,
    pub heads: Option<Dim>,
    pub name: String,
    /// What it is called under it, when not the reader's words for `name` (`short_name`).
    pub label: Option<&'static str>,
}

/// One step of the layer: a title and `operands`, joined by `ops` ("×", "·", "→", "+"),
/// with the result after "=" (or after the last op).
pub(super) struct Step {
    pub title: String,
    pub terms: Vec<Array>,
    pub ops: Vec<&'static str>,
}

/// The sizes of the model and prompt, by symbol. For a Llama-family model `d3` is the queries'
/// width H·dh and `d4` the gated MLP's width.
pub(super) struct Sizes {
    pub t: Dim,
    pub d: Dim,
    pub d3: Dim,
    pub d4: Dim,
    pub h: Dim,
    pub dh: Dim,
    /// Key/value heads (H unless attention is grouped).
    pub kv: Dim,
}

pub(super) fn array(rows: Dim, cols: Dim, name: impl Into<String>) -> Array {
    Array {
        rows,
        cols,
        heads: None,
        name: name.into(),
        label: None,
    }
}

pub(super) fn per_head(heads: Dim, rows: Dim, cols: Dim, name: impl Into<String>) -> Array {
    Array {
        heads: Some(heads),
        ..array(rows, cols, name)
    }
}

impl Array {
    /// The same array called `label` under it.
    pub(super) fn called(self, label: &'static str) -> Array {
        Array {
            label: Some(label),
            ..self
        }
    }
}
