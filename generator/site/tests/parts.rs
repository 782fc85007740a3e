//! Parts (docs/authoring.md, "Parts"): a folder of content/ with a `_index.md` groups its
//! articles. The sidebar, home page, previous/next links, print page, feed and sitemap follow
//! the parts, each part gets its own page, and links between parts are checked.

mod support;

use support::TempSite;

fn article(title: &str, weight: i64, body: &str) -> String {
    format!("+++\ntitle = \"{title}\"\ndescription = \"About {title}.\"\nweight = {weight}\n+++\n{body}\n")
}

/// The minimal fixture with a top-level article on each side of two parts.
fn site_in_parts() -> TempSite {
    let site = TempSite::new(&support::sites_dir().join("valid/minimal"));
    site.write("tracebook.toml",
        "title = \"Parts\"\nbase_url = \"https://example.org/parts/\"\n\n[model]\nid = \"test/tiny-gpt2\"\n",
    );
    site.write(
        "content/only.md",
        &article(
            "Preface",
            1,
            "Start with [the basics](01-basics/_index.md).",
        ),
    );
    site.write("content/zz-end.md", &article("Afterword", 9, "The end."));
    site.write(
        "content/01-basics/_index.md",
        &article("Basics", 2, "What the model reads."),
    );
    site.write(
        "content/01-basics/tokens.md",
        &article(
            "Tokens",
            1,
            "## Splitting\nOn to [attention](../02-inside/attention.md#looking).",
        ),
    );
    site.write("content/01-basics/bytes.md", &article("Bytes", 2, "Bytes."));
    site.write(
        "content/02-inside/_index.md",
        &article("Inside a block", 3, "The heart."),
    );
    site.write(
        "content/02-inside/attention.md",
        &article(
            "Attention",
            1,
            "## Looking\nBack to [tokens](../01-basics/tokens.md#splitting).",
        ),
    );
    site
}

/// The text of each `<li>` of the first list with class `class` on `html`, in order.
fn list_items(html: &str, class: &str) -> Vec<String> {
    let start = html
        .find(class)
        .unwrap_or_else(|| panic!("no {class} in\n{html}"));
    let list = &html[start..html[start..].find("</ol>").unwrap() + start];
    list.split("<li")
        .skip(1)
        .map(|item| {
            let kind = if item.starts_with(" class=\"tb-sidebar-part\"")
                || item.starts_with(" class=\"tb-series-part\"")
            {
                "part: "
            } else {
                ""
            };
            let text: String = support::strip_tags(item.split_once('>').unwrap().1);
            format!("{kind}{}", text.trim())
        })
        .collect()
}

#[test]
fn the_sidebar_home_page_and_pager_follow_the_parts() {
    let site = site_in_parts();
    let report = tracebook_site::build(site.root(), None).unwrap_or_else(|d| panic!("{d}"));
    assert!(report.warnings.is_empty(), "{}", report.warnings);
    let sidebar = list_items(&site.page("01-basics/tokens.html"), "tb-sidebar\"");
    assert_eq!(
        sidebar,
        [
            "Preface",
            "part: Basics",
            "Tokens",
            "Bytes",
            "part: Inside a block",
            "Attention",
            "Afterword"
        ]
    );
    let home = list_items(&site.page("index.html"), "tb-series\"");
    assert_eq!(home.len(), 7, "{home:?}");
    assert!(home[1].starts_with("part: BasicsAbout Basics."), "{home:?}");
    // Links are relative to the page they are on, a part's heading included.
    let tokens = site.page("01-basics/tokens.html");
    assert!(
        tokens.contains(r#"<li class="tb-sidebar-part"><a href="index.html">Basics</a>"#),
        "{tokens}"
    );
    assert!(tokens.contains(
        r#"<li class="tb-sidebar-part"><a href="../02-inside/index.html">Inside a block</a>"#
    ));
    assert!(
        tokens.contains(r#"<a href="index.html">Basics</a> · Chapter 2 of 5"#),
        "{tokens}"
    );
    assert!(tokens.contains(r#"rel="prev" href="../only.html""#));
    assert!(tokens.contains(r#"rel="next" href="bytes.html""#));
    // From the last article of one part to the first of the next.
    let bytes = site.page("01-basics/bytes.html");
    assert!(
        bytes.contains(r#"rel="next" href="../02-inside/attention.html""#),
        "{bytes}"
    );
}

#[test]
fn a_part_has_its_own_page_listing_its_articles() {
    let site = site_in_parts();
    tracebook_site::build(site.root(), None).unwrap_or_else(|d| panic!("{d}"));
    let part = site.page("01-basics/index.html");
    assert!(part.contains("<title>Basics · Parts</title>"), "{part}");
    assert!(part.contains("What the model reads."));
    // Numbered on from the series: Tokens is the second article.
    assert!(
        part.contains(r#"<ol class="tb-series" style="counter-reset: part 1">"#),
        "{part}"
    );
    assert_eq!(
        list_items(&part, "tb-series\""),
        ["TokensAbout Tokens.", "BytesAbout Bytes."]
    );
    assert!(part.contains(r#"<a href="index.html" aria-current="page">Basics</a>"#));
    assert!(!site.root().join("public/01-basics/_index.html").exists());
}

#[test]
fn print_feed_and_sitemap_follow_the_parts() {
    let site = site_in_parts();
    tracebook_site::build(site.root(), None).unwrap_or_else(|d| panic!("{d}"));
    let print = site.page("print.html");
    let order: Vec<usize> = [
        "id=\"only\"",
        "<section class=\"tb-print-part\" id=\"01-basics-index\"",
        "What the model reads.",
        "id=\"01-basics-tokens\"",
        "id=\"01-basics-bytes\"",
        "<section class=\"tb-print-part\" id=\"02-inside-index\"",
        "id=\"02-inside-attention\"",
        "id=\"zz-end\"",
    ]
    .iter()
    .map(|marker| {
        print
            .find(marker)
            .unwrap_or_else(|| panic!("{marker} missing from\n{print}"))
    })
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    // A link to a part's page becomes a link within print.html.
    assert!(print.contains("href=\"#01-basics-index\""), "{print}");
    let feed = site.page("atom.xml");
    let tokens = feed.find("<title>Tokens</title>").unwrap();
    let entry = &feed[tokens..feed[tokens..].find("</entry>").unwrap() + tokens];
    assert!(entry.contains("<category term=\"Basics\"/>"), "{entry}");
    assert!(
        !feed.contains("<title>Basics</title>"),
        "a part is not an entry of the feed"
    );
    let sitemap = site.page("sitemap.xml");
    assert!(
        sitemap.contains("https://example.org/parts/01-basics/index.html"),
        "{sitemap}"
    );
}

#[test]
fn a_broken_link_between_parts_is_located() {
    let site = site_in_parts();
    site.write(
        "content/02-inside/attention.md",
        &article("Attention", 1, "Back to [tokens](../01-basics/token.md)."),
    );
    let errors = tracebook_site::build(site.root(), None)
        .unwrap_err()
        .to_string();
    assert!(
        errors.contains("content/02-inside/attention.md:6:9: error: link to a missing page `../01-basics/token.md`"),
        "{errors}"
    );
    assert!(
        errors.contains("did you mean `../01-basics/tokens.md`?"),
        "{errors}"
    );
    assert!(!site.root().join("public").exists(), "nothing is written");
}
