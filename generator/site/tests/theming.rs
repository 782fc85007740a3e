//! The theming contract of docs/authoring.md: every documented block of base.html can be
//! overridden, `extra_css` and `extra_head` reach every page, the partials can be replaced, and a
//! theme that drops the model credit is warned about.

mod support;

use support::TempSite;

fn minimal() -> TempSite {
    TempSite::new(&support::sites_dir().join("valid/minimal"))
}

#[test]
fn every_documented_block_can_be_overridden() {
    let site = minimal();
    site.write("templates/article.html",
        r#"{% extends "base.html" %}
{% block title %}T-BLOCK{% endblock title %}
{% block description %}D-BLOCK{% endblock description %}
{% block head %}<meta name="x-head" content="H-BLOCK">{% endblock head %}
{% block header %}<p>HEADER-BLOCK</p>{% endblock header %}
{% block main %}<p>MAIN-BLOCK {{ page.title }}</p>{% endblock main %}
{% block colophon %}<p class="tb-model-credit">COLOPHON-BLOCK {{ models | join(sep=", ") }}</p>{% endblock colophon %}
{% block footer %}<p>FOOTER-BLOCK</p>{% endblock footer %}
"#,
    );
    let report = tracebook_site::build(site.root(), None).unwrap_or_else(|d| panic!("{d}"));
    let html = site.page("only.html");
    for marker in [
        "<title>T-BLOCK</title>",
        "content=\"D-BLOCK\"",
        "content=\"H-BLOCK\"",
        "HEADER-BLOCK",
        "MAIN-BLOCK",
        "COLOPHON-BLOCK test/tiny-gpt2",
        "FOOTER-BLOCK",
    ] {
        assert!(html.contains(marker), "{marker} missing:\n{html}");
    }
    assert!(
        !html.contains("tb-search"),
        "the header block replaced the search box"
    );
    assert!(report.warnings.is_empty(), "{}", report.warnings);
}

/// Every page names an icon of its own (inline, so it needs no file at any depth and no
/// request): browsers otherwise ask every site for a `/favicon.ico` it does not have.
#[test]
fn every_page_has_an_icon_and_asks_for_no_favicon_file() {
    let site = minimal();
    tracebook_site::build(site.root(), None).unwrap_or_else(|d| panic!("{d}"));
    for name in ["index.html", "only.html", "404.html"] {
        let html = site.page(name);
        assert_eq!(html.matches("rel=\"icon\"").count(), 1, "{name}");
        assert!(
            html.contains("rel=\"icon\" href=\"data:image/svg+xml,"),
            "{name}"
        );
    }
}

