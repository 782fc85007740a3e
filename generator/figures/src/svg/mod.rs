//! Writing SVG: an escaping element builder, fixed number formatting, the accessible
//! responsive root element, its style sheet, and text width estimates for layout.

mod document;
mod element;
mod escape;
mod number;
mod style;
mod text_width;

pub use document::{render_document, Canvas};
pub use element::{AttrValue, Element, Fixed};
pub use number::{number, write_number};
pub use style::CATEGORY_COUNT;
pub use text_width::{text_width, Font};
