//! A minimal HTTP/1.1 server for one author on loopback: GET and HEAD of the files under the
//! output folder, one short-lived thread per connection, every response `Connection: close`.

use super::live::{Live, LIVE_PATH};
use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

/// A response to write.
struct Response {
    status: &'static str,
    content_type: &'static str,
    body: Vec<u8>,
}

/// Answers one connection: reads its request, writes one response, closes.
pub fn handle(stream: TcpStream, out_dir: &Path, live: &Live) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // The headers are not needed; read them so that the client sees a clean close.
    let mut header = String::new();
    while reader.read_line(&mut header)? > 2 && header.len() < 16 * 1024 {
        header.clear();
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let response = match method {
        "GET" | "HEAD" => respond(target, out_dir, live),
        _ => text(
            "405 Method Not Allowed",
            "tracebook serve answers GET and HEAD only\n",
        ),
    };
    write(stream, &response, method == "HEAD")
}

fn respond(target: &str, out_dir: &Path, live: &Live) -> Response {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if path == LIVE_PATH {
        let since = query
            .split('&')
            .find_map(|pair| pair.strip_prefix("since="))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        return Response {
            status: "200 OK",
            content_type: "application/json",
            body: live.wait_json(since).into_bytes(),
        };
    }
    let Some(file) = file_for(out_dir, path) else {
        return text("400 Bad Request", "this path leaves the site folder\n");
    };
    match fs::read(&file) {
        Ok(body) => page("200 OK", &file, body, live),
        Err(_) => not_found(out_dir, live),
    }
}

/// The file a URL path names under `out_dir`; a folder means its index.html, and a path
/// with no such file but a `.html` one beside it means that page (`/attention` serves
/// `attention.html`, as GitHub Pages does). None for paths that would leave the folder.
fn file_for(out_dir: &Path, url_path: &str) -> Option<PathBuf> {
    let decoded = percent_decode(url_path)?;
    let relative = Path::new(decoded.trim_start_matches('/'));
    if relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let file = out_dir.join(relative);
    if decoded.ends_with('/') || file.is_dir() {
        return Some(file.join("index.html"));
    }
    let page = file.with_extension("html");
    Some(
        if !file.exists() && file.extension().is_none() && page.is_file() {
            page
        } else {
            file
        },
    )
}

fn not_found(out_dir: &Path, live: &Live) -> Response {
    let file = out_dir.join("404.html");
    match fs::read(&file) {
        Ok(body) => page("404 Not Found", &file, body, live),
        // No build has succeeded yet: a page that still carries the script, so that the
        // error overlay shows and the first good build reloads it.
        Err(_) => Response {
            status: "404 Not Found",
            content_type: "text/html; charset=utf-8",
            body: live
                .inject("<!doctype html><title>Not built yet</title><body><p>No page here (yet): the site has not been built.</p></body>")
                .into_bytes(),
        },
    }
}

/// A file's response; HTML gets the live-reload script.
fn page(status: &'static str, file: &Path, body: Vec<u8>, live: &Live) -> Response {
    let content_type = content_type(file);
    let body = if content_type.starts_with("text/html") {
        live.inject(&String::from_utf8_lossy(&body)).into_bytes()
    } else {
        body
    };
    Response {
        status,
        content_type,
        body,
    }
}

fn text(status: &'static str, body: &str) -> Response {
    Response {
        status,
        content_type: "text/plain; charset=utf-8",
        body: body.as_bytes().to_vec(),
    }
}

fn write(mut stream: TcpStream, response: &Response, head_only: bool) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        response.status,
        response.content_type,
        response.body.len()
    );
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(&response.body)?;
    }
    stream.flush()
}

fn content_type(file: &Path) -> &'static str {
    let extension = file
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "xml" => "application/xml",
        "txt" | "md" => "text/plain; charset=utf-8",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "wasm" => "application/wasm",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

/// `%XX` escapes decoded; None when they do not make UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_into_the_output_folder_only() {
        let out = Path::new("/site/public");
        assert_eq!(file_for(out, "/").unwrap(), out.join("index.html"));
        assert_eq!(file_for(out, "/a%20b.html").unwrap(), out.join("a b.html"));
        assert!(file_for(out, "/../secret").is_none());
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("attention.html"), "a").unwrap();
        std::fs::write(dir.path().join("notes"), "n").unwrap();
        let d = dir.path();
        assert_eq!(file_for(d, "/attention").unwrap(), d.join("attention.html"));
        assert_eq!(
            file_for(d, "/notes").unwrap(),
            d.join("notes"),
            "a file as named wins"
        );
        assert_eq!(
            file_for(d, "/missing").unwrap(),
            d.join("missing"),
            "then a 404"
        );
        assert!(file_for(out, "/%2e%2e/secret").is_none());
    }

    #[test]
    fn percent_escapes_decode() {
        assert_eq!(percent_decode("/caf%C3%A9").as_deref(), Some("/café"));
        assert_eq!(percent_decode("/100%").as_deref(), Some("/100%"));
    }
}
