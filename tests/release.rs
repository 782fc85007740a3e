//! The release as a maintainer cuts it: `.github/workflows/release.yml` on a tag checks that the
//! version and `repository` agree with the tag and the repository, publishes every crate with
//! `.github/publish.sh` (run here against a stand-in registry index on 127.0.0.1), and uploads
//! the binaries where every tracebook, and so the Pages workflow `init` writes, looks for them.

#[path = "support/files_server.rs"]
mod files_server;
#[path = "authoring/yaml.rs"]
mod yaml;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// The workspace's crates and, for each, the workspace crates it depends on by path.
fn members() -> HashMap<String, Vec<String>> {
    let out = Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let names: Vec<String> = (packages.iter())
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    (packages.iter())
        .map(|p| {
            let deps = (p["dependencies"].as_array().unwrap().iter())
                .filter(|d| d["path"].is_string())
                .map(|d| d["name"].as_str().unwrap().to_string())
                .filter(|d| names.contains(d))
                .collect();
            (p["name"].as_str().unwrap().to_string(), deps)
        })
        .collect()
}

#[test]
fn publish_sh_publishes_every_crate_after_its_dependencies_and_skips_those_published() {
    let temp = tempfile::tempdir().unwrap();
    let version = env!("CARGO_PKG_VERSION");
    // tracebook-trace is on the registry already (a release that failed halfway): its line in
    // the sparse index, at the path crates.io's index gives a name of 5 letters or more.
    let published =
        format!("{{\"name\":\"tracebook-trace\",\"vers\":\"{version}\",\"deps\":[]}}\n");
    let index = files_server::serve(HashMap::from([(
        "tr/ac/tracebook-trace".to_string(),
        published.into_bytes(),
    )]));
    // cargo itself for everything but `publish`, which is logged instead of uploading.
    let real = std::env::var("CARGO").unwrap_or("cargo".into());
    let log = temp.path().join("published.log");
    let stub = temp.path().join("cargo");
    std::fs::write(
        &stub,
        format!(
            "#!/bin/sh\nif [ \"$1\" = publish ]; then echo \"$3\" >> {}; exit 0; fi\nexec {real} \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&stub).status().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .arg(repo.join(".github/publish.sh"))
        .env("CARGO", &stub)
        .env("TRACEBOOK_INDEX", &index)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("tracebook-trace {version}: already published")),
        "{stdout}"
    );

    let order: Vec<String> = (std::fs::read_to_string(&log).unwrap().lines())
        .map(str::to_string)
        .collect();
    let members = members();
    let mut expected: Vec<&String> = members.keys().filter(|n| *n != "tracebook-trace").collect();
    expected.sort();
    let mut got: Vec<&String> = order.iter().collect();
    got.sort();
    assert_eq!(
        got, expected,
        "every crate but the published one, once each"
    );
    for (i, name) in order.iter().enumerate() {
        for dep in &members[name] {
            if dep != "tracebook-trace" {
                let at = order.iter().position(|n| n == dep).unwrap();
                assert!(
                    at < i,
                    "{name} was published before its dependency {dep}: {order:?}"
                );
            }
        }
    }
}

#[test]
fn the_release_workflow_builds_linux_macos_and_windows_on_a_tag_as_binstall_and_pages_expect() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(repo.join(".github/workflows/release.yml")).unwrap();
    let doc = yaml::parse(&text);
    let tags = doc.get("on").get("push").get("tags").seq();
    assert_eq!(tags[0].str(), "v*");
    let job = doc.get("jobs").get("binaries");
    let targets: Vec<&str> = job
        .get("strategy")
        .get("matrix")
        .get("include")
        .seq()
        .iter()
        .map(|m| m.get("target").str())
        .collect();
    assert_eq!(
        targets,
        [
            "x86_64-unknown-linux-gnu",
            "aarch64-apple-darwin",
            "x86_64-pc-windows-msvc"
        ]
    );
    // They are uploaded to this repository's releases, which `repository` names (checked
    // before anything is built or published), where every tracebook looks for them.
    assert_eq!(job.get("needs").str(), "check");
    let check: String = (doc.get("jobs").get("check").get("steps").seq().iter())
        .filter(|s| s.has("run"))
        .map(|s| s.get("run").str())
        .collect();
    assert!(
        check.contains("want=\"https://github.com/$GITHUB_REPOSITORY\""),
        "{check}"
    );
    assert!(check.contains("^repository = "), "{check}");
    // Every crate is published, dependencies first, with the registry token secret.
    let publish = doc.get("jobs").get("publish");
    assert_eq!(publish.get("needs").str(), "check");
    let step = (publish.get("steps").seq().iter())
        .find(|s| s.has("run") && s.get("run").str().contains("publish.sh"))
        .expect("a step runs .github/publish.sh");
    assert_eq!(
        step.get("env").get("CARGO_REGISTRY_TOKEN").str(),
        "${{ secrets.CARGO_REGISTRY_TOKEN }}"
    );
    let runs: String = job
        .get("steps")
        .seq()
        .iter()
        .filter(|s| s.has("run"))
        .map(|s| s.get("run").str())
        .collect();
    assert!(runs.contains("cargo build --release --locked"), "{runs}");
    assert!(
        runs.contains("tracebook-${{ matrix.target }}.tar.gz"),
        "{runs}"
    );
    assert!(runs.contains("gh release upload"), "{runs}");
    // cargo-binstall and the Pages workflow look for the same archive name.
    let manifest = std::fs::read_to_string(repo.join("Cargo.toml")).unwrap();
    assert!(manifest.contains(
        "pkg-url = \"{ repo }/releases/download/v{ version }/tracebook-{ target }{ archive-suffix }\""
    ));
    let pages = std::fs::read_to_string(repo.join("generator/cmd/init/pages.yml")).unwrap();
    assert!(pages.contains(
        "$TRACEBOOK_RELEASES/download/v$TRACEBOOK_VERSION/tracebook-x86_64-unknown-linux-gnu.tar.gz"
    ));
}
