//! The Hugging Face hub path of `tracebook trace --model OWNER/NAME`, against a local server on
//! 127.0.0.1 that answers like the hub (tests/support/fake_hub.rs; `HF_ENDPOINT` points the
//! `hf-hub` crate at it): download with progress, the cache layout, a second run offline from the
//! cache, a dropped connection resumed without a corrupt cache, a 404 repository and a gated one.

#[path = "support/cli.rs"]
mod cli;
#[path = "support/fake_hub.rs"]
mod fake_hub;

use fake_hub::{sha256, FakeHub, COMMIT, GATED};
use std::path::{Path, PathBuf};
use std::process::Output;

const REPO: &str = "tb/tiny";

struct Setup {
    temp: tempfile::TempDir,
    model: PathBuf,
}

fn setup() -> Setup {
    let temp = tempfile::tempdir().unwrap();
    let model = temp.path().join("served");
    let out = cli::command(temp.path())
        .args(["dev", "test-model"])
        .arg(&model)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    Setup { temp, model }
}

use cli::text;

/// `tracebook trace --prompt … --model ID` with the cache in the test's folder.
fn trace(s: &Setup, endpoint: &str, id: &str, extra: &[&str]) -> Output {
    cli::command(s.temp.path())
        .current_dir(s.temp.path())
        .args([
            "trace",
            "--prompt",
            "The robots will bring",
            "--out",
            "t.json",
            "--model",
            id,
        ])
        .args(extra)
        .env("HF_HOME", s.temp.path().join("hf"))
        .env("HF_ENDPOINT", endpoint)
        .env_remove("HF_TOKEN")
        .output()
        .unwrap()
}

fn repo_cache(s: &Setup) -> PathBuf {
    s.temp.path().join("hf/hub/models--tb--tiny")
}

fn traced_sha(s: &Setup) -> String {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.temp.path().join("t.json")).unwrap())
            .unwrap();
    json["meta"]["model"]["weights_sha256"]
        .as_str()
        .unwrap()
        .to_string()
}

fn weights_sha(dir: &Path) -> String {
    sha256(&std::fs::read(dir.join("model.safetensors")).unwrap())
}

#[test]
fn a_hub_model_downloads_with_progress_into_the_cache_and_then_works_offline() {
    let s = setup();
    let hub = FakeHub::start(REPO, &s.model);
    let out = trace(&s, &hub.url, REPO, &[]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("downloading model.safetensors (")
            && stderr.contains("downloaded model.safetensors"),
        "{stderr}"
    );
    let expected = weights_sha(&s.model);
    // The cache layout the Hugging Face tools share: blobs by etag, a snapshot per commit, refs.
    let cache = repo_cache(&s);
    assert_eq!(
        sha256(&std::fs::read(cache.join("blobs").join(&expected)).unwrap()),
        expected
    );
    let pointer = cache
        .join("snapshots")
        .join(COMMIT)
        .join("model.safetensors");
    assert_eq!(weights_sha(pointer.parent().unwrap()), expected);
    assert_eq!(
        std::fs::read_to_string(cache.join("refs/main")).unwrap(),
        COMMIT
    );
    assert_eq!(traced_sha(&s), expected);

    // The server is gone (a closed port): the second run reads the cache, with and without --offline.
    let requests = hub.requests().len();
    for extra in [&[][..], &["--offline"][..]] {
        std::fs::remove_file(s.temp.path().join("t.json")).unwrap();
        let out = trace(&s, "http://127.0.0.1:9", REPO, extra);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            !text(&out.stderr).contains("downloading"),
            "{}",
            text(&out.stderr)
        );
        assert_eq!(traced_sha(&s), expected);
    }
    assert_eq!(hub.requests().len(), requests);
}

