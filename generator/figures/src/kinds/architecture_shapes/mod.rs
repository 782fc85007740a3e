//! Architecture and shapes: the whole model as a block diagram with its real sizes
//! (`architecture`, for GPT-2, the Llama family and encoder-decoders), and one layer's
//! matrix products as shapes (`shapes`).

pub(super) mod architecture;
pub(super) mod shapes;

// `architecture` for the Llama family and for encoder-decoders, and the parts every family's
// diagram shares; the products `shapes` draws, and the Llama family's.
mod architecture_decoder;
mod architecture_parts;
mod architecture_seq2seq;
mod shapes_decoder;
mod shapes_model;
