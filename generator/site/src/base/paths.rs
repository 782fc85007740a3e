//! Paths inside the output, always `/`-separated and relative: joining, normalizing, and
//! the relative link from one page to another (so the site works from file:// and sub-paths).

/// `a/./b/../c` → `a/c`; None when the path climbs above the root.
pub fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The folder of an output file: `sub/a.html` → `sub`, `a.html` → ``.
pub fn parent(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// `dir` joined with a relative `path`, normalized.
pub fn join(dir: &str, path: &str) -> Option<String> {
    if dir.is_empty() {
        normalize(path)
    } else {
        normalize(&format!("{dir}/{path}"))
    }
}

/// The relative link from a file in `from_dir` to `to` (both relative to the output root).
pub fn relative(from_dir: &str, to: &str) -> String {
    let from: Vec<&str> = from_dir.split('/').filter(|p| !p.is_empty()).collect();
    let target: Vec<&str> = to.split('/').filter(|p| !p.is_empty()).collect();
    let common = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    parts.extend(&target[common..]);
    let joined = parts.join("/");
    if joined.is_empty() {
        "./".to_string()
    } else {
        encode(&joined)
    }
}

/// `../` once per folder level of `path`: the prefix that leads from a page to the root.
pub fn root_prefix(path: &str) -> String {
    "../".repeat(path.matches('/').count())
}

/// Percent-encodes what may not stand in a URL path as is (spaces, `#`, `?`, `%`, non-ASCII).
pub fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Undoes percent-encoding (invalid escapes are kept as written).
pub fn decode(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = path
            .get(i + 1..i + 3)
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_and_refuses_to_climb_out() {
        assert_eq!(normalize("a/./b/../c").as_deref(), Some("a/c"));
        assert_eq!(normalize("../x"), None);
        assert_eq!(join("sub", "../img.png").as_deref(), Some("img.png"));
        assert_eq!(join("", "a.html").as_deref(), Some("a.html"));
    }

    #[test]
    fn relative_links_between_pages() {
        assert_eq!(relative("", "b.html"), "b.html");
        assert_eq!(relative("sub", "b.html"), "../b.html");
        assert_eq!(relative("sub", "sub/c.html"), "c.html");
        assert_eq!(relative("a/b", "a/c/d.html"), "../c/d.html");
        assert_eq!(relative("", "my page.html"), "my%20page.html");
        assert_eq!(root_prefix("a/b/c.html"), "../../");
        assert_eq!(root_prefix("index.html"), "");
    }

    #[test]
    fn percent_round_trip() {
        assert_eq!(decode(&encode("my page#ü.md")), "my page#ü.md");
        assert_eq!(decode("100%"), "100%");
    }
}
