//! The site builder over the fixture sites of tests/sites: valid sites build (snapshots of
//! their HTML), twice byte-identically, and pass `check`; every broken site gives exactly the
//! errors in its expected.txt and leaves a previous output untouched.
//!
//! Set TRACEBOOK_BLESS=1 to rewrite the expected.txt files from the current output, and
//! TRACEBOOK_PREVIEW=DIR to keep each valid site's output in DIR/<site> to look at.

mod support;

use std::path::Path;
use support::{fixtures, read_tree, TempSite};

fn build_into(
    site: &TempSite,
    out: &str,
) -> Result<tracebook_site::BuildReport, tracebook_site::Diagnostics> {
    tracebook_site::build(site.root(), Some(&site.root().join(out)))
}

#[test]
fn valid_sites_build_and_match_their_snapshots() {
    for fixture in fixtures("valid") {
        let site = TempSite::new(&fixture);
        let report = build_into(&site, "public").unwrap_or_else(|d| panic!("{}:\n{d}", site.name));
        assert!(report.pages >= 1);
        let files = read_tree(&site.root().join("public"));
        if let Some(preview) = std::env::var_os("TRACEBOOK_PREVIEW") {
            tracebook_site::build(site.root(), Some(&Path::new(&preview).join(&site.name)))
                .unwrap();
        }
        for (path, bytes) in files
            .iter()
            .filter(|(p, _)| p.ends_with(".html") || p.ends_with(".xml"))
        {
            let name = format!("{}__{}", site.name, path.replace('/', "__"));
            let text = without_figure_art(&String::from_utf8(bytes.clone()).unwrap());
            insta::with_settings!({ snapshot_path => "snapshots", prepend_module_to_snapshot => false }, {
                insta::assert_snapshot!(name, text);
            });
        }
    }
}

#[test]
fn every_figure_is_also_a_standalone_svg_file_its_caption_links_to() {
    let site = TempSite::new(&support::sites_dir().join("valid/full"));
    build_into(&site, "public").unwrap_or_else(|d| panic!("{d}"));
    let files = read_tree(&site.root().join("public"));
    let mut linked = 0;
    // print.html shows the articles' figures again (and links the same files): counted once.
    let pages = files
        .iter()
        .filter(|(p, _)| p.ends_with(".html") && p.as_str() != "print.html");
    for (path, bytes) in pages {
        let html = String::from_utf8_lossy(bytes);
        let dir = path
            .rsplit_once('/')
            .map_or(String::new(), |(d, _)| format!("{d}/"));
        for (at, _) in html.match_indices("class=\"tb-figure-download\" href=\"") {
            let rest = &html[at + "class=\"tb-figure-download\" href=\"".len()..];
            let href = &rest[..rest.find('"').unwrap()];
            let file = files
                .get(&format!("{dir}{href}"))
                .unwrap_or_else(|| panic!("{path} links to {href}, which was not written"));
            let svg = String::from_utf8(file.clone()).unwrap();
            let svg = svg
                .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
                .expect("an XML declaration");
            assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
            let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
            // The drawing is the page's: its title element is the same.
            let title = doc.descendants().find(|n| n.has_tag_name("title")).unwrap();
            let title_text = title.text().unwrap();
            assert!(
                html.contains(&format!(">{title_text}</title>")),
                "{href} is the figure the page shows"
            );
            // The caption and the model credit travel with the file.
            let footer: Vec<&str> = doc
                .descendants()
                .filter(|n| n.has_tag_name("text"))
                .filter(|n| {
                    n.parent()
                        .is_some_and(|p| p.attribute("class") == Some("tb-standalone-caption"))
                })
                .filter_map(|n| n.text())
                .collect();
            let footer = footer.join(" ");
            assert!(footer.contains("test/tiny-gpt2"), "{href}: {footer}");
            let page_caption = html[..html.find(&format!("href=\"{href}\"")).unwrap()]
                .rsplit("<span class=\"tb-figure-number\">")
                .next()
                .unwrap();
            let words = page_caption
                .split("</span>")
                .nth(1)
                .unwrap_or("")
                .split('<')
                .next()
                .unwrap()
                .trim();
            assert!(
                footer.contains(words),
                "{href}: caption {words:?} not in {footer:?}"
            );
            linked += 1;
        }
    }
    let figures = files
        .keys()
        .filter(|p| p.ends_with(".svg") && p.contains(".figure-"))
        .count();
    assert_eq!(linked, 3, "the full fixture's three figures are linked");
    assert_eq!(figures, linked, "one file per figure, each linked");
}