#[test]
fn a_dropped_connection_is_resumed_and_never_leaves_a_corrupt_cache() {
    let s = setup();
    let hub = FakeHub::start(REPO, &s.model);
    let expected = weights_sha(&s.model);

    // Once: the retry asks for the rest with a Range header and the file is whole.
    hub.drop_next(1);
    let out = trace(&s, &hub.url, REPO, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let resumed = hub
        .requests()
        .iter()
        .filter(|r| r.contains("model.safetensors") && !r.ends_with(" 0-") && !r.ends_with(" 0-0"))
        .count();
    assert!(resumed >= 1, "no ranged resume among {:?}", hub.requests());
    assert_eq!(traced_sha(&s), expected);
    assert_eq!(
        weights_sha(&repo_cache(&s).join("snapshots").join(COMMIT)),
        expected
    );

    // Every attempt cut off: the run fails, names the model, and the cache holds no
    // model.safetensors (only hf-hub's partial file, which the next run resumes).
    std::fs::remove_dir_all(s.temp.path().join("hf")).unwrap();
    std::fs::remove_file(s.temp.path().join("t.json")).unwrap();
    hub.drop_next(usize::MAX);
    let out = trace(&s, &hub.url, REPO, &[]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("tb/tiny") && stderr.contains("could not be downloaded"),
        "{stderr}"
    );
    let snapshot = repo_cache(&s)
        .join("snapshots")
        .join(COMMIT)
        .join("model.safetensors");
    assert!(
        !snapshot.exists(),
        "a cut-off download was published as the weights"
    );
    assert!(!repo_cache(&s).join("blobs").join(&expected).exists());
    assert!(!s.temp.path().join("t.json").exists());

    hub.drop_next(0);
    let out = trace(&s, &hub.url, REPO, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(traced_sha(&s), expected);
    assert_eq!(weights_sha(snapshot.parent().unwrap()), expected);
}

#[test]
fn an_unknown_repository_and_a_gated_one_say_what_to_do() {
    let s = setup();
    let hub = FakeHub::start(REPO, &s.model);
    let out = trace(&s, &hub.url, "nobody/missing", &[]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("has no model \"nobody/missing\"") && stderr.contains("check the id"),
        "{stderr}"
    );
    let out = trace(&s, &hub.url, GATED, &[]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("gated or private")
            && stderr.contains("HF_TOKEN")
            && stderr.contains("HTTP 401"),
        "{stderr}"
    );
    assert!(!s.temp.path().join("t.json").exists());
}

/// An opus-mt-like repository: a Marian config, its weights, and the tokenizer as Marian ships
/// it (source.spm, target.spm, vocab.json, no tokenizer.json) made to Opus-MT's recipe.
#[test]
fn a_marian_repository_brings_its_sentencepiece_files_and_translates_offline_after() {
    let temp = tempfile::tempdir().unwrap();
    let served = temp.path().join("served");
    let recipe =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizers/marian-recipe");
    let vocab: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(recipe.join("vocab.json")).unwrap()).unwrap();
    let size = vocab.as_object().unwrap().len();
    let pad = size - 1;
    let out = cli::command(temp.path())
        .args(["dev", "test-model"])
        .arg(&served)
        .args(["--arch", "marian", "--set", &format!("vocab_size={size}")])
        .args(["--set", &format!("decoder_start_token_id={pad}")])
        .args(["--set", &format!("pad_token_id={pad}")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    for file in [
        "source.spm",
        "target.spm",
        "vocab.json",
        "tokenizer_config.json",
    ] {
        std::fs::copy(recipe.join(file), served.join(file)).unwrap();
    }
    let hub = FakeHub::start("tb/opus-mt-tiny", &served);
    let s = Setup {
        temp,
        model: served,
    };
    let out = trace(&s, &hub.url, "tb/opus-mt-tiny", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = hub.requests().join("\n");
    for file in ["source.spm", "target.spm", "vocab.json"] {
        assert!(requests.contains(file), "{file} fetched: {requests}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.temp.path().join("t.json")).unwrap())
            .unwrap();
    assert_eq!(json["meta"]["model"]["config"]["model_type"], "marian");
    assert!(json["meta"]["translation"]["tokens"].is_array());
    // The last source token is </s>, as MarianTokenizer ends every text.
    let tokens = json["meta"]["tokens"].as_array().unwrap();
    assert_eq!(tokens.last().unwrap()["text"], "</s>");

    // From the cache, with the server gone.
    std::fs::remove_file(s.temp.path().join("t.json")).unwrap();
    let out = trace(&s, "http://127.0.0.1:9", "tb/opus-mt-tiny", &["--offline"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}
