//! How trace JSON is laid out: indented down to three levels, then inline.
//!
//! One tensor entry takes five short lines, one token or generation step one line, so a trace
//! reads well in a diff; the base64 strings stay on lines of their own.

use serde::Serialize;
use serde_json::ser::Formatter;
use std::io::{self, Write};

/// Objects and arrays nested deeper than this are written on one line.
const INDENTED_LEVELS: usize = 3;

/// Serialize `value` in the trace layout.
pub(crate) fn to_string<T: Serialize>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::new();
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut out, TraceFormatter::default());
    value.serialize(&mut serializer)?;
    Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
}

#[derive(Default)]
struct TraceFormatter {
    depth: usize,
    has_value: bool,
}

impl TraceFormatter {
    fn indented(&self) -> bool {
        self.depth <= INDENTED_LEVELS
    }

    fn begin_container<W: ?Sized + Write>(&mut self, w: &mut W, open: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(open)
    }

    fn end_container<W: ?Sized + Write>(&mut self, w: &mut W, close: &[u8]) -> io::Result<()> {
        let indented = self.indented();
        self.depth -= 1;
        if indented && self.has_value {
            newline(w, self.depth)?;
        }
        w.write_all(close)
    }

    fn begin_item<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        if self.indented() {
            newline(w, self.depth)
        } else if !first {
            w.write_all(b" ")
        } else {
            Ok(())
        }
    }
}

fn newline<W: ?Sized + Write>(w: &mut W, depth: usize) -> io::Result<()> {
    w.write_all(b"\n")?;
    (0..depth).try_for_each(|_| w.write_all(b"  "))
}

impl Formatter for TraceFormatter {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.begin_container(w, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.end_container(w, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.begin_item(w, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.begin_container(w, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.end_container(w, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.begin_item(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn three_levels_are_indented_and_deeper_ones_inline() {
        let value = json!({"a": {"b": {"c": [1, 2], "d": {"e": [], "f": {}}}, "g": []}});
        let text = super::to_string(&value).unwrap();
        let expected = "{\n  \"a\": {\n    \"b\": {\n      \"c\": [1, 2],\n      \
                        \"d\": {\"e\": [], \"f\": {}}\n    },\n    \"g\": []\n  }\n}";
        assert_eq!(text, expected);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            value
        );
    }
}
