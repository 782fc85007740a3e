//! `tracebook mv` as an author runs it: an article moved into a part, placed with `--after`,
//! and back out, the site still building with every link checked; the links, references and
//! weights it rewrote, every other byte of the files kept; a refused move changes nothing.

#[path = "support/cli.rs"]
mod cli;

use cli::text;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Output;

fn tracebook(root: &Path, args: &[&str]) -> Output {
    cli::run(root, args)
}

fn ok(out: Output) -> String {
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout) + &text(&out.stderr)
}

/// Every file under content/ and its bytes.
fn snapshot(site: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in fs::read_dir(dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, base, out);
            } else {
                let name = path
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .to_string();
                out.insert(name, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&site.join("content"), site, &mut out);
    out
}

fn write(site: &Path, file: &str, text: &str) {
    fs::write(site.join("content").join(file), text).unwrap();
}

fn read(site: &Path, file: &str) -> String {
    fs::read_to_string(site.join("content").join(file)).unwrap()
}

/// A site with a part of two articles and two articles outside it, linking to each other.
fn site_with_links(site: &Path) {
    ok(tracebook(site, &["init", site.to_str().unwrap()]));
    for name in [
        "01-basics/tokens",
        "01-basics/embeddings",
        "attention",
        "coda",
    ] {
        ok(tracebook(site, &["new", name]));
    }
    let front =
        |title: &str, weight: i64| format!("+++\ntitle = \"{title}\"\nweight = {weight}\n+++\n\n");
    write(
        site,
        "01-basics/tokens.md",
        &(front("Tokens", 10)
            + "## Pieces {#pieces}\n\nNext: [embeddings](embeddings.md); later [attention](../attention.md#scores \"attention.md\").\n"),
    );
    write(
        site,
        "01-basics/embeddings.md",
        &(front("Embeddings", 20)
            + "Uses [tokens][t] and {{ ref attention#scores }}.\n\n[t]: tokens.md#pieces\n"),
    );
    write(
        site,
        "attention.md",
        &(front("Attention", 30)
            + "## Scores\n\nBack to [tokens](01-basics/tokens.md#pieces), see {{ ref pieces }}, \
               <a href=\"01-basics/embeddings.html\">embeddings</a>, and [here](#scores).\n\n\
               ```text\n[not a link](attention.md)\n```\n"),
    );
    // CRLF line ends and a byte-order mark, which a move must keep.
    write(
        site,
        "coda.md",
        "\u{feff}+++\r\ntitle = \"Coda\"\r\nweight = 40\r\n+++\r\n\r\nRead [attention](attention.md) again.\r\n",
    );
    // An icon linked from every head, as the example site does: pages in parts find it too.
    let config = site.join("tracebook.toml");
    let toml = fs::read_to_string(&config).unwrap();
    fs::write(
        &config,
        format!("extra_head = '<link rel=\"icon\" href=\"favicon.svg\">'\n{toml}"),
    )
    .unwrap();
    fs::create_dir_all(site.join("static")).unwrap();
    fs::write(
        site.join("static/favicon.svg"),
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
    )
    .unwrap();
    ok(tracebook(site, &["build"]));
}

