//! Long-form features on fixture sites: link previews (canonical, OpenGraph, Twitter, a PNG of
//! the first figure), the Atom feed, "Edit this page", and print.html (the series on one page
//! with unique ids and in-page links).

mod support;

use std::collections::BTreeSet;
use support::{read_tree, sites_dir, TempSite};

fn built(fixture: &str) -> std::collections::BTreeMap<String, Vec<u8>> {
    let site = TempSite::new(&sites_dir().join(fixture));
    tracebook_site::build(site.root(), None).unwrap_or_else(|d| panic!("{d}"));
    read_tree(&site.root().join("public"))
}

fn text(files: &std::collections::BTreeMap<String, Vec<u8>>, path: &str) -> String {
    String::from_utf8(files[path].clone()).unwrap()
}

#[test]
fn with_base_url_pages_carry_previews_and_the_site_a_feed() {
    let files = built("valid/full");
    let page = text(&files, "tokens.html");
    for needle in [
        "<link rel=\"canonical\" href=\"https://example.org/book/tokens.html\">",
        "<meta property=\"og:type\" content=\"article\">",
        "<meta property=\"og:url\" content=\"https://example.org/book/tokens.html\">",
        "<meta property=\"og:image\" content=\"https://example.org/book/tokens.preview.png\">",
        "<meta name=\"twitter:card\" content=\"summary_large_image\">",
        "<link rel=\"alternate\" type=\"application/atom+xml\"",
    ] {
        assert!(page.contains(needle), "tokens.html lacks {needle}");
    }
    // The preview is a PNG of the size link previews use (IHDR: width, height at 16..24).
    let png = &files["tokens.preview.png"];
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let size = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!((size(16), size(20)), (1200, 630));
    // The feed: valid XML, one entry per published article, in series order.
    let feed = text(&files, "atom.xml");
    let doc = roxmltree::Document::parse(&feed).expect("well-formed Atom");
    let entries: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("entry"))
        .map(|e| {
            e.children()
                .find(|c| c.has_tag_name("id"))
                .and_then(|c| c.text())
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        entries,
        [
            "https://example.org/book/tokens.html",
            "https://example.org/book/next-token.html",
            "https://example.org/book/more/deep.html"
        ]
    );
    assert!(!feed.contains("drafty"), "drafts stay out of the feed");
}

#[test]
fn without_base_url_there_is_no_preview_and_no_feed() {
    let files = built("valid/minimal");
    assert!(!files.contains_key("atom.xml"));
    assert!(!files.keys().any(|p| p.ends_with(".png")));
    assert!(!text(&files, "only.html").contains("og:title"));
}

#[test]
fn print_html_is_the_series_on_one_page_with_unique_ids() {
    let files = built("valid/longform");
    let print = text(&files, "print.html");
    let a = print
        .find("<article class=\"tb-article tb-print-article\" id=\"a\">")
        .unwrap();
    let b = print
        .find("<article class=\"tb-article tb-print-article\" id=\"b\">")
        .unwrap();
    assert!(a < b, "articles in series order");
    let ids: Vec<String> = print
        .split(" id=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .collect();
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "no id twice: {ids:?}");
    assert!(ids.contains(&"a--hinweise".to_string()));
    // b's link to a.html#hinweise and its {{ ref }} to a's figure now stay on the page.
    assert!(print.contains("href=\"#a--hinweise\""), "{print}");
    assert!(print.contains("href=\"#a--fig-tokens\""));
    for href in print.split("href=\"#").skip(1) {
        let target = &href[..href.find('"').unwrap()];
        assert!(ids.iter().any(|id| id == target), "#{target} has no target");
    }
}

#[test]
fn edit_url_gives_each_article_its_edit_link() {
    let site = TempSite::new(&sites_dir().join("valid/minimal"));
    let config = site.root().join("tracebook.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("edit_url = \"https://github.com/me/book/edit/main/{{path}}\"\n{text}"),
    )
    .unwrap();
    tracebook_site::build(site.root(), None).unwrap_or_else(|d| panic!("{d}"));
    let page = std::fs::read_to_string(site.root().join("public/only.html")).unwrap();
    assert!(page.contains(
        "<p class=\"tb-edit\"><a href=\"https://github.com/me/book/edit/main/content/only.md\">Edit this page</a></p>"
    ));
    std::fs::write(
        &config,
        format!("edit_url = \"https://github.com/me/book\"\n{text}"),
    )
    .unwrap();
    let err = tracebook_site::build(site.root(), None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("tracebook.toml:1:12: error: edit_url must be an http(s) URL with `{path}`"),
        "{err}"
    );
}

#[test]
fn display_equations_with_an_id_are_numbered_and_referred_to() {
    let files = built("valid/longform");
    let a = text(&files, "a.html");
    // Numbered in the page's order, counting only the equations with an id.
    assert!(
        a.contains("<span class=\"tb-equation\" id=\"eq-softmax\"><math"),
        "{a}"
    );
    assert!(a.contains("<span class=\"tb-equation-number\">(1)</span>"));
    assert!(a.contains("<span class=\"tb-equation\" id=\"eq-root\"><math"));
    assert!(a.contains("<span class=\"tb-equation-number\">(2)</span>"));
    assert!(
        !a.contains("(3)</span>"),
        "the equation without an id has no number"
    );
    assert!(!a.contains("{#eq-"), "the label is not shown");
    assert!(
        a.contains("<a class=\"tb-ref\" href=\"#eq-root\">Gleichung (2)</a> teilt"),
        "{a}"
    );
    let b = text(&files, "b.html");
    assert!(
        b.contains("<a class=\"tb-ref\" href=\"a.html#eq-softmax\">Gleichung (1) in <em>"),
        "{b}"
    );
}

#[test]
fn a_heading_is_referred_to_by_its_automatic_id_here_on_its_page_or_by_page() {
    let site = TempSite::new(&sites_dir().join("valid/longform"));
    let append = |file: &str, text: &str| {
        let path = site.root().join("content").join(file);
        let mut body = std::fs::read_to_string(&path).unwrap();
        body.push_str(text);
        std::fs::write(&path, body).unwrap();
    };
    append("a.md", "\n## Zusammenfassung\n\nKurz.\n");
    append(
        "b.md",
        "\n## Zusammenfassung\n\nSiehe {{ ref listen }}, {{ ref a#zusammenfassung }} \
         und {{ ref zusammenfassung }}.\n",
    );
    // The build checks every anchor: the ids refs computed are the ones the pages render.
    tracebook_site::build(site.root(), None).unwrap_or_else(|d| panic!("{d}"));
    let files = read_tree(&site.root().join("public"));
    let b = text(&files, "b.html");
    assert!(b.contains("href=\"a.html#listen\""), "{b}");
    assert!(b.contains("href=\"a.html#zusammenfassung\""), "{b}");
    assert!(
        b.contains("<a class=\"tb-ref\" href=\"#zusammenfassung\">"),
        "the same page's heading first: {b}"
    );

    append("b.md", "\nNoch {{ ref zusamenfassung }}.\n");
    let err = tracebook_site::check(site.root()).unwrap_err().to_string();
    assert!(
        err.contains("no figure, heading or equation has the id `zusamenfassung`"),
        "{err}"
    );
    assert!(err.contains("did you mean `zusammenfassung`?"), "{err}");
}
