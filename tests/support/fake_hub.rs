//! A local HTTP server on 127.0.0.1 that answers like the Hugging Face hub's file endpoint
//! (`/{owner}/{name}/resolve/main/{file}`), as the `hf-hub` crate asks it: ranged GETs, a
//! `Content-Range` with the size, `x-repo-commit`, and `x-linked-etag` (the blob's sha256).
//! It can drop the connection halfway through a file, answer 404 for unknown repositories and
//! 401 for a gated one, and logs every request it saw.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
pub const GATED: &str = "org/gated";

pub struct FakeHub {
    pub url: String,
    /// "GET /path range" for every request, in order.
    pub log: Arc<Mutex<Vec<String>>>,
    /// How many more full-file downloads of model.safetensors to cut off halfway.
    pub drops: Arc<AtomicUsize>,
}

impl FakeHub {
    /// Serve the files of `dir` as the repository `repo`.
    pub fn start(repo: &str, dir: &Path) -> FakeHub {
        let files: BTreeMap<String, Vec<u8>> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| {
                (
                    p.file_name().unwrap().to_string_lossy().to_string(),
                    std::fs::read(&p).unwrap(),
                )
            })
            .collect();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let log = Arc::new(Mutex::new(Vec::new()));
        let drops = Arc::new(AtomicUsize::new(0));
        let state = Arc::new((repo.to_string(), files, log.clone(), drops.clone()));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = state.clone();
                std::thread::spawn(move || {
                    let (repo, files, log, drops) = &*state;
                    let _ = answer(stream, repo, files, log, drops);
                });
            }
        });
        FakeHub { url, log, drops }
    }

    pub fn requests(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    pub fn drop_next(&self, n: usize) {
        self.drops.store(n, Ordering::SeqCst);
    }
}

fn answer(
    stream: TcpStream,
    repo: &str,
    files: &BTreeMap<String, Vec<u8>>,
    log: &Mutex<Vec<String>>,
    drops: &AtomicUsize,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    let mut range = None;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        if line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("range") {
                range = value.trim().strip_prefix("bytes=").map(str::to_string);
            }
        }
    }
    let path = request.split_whitespace().nth(1).unwrap_or("").to_string();
    log.lock()
        .unwrap()
        .push(format!("{} {}", path, range.clone().unwrap_or_default()));
    let mut out = stream;
    let Some((repo_part, file)) = path.trim_start_matches('/').split_once("/resolve/main/") else {
        return status(&mut out, 404, "Entry not found");
    };
    if repo_part == GATED {
        return status(&mut out, 401, "Access to this model is restricted");
    }
    if repo_part != repo {
        return status(&mut out, 404, "Repository not found");
    }
    let Some(bytes) = files.get(file) else {
        return status(&mut out, 404, "Entry not found");
    };
    let (start, end) = match range.as_deref().and_then(|r| r.split_once('-')) {
        Some((a, b)) => (
            a.parse::<usize>().unwrap_or(0),
            b.parse::<usize>().map(|e| e + 1).unwrap_or(bytes.len()),
        ),
        None => (0, bytes.len()),
    };
    let end = end.min(bytes.len());
    let body = &bytes[start.min(end)..end];
    let etag = sha256(bytes);
    write!(
        out,
        "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {}-{}/{}\r\n\
         x-repo-commit: {COMMIT}\r\nx-linked-etag: \"{etag}\"\r\nETag: \"{etag}\"\r\n\
         Connection: close\r\n\r\n",
        body.len(),
        start,
        end.saturating_sub(1),
        bytes.len()
    )?;
    let whole_weights = file == "model.safetensors" && body.len() > 1;
    if whole_weights
        && drops
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    {
        // Half the body, then the connection goes away.
        out.write_all(&body[..body.len() / 2])?;
        out.flush()?;
        return out.shutdown(std::net::Shutdown::Both);
    }
    out.write_all(body)?;
    out.flush()
}

fn status(out: &mut TcpStream, code: u16, text: &str) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 {code} {text}\r\nContent-Length: {}\r\nx-error-message: {text}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )
}

pub fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
