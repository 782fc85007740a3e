//! `tracebook serve` as an author runs it: the real binary on a loopback port, a site edited
//! under it, the change served (how fast: benches/serve.sh); a broken edit reported, and the server alive.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

#[path = "support/cli.rs"]
mod cli;

/// A running `tracebook serve`, stopped when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(root: &Path) -> Server {
        Server::start_with(root, &[])
    }

    fn start_with(root: &Path, extra: &[&str]) -> Server {
        let port = free_port();
        let log = std::fs::File::create(root.join("serve.log")).unwrap();
        let child = cli::tracebook(root)
            .args(["serve", "--port", &port.to_string()])
            .args(extra)
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let server = Server { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while server.try_get("/").is_none() {
            assert!(
                Instant::now() < deadline,
                "serve did not answer within 30 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }

    fn get(&self, path: &str) -> (String, String) {
        self.try_get(path)
            .unwrap_or_else(|| panic!("GET {path} failed"))
    }

    /// Status line and body of `GET path`.
    fn try_get(&self, path: &str) -> Option<(String, String)> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .ok()?;
        write!(stream, "GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").ok()?;
        let mut response = String::new();
        stream.read_to_string(&mut response).ok()?;
        let (head, body) = response.split_once("\r\n\r\n")?;
        Some((head.lines().next()?.to_string(), body.to_string()))
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn new_site() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let out = cli::command(temp.path())
        .arg("init")
        .arg(temp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    temp
}

/// How long a test waits for the server before calling it broken: generous, since a loaded CI
/// machine is slow; speed is a benchmark's business.
const PATIENCE: Duration = Duration::from_secs(30);

/// Polls `path` until its body contains `needle`.
fn wait_for(server: &Server, path: &str, needle: &str, limit: Duration) {
    let started = Instant::now();
    loop {
        let (_, body) = server.get(path);
        if body.contains(needle) {
            return;
        }
        assert!(
            started.elapsed() < limit,
            "{needle:?} not served within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn an_edit_is_served_and_a_broken_one_is_reported() {
    let site = new_site();
    let root = site.path();
    let server = Server::start(root);
    let (status, page) = server.get("/tokens.html");
    assert!(status.contains("200"), "{status}");
    assert!(page.contains("A prompt becomes a list of ids"));
    assert!(
        page.contains("/__tracebook/live"),
        "serve injects the reload script"
    );
    let built = std::fs::read_to_string(root.join("public/tokens.html")).unwrap();
    assert!(
        !built.contains("__tracebook"),
        "the written output has no reload script"
    );

    let article = root.join("content/tokens.md");
    let original = std::fs::read_to_string(&article).unwrap();
    let edited = original.replace(
        "A prompt becomes a list of ids",
        "A prompt becomes a row of numbered boxes",
    );
    std::fs::write(&article, &edited).unwrap();
    // How fast is measured by benches/serve.sh (docs/BENCHMARKS.md); here only that it happens.
    wait_for(
        &server,
        "/tokens.html",
        "A prompt becomes a row of numbered boxes",
        PATIENCE,
    );

    // A broken edit: the error reaches the page's poll, the previous build is still served.
    std::fs::write(
        &article,
        edited.replace("prompt = \"robots\"", "prompt = \"robotz\""),
    )
    .unwrap();
    let started = Instant::now();
    loop {
        let (_, state) = server.get("/__tracebook/live?since=0");
        if state.contains("unknown prompt") {
            assert!(state.contains("content/tokens.md"), "{state}");
            break;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "the error was not reported: {state}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let (status, page) = server.get("/tokens.html");
    assert!(status.contains("200") && page.contains("row of numbered boxes"));

    // Fixed again: served again.
    std::fs::write(&article, &original).unwrap();
    wait_for(
        &server,
        "/tokens.html",
        "A prompt becomes a list of ids",
        PATIENCE,
    );
    let (status, _) = server.get("/no-such-page.html");
    assert!(status.contains("404"), "{status}");
}

/// `serve --claims warn` builds and serves a page whose claim is false, marked as false, and
/// says so on the terminal; without it the same claim stops the build.
#[test]
fn claims_warn_serves_a_page_with_a_false_claim() {
    let site = new_site();
    let root = site.path();
    let article = root.join("content/tokens.md");
    let original = std::fs::read_to_string(&article).unwrap();
    let false_claim = original.replace(
        "This prompt becomes {{ count robots }} tokens",
        "This prompt becomes {{ count robots }} tokens{{ claim robots count() == 99 }}",
    );
    std::fs::write(&article, &false_claim).unwrap();
    let server = Server::start_with(root, &["--claims", "warn"]);
    let (status, page) = server.get("/tokens.html");
    assert!(status.contains("200"), "{status}");
    assert!(page.contains("tb-claim"), "the claim is marked on the page");
    drop(server);
    let log = std::fs::read_to_string(root.join("serve.log")).unwrap();
    assert!(
        log.contains("count() == 99"),
        "the false claim is reported: {log}"
    );
    assert!(log.contains("built"), "{log}");

    // Without --claims warn the same page does not build.
    std::fs::remove_dir_all(root.join("public")).unwrap();
    let out = cli::run(root, &["build"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("count() == 99"));
}

#[test]
fn a_busy_port_and_port_zero_are_refused_clearly() {
    let site = new_site();
    let busy = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port().to_string();
    for (port, expected) in [(port.as_str(), "already in use"), ("0", "--port 0")] {
        let out = cli::tracebook(site.path())
            .args(["serve", "--port", port])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{stderr}");
        assert!(
            stderr.contains("--port N") || stderr.contains("pass a port"),
            "{stderr}"
        );
    }
}