#[test]
fn captions_say_whether_a_figure_was_traced_computed_or_read_from_the_config() {
    let site = TempSite::new(&support::sites_dir().join("valid/full"));
    let page = site.root().join("content/tokens.md");
    let mut text = std::fs::read_to_string(&page).unwrap();
    text.push_str(
        "\n```figure sinusoidal\nprompt = \"robots\"\n```\n\n```figure architecture\nprompt = \"robots\"\n```\n",
    );
    std::fs::write(&page, text).unwrap();
    build_into(&site, "public").unwrap_or_else(|d| panic!("{d}"));
    let html = std::fs::read_to_string(site.root().join("public/tokens.html")).unwrap();
    let captions: Vec<&str> = html
        .match_indices("<span class=\"tb-figure-model\">")
        .map(|(at, tag)| {
            let rest = &html[at + tag.len()..];
            &rest[..rest.find("</span>").unwrap()]
        })
        .collect();
    let model = "<code>test/tiny-gpt2</code>";
    assert_eq!(
        captions,
        [
            format!("Traced with {model}."),
            format!("Computed, not traced, at the width of {model}."),
            format!("Sizes from the config of {model}."),
        ]
    );
}

/// The figures crate owns (and snapshots) its SVG; these snapshots are about the page
/// around it, so each inline `<svg>…</svg>` is replaced by a marker.
fn without_figure_art(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find("<svg") {
        let end = rest[start..]
            .find("</svg>")
            .map_or(rest.len(), |e| start + e + "</svg>".len());
        out.push_str(&rest[..start]);
        out.push_str("<svg><!-- figure art --></svg>");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn valid_sites_pass_check_and_check_writes_nothing() {
    for fixture in fixtures("valid") {
        let site = TempSite::new(&fixture);
        let before = read_tree(site.root());
        let report =
            tracebook_site::check(site.root()).unwrap_or_else(|d| panic!("{}:\n{d}", site.name));
        assert!(report.pages >= 1);
        assert_eq!(
            read_tree(site.root()),
            before,
            "{}: check wrote files",
            site.name
        );
    }
}

#[test]
fn two_builds_are_byte_identical() {
    for fixture in fixtures("valid") {
        let site = TempSite::new(&fixture);
        build_into(&site, "one").unwrap();
        build_into(&site, "two").unwrap();
        let one = read_tree(&site.root().join("one"));
        assert!(!one.is_empty());
        assert!(
            one == read_tree(&site.root().join("two")),
            "{}: builds differ",
            site.name
        );
    }
}

/// Stands in expected.txt for the list of figure kinds, which grows with the figures crate.
const KINDS_MARK: &str = "{FIGURE_KINDS}";

fn figure_kinds() -> String {
    let kinds: Vec<String> = tracebook_figures::kinds()
        .iter()
        .map(|k| format!("`{k}`"))
        .collect();
    kinds.join(", ")
}

#[test]
fn broken_sites_give_their_exact_errors_and_keep_the_previous_output() {
    let bless = std::env::var_os("TRACEBOOK_BLESS").is_some();
    let broken = fixtures("broken");
    assert!(
        broken.len() >= 30,
        "the corpus has {} broken sites",
        broken.len()
    );
    let mut failures = Vec::new();
    for fixture in broken {
        let site = TempSite::new(&fixture);
        let public = site.root().join("public");
        std::fs::create_dir_all(&public).unwrap();
        std::fs::write(public.join("index.html"), "previous build").unwrap();
        let errors = match tracebook_site::build(site.root(), None) {
            Ok(_) => {
                failures.push(format!("== {}: the build succeeded", site.name));
                continue;
            }
            Err(diagnostics) => diagnostics.to_string(),
        };
        assert_eq!(
            read_tree(&public).len(),
            1,
            "{}: the failed build touched public/",
            site.name
        );
        assert_eq!(
            std::fs::read_to_string(public.join("index.html")).unwrap(),
            "previous build",
            "{}",
            site.name
        );
        let expected_file = fixture.join("expected.txt");
        if bless {
            std::fs::write(&expected_file, errors.replace(&figure_kinds(), KINDS_MARK)).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_file)
            .unwrap_or_default()
            .replace(KINDS_MARK, &figure_kinds());
        if errors != expected {
            failures.push(format!(
                "== {}\n-- expected:\n{expected}-- got:\n{errors}",
                site.name
            ));
        }
        assert!(
            tracebook_site::check(site.root()).is_err(),
            "{}: check passed",
            site.name
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn hostile_text_comes_out_escaped() {
    let site = TempSite::new(&support::sites_dir().join("valid/hostile"));
    build_into(&site, "public").unwrap_or_else(|d| panic!("{d}"));
    let files = read_tree(&site.root().join("public"));
    for (path, bytes) in files.iter().filter(|(p, _)| p.ends_with(".html")) {
        let html = String::from_utf8_lossy(bytes);
        // The only scripts are the site's own files and the figures' JSON numbers.
        for (at, _) in html.match_indices("<script") {
            let rest = &html[at..];
            let own_file = rest
                .strip_prefix("<script defer src=\"")
                .map(|src| src.trim_start_matches("../"))
                .is_some_and(|src| {
                    ["tracebook.js", "search-index.js", "tracebook-search.js"]
                        .iter()
                        .any(|own| src.starts_with(&format!("{own}\"></script>")))
                });
            let numbers = rest.starts_with("<script type=\"application/json\" class=\"tb-live\">");
            // The built-in 404 page's own: it finds the site's root at any depth.
            let root_finder =
                path == "404.html" && rest.starts_with("<script class=\"tb-find-root\">");
            assert!(own_file || numbers || root_finder, "{path}: raw <script>");
        }
        assert_eq!(
            html.matches("<svg").count(),
            html.matches("</svg>").count(),
            "{path}: unbalanced svg"
        );
        assert!(
            !html.contains("\"><b>"),
            "{path}: an attribute was broken out of"
        );
    }
    let article = String::from_utf8_lossy(&files["evil.html"]);
    assert!(
        article.contains("&lt;script&gt;"),
        "the hostile title is shown, escaped"
    );
}

#[test]
fn a_build_from_another_folder_uses_the_root_given() {
    let site = TempSite::new(&support::sites_dir().join("valid/minimal"));
    let out = tempfile::tempdir().unwrap();
    let target = out.path().join("site");
    tracebook_site::build(site.root(), Some(&target)).unwrap();
    assert!(target.join("index.html").is_file());
    assert!(Path::new(&target.join("tracebook.css")).is_file());
}

/// `prob` agrees with `top_prob` for the likeliest token (found from the trace's own texts),
/// and for any other token equals the softmax of the trace's last logits at its id.
/// The minimal fixture with the prompt `cats` (its trace is in the fixture's traces/).
fn minimal_with_cats() -> TempSite {
    let site = TempSite::new(&support::sites_dir().join("valid/minimal"));
    let root = site.root();
    let config = std::fs::read_to_string(root.join("tracebook.toml")).unwrap();
    std::fs::write(
        root.join("tracebook.toml"),
        format!("{config}\n[prompts]\ncats = \"I like cats and\"\n"),
    )
    .unwrap();
    TempSite::new(root)
}

/// The text of every number an article prints, in order.
fn printed_numbers(html: &str) -> Vec<&str> {
    html.split("tb-number\"")
        .skip(1)
        .map(|s| s.split_once('>').unwrap().1.split('<').next().unwrap())
        .collect()
}

#[test]
fn probabilities_match_the_trace() {
    let site = minimal_with_cats();
    let trace = tracebook_trace::Trace::read(&site.root().join("traces/cats.json")).unwrap();
    let ids = trace.tensor("logits.topk_ids").unwrap();
    let k = ids.shape[1];
    let top = ids.data[ids.data.len() - k] as u32;
    let top_text = trace.meta.token_texts[&top].clone();
    let quoted = top_text.replace('\\', "\\\\").replace('"', "\\\"");
    let article = format!("+++\ntitle = \"P\"\n+++\n\n[{{{{ top_prob cats 1 }}}}] [{{{{ prob cats \"{quoted}\" }}}}] [{{{{ prob cats \" dogs\" }}}}]\n");
    std::fs::write(site.root().join("content/only.md"), article).unwrap();
    build_into(&site, "public").unwrap_or_else(|d| panic!("{d}"));
    let html = std::fs::read_to_string(site.root().join("public/only.html")).unwrap();
    let values = printed_numbers(&html);
    assert_eq!(values.len(), 3, "{html}");
    assert_eq!(values[0], values[1]);
    let logits = trace.tensor("logits.last").unwrap().data;
    let dogs = tracebook_tokenizer::Tokenizer::builtin_gpt2()
        .unwrap()
        .single_token(" dogs")
        .unwrap();
    let max = logits.iter().copied().fold(f32::MIN, f32::max) as f64;
    let sum: f64 = logits.iter().map(|&l| (l as f64 - max).exp()).sum();
    let p = (logits[dogs as usize] as f64 - max).exp() / sum;
    // The site's one rounding for percentages.
    assert_eq!(values[2], tracebook_figures::percent(p), "p = {p}");
}

/// `{{ value PROMPT EXPRESSION }}` computes any claims expression with the claims' own
/// functions: the same numbers as the dedicated inline functions, arithmetic between them,
/// and a token's text; a value that is no one number says how to get one.
#[test]
fn a_value_may_be_any_claims_expression() {
    let site = minimal_with_cats();
    let article = "+++\ntitle = \"P\"\n+++\n\n[{{ top_prob cats 1 }}] [{{ value cats top_prob(1) }}] \
        [{{ value cats prob(guess(1)) | percent }}] [{{ value cats (top_prob(1) - top_prob(2)) * 100 | digits(3) }}] \
        [{{ value cats max(logits.last) - min(logits.last) | digits(4) }}]\n\n\
        The top is {{ top cats 1 }}, also {{ value cats text(guess(1)) }}.\n";
    std::fs::write(site.root().join("content/only.md"), article).unwrap();
    build_into(&site, "public").unwrap_or_else(|d| panic!("{d}"));
    let html = std::fs::read_to_string(site.root().join("public/only.html")).unwrap();
    let values = printed_numbers(&html);
    assert_eq!(values.len(), 5, "{html}");
    assert_eq!(values[0], values[1]);
    assert_eq!(values[0], values[2]);
    let trace = tracebook_trace::Trace::read(&site.root().join("traces/cats.json")).unwrap();
    let logits = trace.tensor("logits.last").unwrap().data;
    let max = logits.iter().copied().fold(f32::MIN, f32::max) as f64;
    let min = logits.iter().copied().fold(f32::MAX, f32::min) as f64;
    assert_eq!(values[4], tracebook_site::significant(max - min, 4));
    let lead: f64 = values[3].parse().unwrap();
    assert!(lead >= 0.0, "{}", values[3]);
    let tokens: Vec<&str> = html
        .split("tb-token\"")
        .skip(1)
        .map(|s| s.split_once('>').unwrap().1.split('<').next().unwrap())
        .collect();
    assert_eq!(tokens.len(), 2, "{html}");
    assert_eq!(tokens[0], tokens[1]);

    for (wrong, says) in [
        (
            "{{ value cats logits.last * 2 }}",
            "not one number to print",
        ),
        ("{{ value cats top_prob(1) > 0 }}", "true or false"),
        (
            "{{ value cats logits.last[0:3] - logits.last[0:4] }}",
            "entry by entry needs one shape",
        ),
    ] {
        let article = format!("+++\ntitle = \"P\"\n+++\n\nA {wrong}\n");
        std::fs::write(site.root().join("content/only.md"), article).unwrap();
        let errors = build_into(&site, "public").expect_err(wrong).to_string();
        assert!(errors.contains(says), "{wrong}: {errors}");
        assert!(errors.contains("only.md:5:"), "{wrong}: {errors}");
    }
}

#[test]
fn figures_that_name_one_scale_share_its_limits_and_say_so() {
    let site = TempSite::new(&support::sites_dir().join("valid/scales"));
    build_into(&site, "public").unwrap_or_else(|d| panic!("{d}"));
    let html = std::fs::read_to_string(site.root().join("public/shared.html")).unwrap();
    let figures: Vec<&str> = html.split("<figure ").skip(1).collect();
    assert_eq!(figures.len(), 5);
    // A legend's tick labels: the texts of the group after its title.
    let ticks = |figure: &str, title: &str| -> Vec<String> {
        let at = figure.find(&format!(">{title}</text>")).expect(title);
        let rest = &figure[at..];
        let start = rest.find("<g text-anchor=\"middle\">").expect("ticks");
        let group = &rest[start..start + rest[start..].find("</g>").unwrap()];
        group
            .split("</text>")
            .filter_map(|t| t.rsplit_once('>').map(|(_, label)| label.to_string()))
            .filter(|label| !label.trim().is_empty())
            .collect()
    };
    let scores = "score q·k/√dₕ";
    assert_eq!(ticks(figures[0], scores), ticks(figures[1], scores));
    assert_eq!(ticks(figures[0], scores).len(), 3);
    let value = "embedding value";
    assert_eq!(ticks(figures[2], value), ticks(figures[3], value));
    assert_eq!(ticks(figures[3], value), ticks(figures[4], "value"));
    for (figure, line) in [
        (
            figures[0],
            "colour scale shared with 1 other figure (scale \"scores\")",
        ),
        (
            figures[3],
            "colour scale shared with 2 other figures (scale \"embed\")",
        ),
        (
            figures[4],
            "colour scale shared with 2 other figures (scale \"embed\")",
        ),
    ] {
        // A note wrapped to the figure's width is one <text> of a <tspan> per line.
        let mut plain = figure.replace("</tspan>", "");
        while let Some(start) = plain.find("<tspan") {
            let end = start + plain[start..].find('>').unwrap() + 1;
            plain.replace_range(start..end, "");
        }
        assert!(plain.contains(line), "{line} in {figure}");
    }
}

#[test]
fn a_number_is_written_in_the_format_its_author_asks() {
    let site = minimal_with_cats();
    let trace = tracebook_trace::Trace::read(&site.root().join("traces/cats.json")).unwrap();
    let pattern = trace.tensor("blocks.0.attn.pattern").unwrap();
    let n = pattern.shape[1];
    // Head 0, the last query, the first key.
    let x = f64::from(pattern.data[(n - 1) * n]);
    let article = "+++\ntitle = \"P\"\n+++\n\n\
        [{{ value cats blocks.0.attn.pattern[0,-1,0] | percent }}] \
        [{{ value cats blocks.0.attn.pattern[0,-1,0] | digits(2) }}] \
        [{{ value cats blocks.0.attn.pattern[0,-1,0] }}]\n";
    std::fs::write(site.root().join("content/only.md"), article).unwrap();
    build_into(&site, "public").unwrap_or_else(|d| panic!("{d}"));
    let html = std::fs::read_to_string(site.root().join("public/only.html")).unwrap();
    let values = printed_numbers(&html);
    assert_eq!(values.len(), 3, "{html}");
    assert_eq!(values[0], tracebook_figures::percent(x), "x = {x}");
    let decimals = (1 - x.log10().floor() as i64) as usize;
    assert_eq!(values[1], format!("{x:.decimals$}"), "x = {x}");
    assert!(values[2].len() > values[1].len(), "{values:?}");

    let wrong = "+++\ntitle = \"P\"\n+++\n\n{{ count cats | percent }} {{ value cats blocks.0.attn.pattern[0,0,0] | digit(2) }}\n";
    std::fs::write(site.root().join("content/only.md"), wrong).unwrap();
    let err = tracebook_site::check(site.root()).unwrap_err().to_string();
    assert!(
        err.contains("only numbers take a format, and this gives a whole number"),
        "{err}"
    );
    assert!(err.contains("unknown format `digit(2)`"), "{err}");
    assert!(err.contains("did you mean `digits(3)`?"), "{err}");
}
