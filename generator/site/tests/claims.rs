//! Claims on fixture sites: a false claim stops a build but not a `--claims warn` one, a
//! check lists every claim with its verdict, readers get a marker without JavaScript, and
//! `[check]` in tracebook.toml sets both.

mod support;

use support::{sites_dir, TempSite};
use tracebook_site::{ClaimOutcome, ClaimPolicy, ClaimsListFormat, Overrides};

fn warn() -> Overrides {
    Overrides {
        claims: Some(ClaimPolicy::Warn),
        ..Overrides::default()
    }
}

#[test]
fn a_false_claim_stops_the_build_unless_claims_warn() {
    let site = TempSite::new(&sites_dir().join("broken/claim-false"));
    let errors = tracebook_site::build(site.root(), None).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors}");
    assert!(!site.root().join("public").exists(), "nothing is written");
    let report = tracebook_site::build_at(site.root(), None, &warn()).unwrap();
    assert_eq!(report.claims, 2);
    assert_eq!(report.warnings.len(), 1);
    let warning = report.warnings.iter().next().unwrap();
    assert!(warning.warning);
    assert_eq!(
        warning.to_string(),
        errors
            .iter()
            .next()
            .unwrap()
            .to_string()
            .replace("error:", "warning:")
    );
    let html = std::fs::read_to_string(site.root().join("public/a.html")).unwrap();
    assert!(
        html.contains("<abbr class=\"tb-claim tb-claim-false\""),
        "the false claim is marked while the prose is revised"
    );
}

#[test]
fn check_lists_every_claim_with_its_verdict() {
    let site = TempSite::new(&sites_dir().join("broken/claim-false"));
    let report = tracebook_site::check_with(site.root(), &warn()).unwrap();
    let verdicts: Vec<(String, bool)> = report
        .claims
        .iter()
        .map(|c| (c.source.clone(), c.fails()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("token(0) == \"The\"".to_string(), false),
            ("token(1) == \" cats\"".to_string(), true)
        ]
    );
    let list = tracebook_site::claims_list(&report.claims);
    assert_eq!(
        list,
        "content/a.md\n  \
         5:45     holds     {{ claim robots token(0) == \"The\" }}\n           \"The\" == \"The\"\n           \
         carries over: author: \"The\" is a word of the author's text (find it by its text with pos(\"The\"))\n  \
         6:25     FALSE     {{ claim robots token(1) == \" cats\" }}\n           `token(1)` is \" robots\", not \" cats\"\n           \
         carries over: author: position 1 is a place in the author's text (count from the end with negative numbers, or name it by role: last(), pos(\"…\"))\n\
         2 claims: 1 hold, 1 false, 0 not checked\n\
         on a reader's own sentence: 0 carry over as written, 0 where it has their tokens, 2 are about the author's prompt only"
    );

    // For tools: every claim with its place and verdict.
    let json = tracebook_site::claims_list_as(&report.claims, ClaimsListFormat::Json);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["false"], 1);
    assert_eq!(value["held"], 1);
    let second = &value["claims"][1];
    assert_eq!(second["file"], "content/a.md");
    assert_eq!(second["line"], 6);
    assert_eq!(second["column"], 25);
    assert_eq!(second["verdict"], "false");
    assert_eq!(second["claim"], "token(1) == \" cats\"");
    assert_eq!(second["detail"], "`token(1)` is \" robots\", not \" cats\"");
    assert_eq!(second["carries"], "author");
    assert!(second["why"]
        .as_str()
        .unwrap()
        .starts_with("position 1 is a place"));

    // For a pull request's review: a table per page, the false claim first.
    let markdown = tracebook_site::claims_list_as(&report.claims, ClaimsListFormat::Markdown);
    assert_eq!(
        markdown,
        "**2 claims**: 1 hold, 1 false, 0 not checked; a reader's own sentence: 0 carry over as \
         written, 0 where it has their tokens, 2 are about the author's prompt only\n\n\
         ### `content/a.md`\n\n\
         | line | verdict | claim | values | carries over |\n|---:|---|---|---|---|\n\
         | 6 | ❌ **false** | `{{ claim robots token(1) == \" cats\" }}` | `token(1)` is \" robots\", not \" cats\" | \
         author: position 1 is a place in the author's text (count from the end with negative numbers, or name it by role: last(), pos(\"…\")) |\n\
         | 5 | ✅ holds | `{{ claim robots token(0) == \"The\" }}` | \"The\" == \"The\" | \
         author: \"The\" is a word of the author's text (find it by its text with pos(\"The\")) |\n"
    );
}

#[test]
fn readers_see_what_was_checked_without_javascript() {
    let site = TempSite::new(&sites_dir().join("valid/claims"));
    tracebook_site::build(site.root(), None).unwrap();
    let html = std::fs::read_to_string(site.root().join("public/a.html")).unwrap();
    // Each marker: an <abbr> with the claim's verdict as its title and a ✓.
    let markers: Vec<(String, String)> = html
        .split("<abbr class=\"tb-claim\"")
        .skip(1)
        .map(|rest| {
            let title = rest
                .split("title=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            let sign = rest.split('>').nth(1).unwrap().split('<').next().unwrap();
            (title.replace("&quot;", "\""), sign.to_string())
        })
        .collect();
    assert_eq!(markers.len(), 3, "{markers:?}");
    for (title, sign) in &markers {
        assert!(
            title.starts_with("Checked against the trace of “robots”: "),
            "{title}"
        );
        assert_eq!(sign, "✓");
    }
    assert!(
        markers[2].0.ends_with("holds for every q from 0 to 3"),
        "{markers:?}"
    );
    assert!(
        html.contains("tabindex=\"0\""),
        "markers take keyboard focus"
    );
}

#[test]
fn the_config_sets_the_policy_and_the_markers() {
    let site = TempSite::new(&sites_dir().join("broken/claim-false"));
    let config = site.root().join("tracebook.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}\n[check]\nclaims = \"warn\"\nclaim_markers = false\n"),
    )
    .unwrap();
    let report = tracebook_site::build(site.root(), None).unwrap();
    assert_eq!(report.warnings.len(), 1);
    let html = std::fs::read_to_string(site.root().join("public/a.html")).unwrap();
    assert!(!html.contains("tb-claim"), "no markers");
    let strict = Overrides {
        claims: Some(ClaimPolicy::Error),
        ..Overrides::default()
    };
    assert!(
        tracebook_site::check_with(site.root(), &strict).is_err(),
        "--claims error wins over the config"
    );
    std::fs::write(&config, format!("{text}\n[check]\nclaims = \"loud\"\n")).unwrap();
    let errors = tracebook_site::check(site.root()).unwrap_err().to_string();
    assert!(errors.contains("unknown variant `loud`"), "{errors}");
}

#[test]
fn a_prompt_traced_with_its_own_model_is_fresh_and_credited() {
    let site = TempSite::new(&sites_dir().join("valid/claims"));
    let report = tracebook_site::check(site.root()).unwrap();
    assert!(report
        .claims
        .iter()
        .all(|c| matches!(c.outcome, ClaimOutcome::Holds(_))));
    let trace =
        tracebook_trace::Trace::read(&site.root().join("traces/robots_other.json")).unwrap();
    assert_eq!(trace.meta.model.id, "test/other-gpt2");
    assert_eq!(trace.meta.prompt.model.as_deref(), Some("test/other-gpt2"));
}