#[test]
fn an_article_moves_into_a_part_after_another_and_back_out_with_its_links() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path();
    site_with_links(site);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let coda = site.join("content/coda.md");
        fs::set_permissions(&coda, fs::Permissions::from_mode(0o640)).unwrap();
    }

    let said = ok(tracebook(
        site,
        &["mv", "attention", "01-basics/", "--after", "tokens"],
    ));
    assert!(
        said.contains("moved content/attention.md to content/01-basics/attention.md (weight 20)"),
        "{said}"
    );
    assert!(
        said.contains("renumbered content/01-basics/embeddings.md (30)"),
        "{said}"
    );
    assert!(!site.join("content/attention.md").exists());
    let attention = read(site, "01-basics/attention.md");
    assert!(attention.contains("weight = 20\n"), "{attention}");
    assert!(
        attention.contains("[tokens](tokens.md#pieces)"),
        "{attention}"
    );
    assert!(
        attention.contains("<a href=\"embeddings.html\">"),
        "{attention}"
    );
    assert!(attention.contains("[here](#scores)"), "{attention}");
    assert!(
        attention.contains("[not a link](attention.md)"),
        "code is left: {attention}"
    );
    let tokens = read(site, "01-basics/tokens.md");
    assert!(
        tokens.contains("[attention](attention.md#scores \"attention.md\")"),
        "{tokens}"
    );
    assert!(tokens.contains("[embeddings](embeddings.md)"), "{tokens}");
    let embeddings = read(site, "01-basics/embeddings.md");
    assert!(
        embeddings.contains("{{ ref 01-basics/attention#scores }}"),
        "{embeddings}"
    );
    assert!(embeddings.contains("weight = 30"), "{embeddings}");
    assert_eq!(
        read(site, "coda.md"),
        "\u{feff}+++\r\ntitle = \"Coda\"\r\nweight = 40\r\n+++\r\n\r\nRead [attention](01-basics/attention.md) again.\r\n"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(site.join("content/coda.md"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o640);
    }
    // The site builds with every link checked, in the new order.
    ok(tracebook(site, &["build"]));
    let page = fs::read_to_string(site.join("public/01-basics/attention.html")).unwrap();
    let order: Vec<usize> = ["Tokens</a>", "Attention</a>", "Embeddings</a>", "Coda</a>"]
        .iter()
        .map(|t| {
            page.find(t)
                .unwrap_or_else(|| panic!("{t} not in the sidebar"))
        })
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");

    // Out again, renamed, to the end of the top of content/.
    let said = ok(tracebook(
        site,
        &["mv", "01-basics/attention", "self-attention"],
    ));
    assert!(
        said.contains("to content/self-attention.md (weight 50)"),
        "{said}"
    );
    assert!(read(site, "coda.md").contains("[attention](self-attention.md)"));
    assert!(read(site, "self-attention.md").contains("[tokens](01-basics/tokens.md#pieces)"));
    ok(tracebook(site, &["build"]));
}

#[test]
fn a_refused_move_says_why_and_changes_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path();
    site_with_links(site);
    let before = snapshot(site);
    let refused = |args: &[&str], expected: &str| {
        let out = tracebook(site, args);
        assert!(!out.status.success(), "{args:?} was not refused");
        let said = text(&out.stderr);
        assert!(said.contains(expected), "{args:?}: {said}");
        assert!(said.contains("nothing was moved"), "{args:?}: {said}");
        assert_eq!(snapshot(site), before, "{args:?} changed content/");
    };
    refused(
        &["mv", "atention", "01-basics/"],
        "did you mean `attention`?",
    );
    refused(
        &["mv", "attention", "01-basics/tokens"],
        "content/01-basics/tokens.md already exists",
    );
    refused(
        &["mv", "attention", "01-basics/", "--after", "tokenz"],
        "did you mean `tokens`?",
    );
    refused(&["mv", "attention", "attention"], "is already there");
    refused(&["mv", "01-basics/_index", "."], "is a part's page");
    // A file whose front matter is broken could hold links the move cannot read.
    write(
        site,
        "broken.md",
        "no front matter, [attention](attention.md)\n",
    );
    let before = snapshot(site);
    let out = tracebook(site, &["mv", "attention", "01-basics/"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("content/broken.md: "),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(snapshot(site), before);
}

#[test]
fn a_new_part_is_started_and_a_reorder_keeps_the_article_in_place() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path();
    site_with_links(site);
    let said = ok(tracebook(site, &["mv", "coda", "02-end/"]));
    assert!(
        said.contains("started the part \"End\" (content/02-end/_index.md"),
        "{said}"
    );
    assert!(
        said.contains("content/02-end/coda.md (weight 10)"),
        "{said}"
    );
    ok(tracebook(site, &["build"]));
    // Only its place: attention goes before the part 01-basics at the top.
    let said = ok(tracebook(
        site,
        &["mv", "attention", "attention", "--after", "tokens"],
    ));
    assert!(
        said.contains("placed content/attention.md after tokens"),
        "{said}"
    );
    ok(tracebook(site, &["build"]));
}
