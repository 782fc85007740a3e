//! A local HTTP server on 127.0.0.1 with one page per way a link can fare: `/ok` and
//! `/target` answer 200, `/missing` 404, `/moved` redirects (301) to `/target`, `/no-head`
//! refuses HEAD (405) and serves GET, `/flaky` answers 503 (Retry-After: 1) the first time
//! and 200 after, `/hang` reads the request and never answers. Logs every request it saw.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct LinkServer {
    pub url: String,
    /// "METHOD /path" for every request, in order.
    log: Arc<Mutex<Vec<String>>>,
}

impl LinkServer {
    pub fn start() -> LinkServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let log = Arc::new(Mutex::new(Vec::new()));
        let flaky = Arc::new(AtomicUsize::new(0));
        let state = (log.clone(), flaky);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (log, flaky) = state.clone();
                std::thread::spawn(move || {
                    let _ = answer(stream, &log, &flaky);
                });
            }
        });
        LinkServer { url, log }
    }

    /// Every request so far, sorted (requests run concurrently), and the log emptied.
    pub fn take_requests(&self) -> Vec<String> {
        let mut requests = std::mem::take(&mut *self.log.lock().unwrap());
        requests.sort();
        requests
    }
}

fn answer(stream: TcpStream, log: &Mutex<Vec<String>>, flaky: &AtomicUsize) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        if line.trim().is_empty() {
            break;
        }
    }
    let mut words = request.split_whitespace();
    let method = words.next().unwrap_or_default().to_string();
    let path = words.next().unwrap_or_default().to_string();
    log.lock().unwrap().push(format!("{method} {path}"));
    let mut out = stream;
    match (method.as_str(), path.as_str()) {
        (_, "/ok" | "/target") => status(&mut out, "200 OK", ""),
        (_, "/moved") => status(&mut out, "301 Moved Permanently", "Location: /target\r\n"),
        ("HEAD", "/no-head") => status(&mut out, "405 Method Not Allowed", "Allow: GET\r\n"),
        ("GET", "/no-head") => status(&mut out, "200 OK", ""),
        (_, "/flaky") if flaky.fetch_add(1, Ordering::SeqCst) == 0 => {
            status(&mut out, "503 Service Unavailable", "Retry-After: 1\r\n")
        }
        (_, "/flaky") => status(&mut out, "200 OK", ""),
        (_, "/hang") => {
            std::thread::sleep(Duration::from_secs(60));
            Ok(())
        }
        _ => status(&mut out, "404 Not Found", ""),
    }
}

fn status(out: &mut TcpStream, status: &str, headers: &str) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 {status}\r\n{headers}Content-Length: 0\r\nConnection: close\r\n\r\n"
    )?;
    out.flush()
}
