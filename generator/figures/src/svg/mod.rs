//! Writing SVG: an escaping element builder, fixed number formatting, the accessible
//! responsive root element, its style sheet, and text width estimates for layout.

mod document;
mod element;
mod escape;
mod number;
mod palette;
mod style;
mod text_width;

pub use document::{render_document, Canvas, FIGURE_WIDTH, MIN_TEXT_SIZE};
pub use element::Element;
pub use escape::unescape_html;
pub use number::number;
pub use palette::{Css, Ramp};
pub use style::{ACCENT_DARK, ACCENT_LIGHT, CATEGORY_COUNT};
pub use text_width::{text_width, wide_width, wrap, Font, DESCENT, WIDE_FONT};
