//! `tracebook check --external` against a local server on 127.0.0.1 (tests/support/link_server.rs):
//! each broken link reported at its line and column, the cache of links that answered OK, and a
//! second check that asks only about the others. No test reaches an outside address.

#[path = "support/cli.rs"]
mod cli;
#[path = "support/link_server.rs"]
mod link_server;

use cli::text;
use link_server::LinkServer;
use std::path::Path;
use std::process::Output;

/// A site whose one article links to `server`'s pages and to `refused`, a port nobody listens on.
fn site(server: &str, refused: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tracebook.toml"),
        "title = \"Links\"\n\n[model]\nid = \"test/tiny-gpt2\"\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("content")).unwrap();
    let article = format!(
        "+++\ntitle = \"Links\"\ndescription = \"Links out.\"\n+++\n\
         A page that is [there]({server}/ok#intro).\n\
         \n\
         - [moved]({server}/moved)\n\
         - [no HEAD]({server}/no-head)\n\
         - [flaky]({server}/flaky)\n\
         - [gone]({server}/missing)\n\
         - [slow]({server}/hang)\n\
         - [gone again]({server}/missing#part)\n\
         - [refused]({refused}/x)\n\
         \n\
         <p><a href=\"{server}/missing\">raw</a></p>\n\
         \n\
         `{server}/code` in code is not a link.\n"
    );
    std::fs::write(dir.path().join("content/links.md"), article).unwrap();
    dir
}

/// `tracebook check ARGS...` with no proxy between it and 127.0.0.1.
fn check(root: &Path, args: &[&str]) -> Output {
    let mut command = cli::tracebook(root);
    command.arg("check").args(args);
    for proxy in ["ALL_PROXY", "HTTP_PROXY", "HTTPS_PROXY"] {
        command.env_remove(proxy).env_remove(proxy.to_lowercase());
    }
    command.output().unwrap()
}

/// The `file:line:col: error: ...` lines of a report.
fn error_lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| l.contains(": error: ") || l.contains(": warning: "))
        .map(str::to_string)
        .collect()
}

/// An address on 127.0.0.1 where nothing listens.
fn refused_address() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

#[test]
fn broken_links_are_reported_where_written_and_ok_ones_are_cached() {
    let server = LinkServer::start();
    let refused = refused_address();
    let site = site(&server.url, &refused);
    let root = site.path();
    let s = &server.url;

    let offline = check(root, &[]);
    assert!(offline.status.success(), "{}", text(&offline.stderr));
    assert!(server.take_requests().is_empty(), "check stays offline");

    let expected = [
        // The same link twice in a file is told once, with its other line.
        format!(
            "content/links.md:10:3: error: link {s}/missing is broken: 404 Not Found \
             (and 1 more time in this file, at line 15)"
        ),
        format!("content/links.md:11:3: error: link {s}/hang is broken: no answer within 1 s"),
        format!("content/links.md:12:3: error: link {s}/missing#part is broken: 404 Not Found"),
        format!("content/links.md:13:3: error: link {refused}/x is broken: connection refused"),
    ];
    let args = ["--external", "--external-timeout", "1"];
    let first = check(root, &args);
    let stderr = text(&first.stderr);
    assert!(!first.status.success(), "{stderr}");
    assert_eq!(error_lines(&stderr), expected, "{stderr}");
    assert!(stderr.contains("the check found 4 errors"), "{stderr}");
    assert!(
        stderr.contains("= hint: the server has no such page"),
        "{stderr}"
    );
    assert_eq!(
        server.take_requests(),
        [
            "GET /no-head",
            "HEAD /flaky",
            "HEAD /flaky",
            "HEAD /hang",
            "HEAD /missing",
            "HEAD /moved",
            "HEAD /no-head",
            "HEAD /ok",
            "HEAD /target",
        ],
        "each address once (retries aside), fragments left off, code spans left alone"
    );

    let cache = std::fs::read_to_string(root.join(".tracebook/external-links.json")).unwrap();
    let cache: serde_json::Value = serde_json::from_str(&cache).unwrap();
    let mut cached: Vec<&str> = cache["ok"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    cached.sort();
    let mut want = ["/flaky", "/moved", "/no-head", "/ok"].map(|p| format!("{s}{p}"));
    want.sort();
    assert_eq!(cached, want, "only links that answered OK are cached");

    let second = check(root, &args);
    assert_eq!(error_lines(&text(&second.stderr)), expected);
    assert_eq!(
        server.take_requests(),
        ["HEAD /hang", "HEAD /missing"],
        "links cached as OK are not asked again"
    );

    let again = check(
        root,
        &[
            "--external",
            "--external-timeout",
            "0.5",
            "--external-max-age",
            "0",
        ],
    );
    assert!(!again.status.success());
    assert!(
        server.take_requests().contains(&"HEAD /ok".to_string()),
        "a max age of 0 asks about every link"
    );
}

#[test]
fn a_site_whose_links_all_answer_passes_and_says_so() {
    let server = LinkServer::start();
    let site = tempfile::tempdir().unwrap();
    let root = site.path();
    std::fs::write(
        root.join("tracebook.toml"),
        "title = \"T\"\n\n[model]\nid = \"test/tiny-gpt2\"\n",
    )
    .unwrap();
    std::fs::create_dir(root.join("content")).unwrap();
    std::fs::write(
        root.join("content/a.md"),
        format!(
            "+++\ntitle = \"A\"\ndescription = \"A.\"\n+++\n[one]({0}/ok) and [two]({0}/ok#x).\n",
            server.url
        ),
    )
    .unwrap();
    let out = check(root, &["--external"]);
    let stdout = cli::ok(&out, "check --external");
    assert!(
        stdout.contains("checked 2 external links to 1 address, 0 OK in the cache, in "),
        "{stdout}"
    );
    assert!(stdout.contains("none broken"), "{stdout}");
    assert_eq!(server.take_requests(), ["HEAD /ok"]);
    let out = check(root, &["--external"]);
    let stdout = cli::ok(&out, "second check --external");
    assert!(stdout.contains("1 address, 1 OK in the cache"), "{stdout}");
    assert!(server.take_requests().is_empty());
    assert_eq!(
        std::fs::read_to_string(root.join(".tracebook/.gitignore")).unwrap(),
        "# tracebook's caches: not for version control\n*\n"
    );
}
