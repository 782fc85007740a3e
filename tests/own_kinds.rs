//! [own-kinds]: a figure kind of the author's own, as an author makes one from an empty folder:
//! `tracebook new-kind` starts it, a block draws it like a built-in kind (numbered, captioned,
//! downloadable, its numbers the trace's), `tracebook figure` pastes it as a fragment, and each
//! mistake is reported where it is (the template's line and column, the declaration's, the
//! block's) with nothing written.

#[path = "support/cli.rs"]
mod cli;

use cli::text;
use std::path::Path;
use std::process::Output;

fn tracebook(root: &Path, args: &[&str]) -> Output {
    cli::run(root, args)
}

/// A new site with the starter kind `last-look` and an article drawing it.
fn site_with_kind(dir: &Path) -> std::path::PathBuf {
    let site = dir.join("site");
    let out = cli::command(dir)
        .args(["init", site.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = tracebook(&site, &["new-kind", "last-look"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("```figure last-look"));
    let article = site.join("content/tokens.md");
    let mut body = std::fs::read_to_string(&article).unwrap();
    body.push_str(BLOCK);
    std::fs::write(&article, body).unwrap();
    site
}

const BLOCK: &str =
    "\n```figure last-look\nprompt = \"robots\"\nlayer = 1\nhead = 2\ncaption = \"Mine.\"\n```\n";

/// Line `n` (1-based) of the article, where the block's `head = 2` is.
fn line_of(site: &Path, needle: &str) -> usize {
    let body = std::fs::read_to_string(site.join("content/tokens.md")).unwrap();
    body.lines().position(|l| l == needle).unwrap() + 1
}

#[test]
fn an_authors_kind_draws_like_a_built_in_one() {
    let temp = tempfile::tempdir().unwrap();
    let site = site_with_kind(temp.path());
    let out = tracebook(&site, &["build"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = std::fs::read_to_string(site.join("public/tokens.html")).unwrap();
    assert!(
        page.contains("class=\"tb-figure tb-figure-last-look\""),
        "the frame of every figure"
    );
    assert!(page.contains("tbf-own-last-look"));
    assert!(page.contains("Mine."), "its caption");
    // Its numbers are the trace's: the head's weights from the last token, as percentages.
    let trace = tracebook_trace::Trace::read(&site.join("traces/robots.json")).unwrap();
    let pattern = trace.tensor("blocks.1.attn.pattern").unwrap();
    let t = trace.meta.tokens.len();
    let weight = pattern.data[2 * t * t + (t - 1) * t];
    let printed = tracebook_trace::percent(f64::from(weight));
    assert!(
        page.contains(&format!(">{printed}</text>")),
        "{printed} in the figure"
    );
    assert!(
        page.contains(&format!("\"The\" {printed}")),
        "and in its alt text"
    );
    // Its own SVG to download, like every figure's.
    let svg = std::fs::read_to_string(site.join("public/tokens.figure-2.svg")).unwrap();
    assert!(svg.contains("tbf-own-last-look"));

    let listed = text(&tracebook(&site, &["figures"]).stdout);
    assert!(
        listed.contains("last-look  Where the last token looks"),
        "{listed}"
    );
    let described = text(&tracebook(&site, &["figures", "last-look"]).stdout);
    assert!(
        described.contains("layer: integer, default 0, at least 0"),
        "{described}"
    );

    // A fragment for any page, as `tracebook figure` draws built-in kinds.
    let block = temp.path().join("block.md");
    std::fs::write(&block, BLOCK.trim_start()).unwrap();
    let fragment = temp.path().join("fragment.html");
    let out = tracebook(
        &site,
        &[
            "figure",
            block.to_str().unwrap(),
            "--html",
            fragment.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&fragment)
        .unwrap()
        .contains("tbf-own-last-look"));
}

#[test]
fn each_mistake_is_reported_where_it_is() {
    let temp = tempfile::tempdir().unwrap();
    let site = site_with_kind(temp.path());
    let template = site.join("figures/last-look.svg");
    let good = std::fs::read_to_string(&template).unwrap();
    let build_error = |site: &Path| {
        let out = tracebook(site, &["build"]);
        assert!(!out.status.success());
        assert!(!site.join("public").exists(), "nothing is written");
        text(&out.stderr)
    };

    // The template's syntax: its file, line and column.
    std::fs::write(&template, good.replace("{% endfor -%}", "")).unwrap();
    let stderr = build_error(&site);
    assert!(stderr.contains("figures/last-look.svg:"), "{stderr}");
    std::fs::write(&template, &good).unwrap();

    // The declaration's: its file and line.
    let declared = site.join("figures/last-look.toml");
    let toml = std::fs::read_to_string(&declared).unwrap();
    std::fs::write(
        &declared,
        toml.replace(
            "type = \"integer\"\ndefault = 0\nmin = 0\nhelp = \"the head",
            "type = \"int\"\ndefault = 0\nmin = 0\nhelp = \"the head",
        ),
    )
    .unwrap();
    let stderr = build_error(&site);
    assert!(stderr.contains("figures/last-look.toml:"), "{stderr}");
    std::fs::write(&declared, &toml).unwrap();

    // A block's option out of the model's range: at the block, naming the template's place.
    let article = site.join("content/tokens.md");
    let body = std::fs::read_to_string(&article).unwrap();
    let mistaken = |from: &str, to: &str| {
        std::fs::write(&article, body.replace(from, to)).unwrap();
        build_error(&site)
    };
    let stderr = mistaken("head = 2", "head = 9");
    let block = line_of(&site, "```figure last-look");
    assert!(
        stderr.contains(&format!("content/tokens.md:{block}:")),
        "{stderr}"
    );
    assert!(stderr.contains("out of range"), "{stderr}");
    // A misspelt option: at its own line, with the nearest one.
    let stderr = mistaken("head = 2", "heda = 2");
    let line = line_of(&site, "heda = 2");
    assert!(
        stderr.contains(&format!("content/tokens.md:{line}:1")),
        "{stderr}"
    );
    assert!(stderr.contains("did you mean `head`"), "{stderr}");
    // A misspelt kind suggests the site's own.
    let stderr = mistaken("```figure last-look", "```figure last-lok");
    assert!(stderr.contains("last-look"), "{stderr}");
    std::fs::write(&article, &body).unwrap();
    let out = tracebook(&site, &["build"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// The code block of docs/authoring.md that starts with `# figures/NAME` or `{# figures/NAME`,
/// without that first line.
fn documented(docs: &str, file: &str) -> String {
    let marks = [format!("# {file}\n"), format!("{{# {file} #}}\n")];
    let start = marks
        .iter()
        .find_map(|m| docs.find(m.as_str()).map(|at| at + m.len()))
        .unwrap_or_else(|| panic!("docs/authoring.md shows {file}"));
    let end = start + docs[start..].find("\n```").unwrap();
    docs[start..end].to_string() + "\n"
}

#[test]
fn the_docs_walkthroughs_draw_as_written() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/authoring.md"))
            .unwrap();
    let temp = tempfile::tempdir().unwrap();
    let site = site_with_kind(temp.path());
    for name in ["neuron", "loss-bars"] {
        for ext in ["svg", "toml"] {
            let file = format!("figures/{name}.{ext}");
            std::fs::write(site.join(&file), documented(&docs, &file)).unwrap();
        }
    }
    let config = site.join("tracebook.toml");
    let mut toml = std::fs::read_to_string(&config).unwrap();
    toml = toml.replace(
        "robots = \"The robots will bring\"",
        "robots = \"The robots will bring\"\ncats = \"The cat sat on the mat\"",
    );
    std::fs::write(&config, toml).unwrap();
    let out = tracebook(&site, &["trace"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let article = site.join("content/tokens.md");
    let mut body = std::fs::read_to_string(&article).unwrap();
    body.push_str(
        "\n```figure neuron\nprompt = \"robots\"\nneuron = 7\ncaption = \"One neuron.\"\n```\n",
    );
    body.push_str(
        "\n```figure loss-bars\nprompts = [\"robots\", \"cats\"]\ncaption = \"Two losses.\"\n```\n",
    );
    std::fs::write(&article, body).unwrap();
    let out = tracebook(&site, &["build"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = std::fs::read_to_string(site.join("public/tokens.html")).unwrap();
    assert!(page.contains("tbf-own-neuron") && page.contains("tbf-own-loss-bars"));
    assert!(
        page.contains("Mean loss per token: \"The robots will bring\""),
        "the alt text"
    );
}
