//! A local HTTP server on 127.0.0.1 that answers each of a few paths with its body and anything
//! else with 404: a stand-in for a release's download or a registry's sparse index.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};

/// Serves `files` (a path without its leading `/` -> the body); returns the server's address.
pub fn serve(files: HashMap<String, Vec<u8>>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            reader.read_line(&mut line).unwrap();
            while reader.read_line(&mut String::new()).unwrap_or(0) > 2 {}
            let asked = line.split_whitespace().nth(1).unwrap_or("");
            let (status, body) = match files.get(asked.trim_start_matches('/')) {
                Some(body) => ("200 OK", body.as_slice()),
                None => ("404 Not Found", &b""[..]),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body);
        }
    });
    url
}
