//! `tracebook train` as a user runs it: bad input exits non-zero with the file named and
//! writes nothing; a tiny run leaves a folder that `tracebook trace` reads.

#[path = "support/cli.rs"]
mod cli;

use std::path::Path;
use std::process::Output;

fn train(dir: &Path, corpus: &Path, extra: &[&str]) -> Output {
    cli::command(dir)
        .arg("train")
        .arg("--corpus")
        .arg(corpus)
        .arg("--out")
        .arg(dir.join("out"))
        .args(["--layers", "1", "--width", "16", "--context", "16"])
        .args(if extra.contains(&"--heads") {
            &[][..]
        } else {
            &["--heads", "2"][..]
        })
        .args(extra)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    cli::text(&o.stderr)
}

#[test]
fn bad_corpora_and_shapes_fail_with_the_cause_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let cases = [
        (
            dir.path().join("nowhere.txt"),
            vec![],
            "nowhere.txt: the corpus file does not exist",
        ),
        (
            write("blank.txt", b""),
            vec![],
            "blank.txt: the corpus is empty",
        ),
        (
            write("bytes.txt", b"ok\n\xff\xfe"),
            vec![],
            "bytes.txt: the corpus is not UTF-8 text: invalid byte at offset 3 (line 2)",
        ),
        (
            write("tiny.txt", b"Just a few words."),
            vec![],
            "tiny.txt: the corpus has 5 tokens, too few",
        ),
        (
            write("fine.txt", "word ".repeat(2000).as_bytes()),
            vec!["--heads", "3"],
            "--width 16 is not divisible by --heads 3",
        ),
    ];
    for (corpus, extra, expected) in cases {
        let o = train(dir.path(), &corpus, &extra);
        assert!(!o.status.success(), "{expected}");
        assert!(
            stderr(&o).contains(expected),
            "wanted {expected:?} in:\n{}",
            stderr(&o)
        );
        assert!(stderr(&o).contains("hint:"), "{}", stderr(&o));
        assert!(!dir.path().join("out").exists());
    }
}

#[test]
fn a_tiny_run_writes_a_folder_that_trace_reads() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c.txt");
    std::fs::write(
        &corpus,
        "The cat sat on the mat. The dog ran in the park. ".repeat(40),
    )
    .unwrap();
    let o = train(
        dir.path(),
        &corpus,
        &["--steps", "4", "--warmup", "1", "--batch-size", "2"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("trained 4 steps"), "{stdout}");
    assert!(stdout.contains("bigram baseline"), "{stdout}");

    let again = train(dir.path(), &corpus, &["--steps", "4", "--warmup", "1"]);
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("pass --resume"),
        "{}",
        stderr(&again)
    );

    let trace = dir.path().join("t.json");
    let o = cli::command(dir.path())
        .args([
            "trace",
            "--precision",
            "f32",
            "--prompt",
            "The cat",
            "--out",
        ])
        .arg(&trace)
        .arg("--model")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(trace.is_file());
}
