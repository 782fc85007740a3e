//! A site traced with each Llama-family architecture, as an author makes one: `dev test-model
//! --arch`, `init`, `trace`, `build`. Every figure kind that applies to a rotary, RMSNorm, gated
//! model draws its trace (grouped-query attention included); the kinds that draw a part of
//! GPT-2 the model lacks refuse by name, and nothing is written.

use std::path::Path;

#[path = "support/cli.rs"]
mod cli;

/// The kinds that apply to every family, with the options each needs.
const APPLIES: [(&str, &str); 22] = [
    ("tokens", ""),
    ("attention", "layer = 1\nhead = 3"),
    ("attention-steps", "layer = 1\nhead = 3"),
    ("attention-grid", ""),
    ("heads", "layer = 1"),
    ("head-mix", "layer = 1"),
    ("residual", ""),
    ("logit-lens", ""),
    ("next-token", ""),
    ("logits", ""),
    ("temperature", ""),
    ("sampling", ""),
    ("generation", ""),
    ("beam", ""),
    ("qkv", "layer = 1"),
    ("embedding", ""),
    ("gqa", "layer = 1"),
    ("rope", "layer = 1\nhead = 3"),
    ("rmsnorm", "layer = 1\nnorm = \"ln2\""),
    ("gated-mlp", "layer = 1"),
    ("architecture", ""),
    ("shapes", "layer = 1"),
];

/// The kinds that draw GPT-2's parts, with what the refusal names.
const REFUSED: [(&str, &str, &str); 4] = [
    ("positional", "", "RoPE"),
    ("embedding-sum", "", "RoPE"),
    ("layernorm", "layer = 1", "RMSNorm"),
    ("mlp", "layer = 1", "gated MLP"),
];

fn article(blocks: &[(&str, &str)]) -> String {
    let mut text = "+++\ntitle = \"Figures\"\ndescription = \"Every kind.\"\n+++\n".to_string();
    for (kind, options) in blocks {
        text += &format!("\n```figure {kind}\nprompt = \"robots\"\n{options}\n```\n");
    }
    text
}

fn site(arch: &str, sets: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let in_root = |args: &[&str]| {
        cli::command(root)
            .current_dir(root)
            .args(args)
            .output()
            .unwrap()
    };
    let mut args = vec!["dev", "test-model", "model", "--arch", arch];
    for set in sets {
        args.extend(["--set", set]);
    }
    cli::ok(&in_root(&args), "dev test-model");
    cli::ok(&in_root(&["init", "site", "-q"]), "init");
    let site = root.join("site");
    let toml = std::fs::read_to_string(site.join("tracebook.toml")).unwrap();
    let toml = toml
        .replace("id = \"tracebook-mini-en\"", "id = \"../model\"")
        .replace(
            "robots = \"The robots will bring\"",
            "robots = { text = \"The robots will bring us tea\", generate = 3, beams = 2 }",
        );
    std::fs::write(site.join("tracebook.toml"), toml).unwrap();
    dir
}

/// How many numbers the checkpoint's model.safetensors holds.
fn parameter_count(model: &Path) -> usize {
    let bytes = std::fs::read(model.join("model.safetensors")).unwrap();
    let header_len = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + header_len]).unwrap();
    header
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| *k != "__metadata__")
        .map(|(_, v)| {
            v["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .product::<usize>()
        })
        .sum()
}

/// 1234567 as "1,234,567".
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn write_article(site: &Path, blocks: &[(&str, &str)]) {
    std::fs::write(site.join("content/figures.md"), article(blocks)).unwrap();
}

#[test]
fn every_family_draws_the_kinds_that_apply_and_refuses_the_others_by_name() {
    for (arch, sets) in [
        ("llama", &[][..]),
        ("mistral", &["sliding_window=3"][..]),
        ("qwen2", &[][..]),
        ("qwen3", &[][..]),
        ("gemma", &["num_key_value_heads=1"][..]),
    ] {
        let dir = site(arch, sets);
        let site = dir.path().join("site");
        write_article(&site, &APPLIES);
        cli::ok(&cli::run(&site, &["trace", "-q"]), "trace");
        let built = cli::ok(&cli::run(&site, &["build"]), "build");
        // The 22 above and the sample article's one.
        assert!(built.contains("23 figures"), "{arch}: {built}");
        let page = std::fs::read_to_string(site.join("public/figures.html")).unwrap();
        assert!(page.matches("<svg").count() >= 22, "{arch}");
        // The diagram is the family's, with the checkpoint's parameter count.
        let model = dir.path().join("model");
        let parameters = parameter_count(&model);
        assert!(
            page.contains("RMSNorm 1")
                && page.contains("gated MLP")
                && !page.contains("LayerNorm 1"),
            "{arch}"
        );
        assert!(
            page.contains(&format!("({}", thousands(parameters))),
            "{arch}: {parameters} parameters in the checkpoint"
        );

        let refused: Vec<(&str, &str)> = REFUSED.iter().map(|(k, o, _)| (*k, *o)).collect();
        write_article(&site, &refused);
        let out = cli::run(&site, &["build"]);
        assert!(!out.status.success(), "{arch}");
        let err = cli::text(&out.stderr);
        for (kind, _, said) in REFUSED {
            assert!(
                err.contains(&format!("figure `{kind}` draws")) && err.contains(said),
                "{arch} {kind}: {err}"
            );
        }
        assert!(err.contains(&format!("a {arch} model")), "{err}");
        // The failed build left the previous site as it was.
        let after = std::fs::read_to_string(site.join("public/figures.html")).unwrap();
        assert_eq!(after, page, "{arch}");
    }
}

/// The kinds that draw only what the Llama family has, with the GPT-2 kind each refusal
/// points to.
const LLAMA_ONLY: [(&str, &str, &str); 3] = [
    ("rope", "layer = 1\nhead = 0", "`positional`"),
    ("rmsnorm", "layer = 1", "`layernorm`"),
    ("gated-mlp", "layer = 1", "`mlp`"),
];

#[test]
fn a_gpt2_site_refuses_the_llama_only_kinds_by_name_and_draws_gqa() {
    let dir = site("gpt2", &[]);
    let site = dir.path().join("site");
    write_article(&site, &[("gqa", "")]);
    cli::ok(&cli::run(&site, &["trace", "-q"]), "trace");
    cli::ok(&cli::run(&site, &["build"]), "build");
    let page = std::fs::read_to_string(site.join("public/figures.html")).unwrap();
    assert!(page.contains("each with its own key and value"), "{page}");

    let refused: Vec<(&str, &str)> = LLAMA_ONLY.iter().map(|(k, o, _)| (*k, *o)).collect();
    write_article(&site, &refused);
    let out = cli::run(&site, &["build"]);
    assert!(!out.status.success());
    let err = cli::text(&out.stderr);
    for (kind, _, instead) in LLAMA_ONLY {
        assert!(
            err.contains(&format!("figure `{kind}` draws"))
                && err.contains(&format!("see {instead}")),
            "{kind}: {err}"
        );
    }
    assert!(err.contains("a gpt2 model: GPT-2"), "{err}");
}