#[test]
fn extra_css_and_extra_head_reach_every_page_and_partials_can_be_replaced() {
    let site = minimal();
    let config = std::fs::read_to_string(site.root().join("tracebook.toml")).unwrap();
    let config = config.replacen(
        "\n[model]",
        "extra_css = [\"extra.css\"]\nextra_head = '<link rel=\"icon\" href=\"favicon.svg\">'\n\n[model]",
        1,
    );
    site.write("tracebook.toml", &config);
    site.write("static/extra.css", "body { color: teal; }\n");
    site.write(
        "static/favicon.svg",
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n",
    );
    site.write("templates/partials/footer.html", "<p>My own footer</p>\n");
    tracebook_site::build(site.root(), None).unwrap_or_else(|d| panic!("{d}"));
    for name in ["index.html", "only.html"] {
        let html = site.page(name);
        let css = html.find("href=\"extra.css\"").expect("extra.css linked");
        assert!(
            html.find("href=\"tracebook.css\"").unwrap() < css,
            "after tracebook.css"
        );
        assert!(
            html.contains("<link rel=\"icon\" href=\"favicon.svg\">"),
            "{html}"
        );
        assert_eq!(
            html.matches("rel=\"icon\"").count(),
            1,
            "the author's icon alone"
        );
        assert!(
            html.contains("My own footer") && !html.contains("Built with"),
            "{html}"
        );
        assert!(html.contains("tb-model-credit") && html.contains("tb-search"));
    }
    assert!(site.root().join("public/extra.css").is_file());

    // A style sheet that is not there is a broken link, like any other.
    site.write(
        "tracebook.toml",
        &config.replace("extra.css", "missing.css"),
    );
    let err = tracebook_site::build(site.root(), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing.css"), "{err}");
}

#[test]
fn a_theme_that_drops_the_model_credit_is_warned_about() {
    let site = minimal();
    let base = tracebook_site::DEFAULT_TEMPLATES
        .iter()
        .find(|(n, _)| *n == "base.html")
        .unwrap()
        .1
        .replace("{% include \"partials/model-credit.html\" %}", "");
    site.write("templates/base.html", &base);
    let report = tracebook_site::build(site.root(), None).unwrap_or_else(|d| panic!("{d}"));
    let warnings = report.warnings.to_string();
    assert!(
        // The article, the home page and print.html.
        warnings.contains("warning: 3 page(s)") && warnings.contains("partials/model-credit.html"),
        "{warnings}"
    );
    let report = tracebook_site::check(site.root()).unwrap();
    assert_eq!(report.warnings.len(), 1);
    assert!(report.to_string().contains("no errors, 1 warning(s)"));
}

#[test]
fn an_article_without_a_description_builds_with_a_warning_at_its_line() {
    let site = minimal();
    site.write(
        "content/bare.md",
        "+++\ntitle = \"Bare\"\ndescription = \"\"\n+++\n\nText.\n",
    );
    let report = tracebook_site::build(site.root(), None).unwrap_or_else(|d| panic!("{d}"));
    let warnings = report.warnings.to_string();
    assert!(
        warnings.contains("content/bare.md:3:1: warning: this article's description is empty"),
        "{warnings}"
    );
    assert_eq!(
        report.warnings.len(),
        1,
        "an article without the key chose none: {warnings}"
    );
}

#[test]
fn figures_and_code_blocks_render_through_their_partials() {
    let site = TempSite::new(&support::sites_dir().join("valid/full"));
    site.write("content/code.md",
        "+++\ntitle = \"Code\"\ndescription = \"d\"\n+++\n\n```rust\nfn main() {}\n```\n\n```text\na < b\n```\n\n    indented\n",
    );
    site.write("templates/partials/figure.html",
        r#"<div class="my-figure" id="{{ figure.id }}" data-kind="{{ figure.kind }}">{{ figure.svg | safe }}<p>{{ words.figure }} {{ figure.number }}: {{ figure.caption }} ({{ figure.download }})</p></div>"#,
    );
    site.write(
        "templates/partials/code.html",
        r#"<div class="my-code" data-language="{{ language }}"><pre>{{ code | safe }}</pre></div>"#,
    );
    tracebook_site::build(site.root(), None).unwrap_or_else(|d| panic!("{d}"));
    let tokens = site.page("tokens.html");
    assert!(
        tokens.contains("<div class=\"my-figure\" id=\"figure-1\" data-kind=\"tokens\"><svg"),
        "{tokens}"
    );
    assert!(tokens.contains("<p>Figure 1: "), "{tokens}");
    assert!(!tokens.contains("<figure"), "the built-in wrapper is gone");
    let code = site.page("code.html");
    assert!(
        code.contains("<div class=\"my-code\" data-language=\"rust\"><pre><span class=\"tb-hl-"),
        "{code}"
    );
    assert!(
        code.contains("<div class=\"my-code\" data-language=\"text\"><pre>a &lt; b\n</pre></div>"),
        "{code}"
    );
    assert!(
        code.contains("<div class=\"my-code\" data-language=\"\"><pre>indented\n</pre></div>"),
        "{code}"
    );
}

#[test]
fn a_broken_figure_partial_is_an_error_in_its_file() {
    let site = TempSite::new(&support::sites_dir().join("valid/full"));
    site.write(
        "templates/partials/figure.html",
        "<div>{{ figure.nope.deeper }}</div>",
    );
    let err = tracebook_site::build(site.root(), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("templates/partials/figure.html:1:"), "{err}");
    assert!(err.contains("`nope` is not defined"), "{err}");
}

/// The scales fixture (figures on the signed and the unit ramp), with `base_url` for preview
/// images and `theme` (a `[theme]` table's lines) when given.
fn scales_site(theme: Option<&str>) -> TempSite {
    let site = TempSite::new(&support::sites_dir().join("valid/scales"));
    let config = std::fs::read_to_string(site.root().join("tracebook.toml")).unwrap();
    let mut config = config.replacen(
        "\n[model]",
        "base_url = \"https://example.org/scales/\"\n\n[model]",
        1,
    );
    if let Some(theme) = theme {
        config.push_str(&format!("\n[theme]\n{theme}\n"));
    }
    site.write("tracebook.toml", &config);
    tracebook_site::build(site.root(), None).unwrap_or_else(|d| panic!("{d}"));
    site
}

fn figure_files(site: &TempSite) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(site.root().join("public"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().to_string();
            name.ends_with(".svg")
                .then(|| (name.clone(), site.page(&name)))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_theme_colours_inline_figures_downloads_previews_and_the_page_alike() {
    let site = scales_site(Some(
        "accent = \"#b5472d\"\nsequential = \"greens\"\ndiverging = \"purple-orange\"",
    ));
    let html = site.page("shared.html");
    assert!(
        html.contains("<style>:root{--accent:#b5472d;--figure-accent:#b5472d;--token-bg:#"),
        "the page's custom properties: live figures and links follow them"
    );
    let files = figure_files(&site);
    assert!(files.len() >= 4, "{files:?}");
    let mut signed = 0;
    for (name, svg) in &files {
        assert!(
            svg.contains("--tbf-accent:var(--figure-accent,#b5472d)"),
            "{name}"
        );
        // The default accent and the default ramps' ends are gone.
        for default in ["#2f6bd8", "#6f9ff0", "#2166ac", "#edf5fc"] {
            assert!(!svg.contains(default), "{name} keeps {default}");
        }
        if svg.contains(".tbf-v0{") {
            signed += 1;
            // ColorBrewer PuOr's purple end for the most negative bin.
            assert!(
                svg.contains(".tbf .tbf-v0{fill:var(--figure-div-0,#542788)"),
                "{name}"
            );
        }
        // The inline figure is the same drawing as the download.
        let style = &svg[svg.find("<style>").unwrap()..svg.find("</style>").unwrap()];
        assert!(html.contains(style), "{name}'s style is not the page's");
    }
    assert!(signed > 0, "no figure used the diverging palette");
    let plain = scales_site(None);
    let preview =
        |site: &TempSite| std::fs::read(site.root().join("public/shared.preview.png")).unwrap();
    assert_ne!(
        preview(&site),
        preview(&plain),
        "the preview image follows the theme"
    );
    assert!(
        !plain.page("shared.html").contains("<style>:root"),
        "no theme, no style"
    );
}

#[test]
fn a_misspelt_palette_stops_the_build_at_its_value() {
    let site = TempSite::new(&support::sites_dir().join("valid/minimal"));
    let config = std::fs::read_to_string(site.root().join("tracebook.toml")).unwrap();
    site.write(
        "tracebook.toml",
        &format!("{config}\n[theme]\nsequential = \"viridis\"\n"),
    );
    let errors = tracebook_site::build(site.root(), None)
        .unwrap_err()
        .to_string();
    assert!(
        errors.contains("tracebook.toml:7:14: error: there is no sequential palette \"viridis\""),
        "{errors}"
    );
    assert!(
        errors.contains("`blues`, `greens`, `purples`, `oranges`, `greys`"),
        "{errors}"
    );
}
