//! How long building the built-in tokenizer (and the lighter `Vocab`) takes, and how fast it
//! encodes, next to tiktoken.
//!
//! Run with `cargo run --release -p tracebook-tokenizer --example speed`.

use std::time::{Duration, Instant};

use tracebook_tokenizer::{Tokenizer, Vocab};

const BUILD_RUNS: usize = 7;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let builds = time_runs(BUILD_RUNS, || Tokenizer::builtin_gpt2().map(drop))?;
    let tiktoken_builds = time_runs(BUILD_RUNS, || tiktoken_rs::r50k_base().map(drop))?;
    println!(
        "builtin_gpt2():        median {:>7.1} ms  (min {:.1} ms, {BUILD_RUNS} runs)",
        ms(median(&builds)),
        ms(builds[0])
    );
    println!(
        "tiktoken r50k_base(): median {:>7.1} ms (for comparison)",
        ms(median(&tiktoken_builds))
    );

    let tokenizer = Tokenizer::builtin_gpt2()?;
    let dir = std::env::temp_dir().join(format!("tracebook-speed-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("tokenizer.json");
    std::fs::write(&path, tokenizer.to_json()?)?;
    let loads = time_runs(BUILD_RUNS, || Tokenizer::from_file(&path).map(drop))?;
    println!(
        "from_file(tokenizer.json): median {:>4.1} ms",
        ms(median(&loads))
    );
    let vocab_builtin = time_runs(BUILD_RUNS, || Vocab::builtin_gpt2().map(drop))?;
    let vocab_loads = time_runs(BUILD_RUNS, || Vocab::from_file(&path).map(drop))?;
    println!(
        "Vocab::builtin_gpt2(): median {:>7.1} ms; Vocab::from_file(tokenizer.json): median {:.1} ms",
        ms(median(&vocab_builtin)),
        ms(median(&vocab_loads))
    );
    std::fs::remove_dir_all(&dir)?;

    let text = sample_text();
    let reference = tiktoken_rs::r50k_base()?;
    let started = Instant::now();
    let tokens = tokenizer.encode(&text)?;
    let ours = started.elapsed();
    let started = Instant::now();
    let expected = reference.encode_ordinary(&text);
    let theirs = started.elapsed();
    assert_eq!(tokens.len(), expected.len(), "token counts differ");
    let mb = text.len() as f64 / 1e6;
    println!(
        "encode {:.2} MB ({} tokens): ours {:.0} ms ({:.2} MB/s, {:.0}k tokens/s), \
         tiktoken encode_ordinary {:.0} ms ({:.2} MB/s)",
        mb,
        tokens.len(),
        ms(ours),
        mb / ours.as_secs_f64(),
        tokens.len() as f64 / ours.as_secs_f64() / 1e3,
        ms(theirs),
        mb / theirs.as_secs_f64()
    );

    let prompt = "The animal didn't cross the street because it was too tired";
    let runs = 2000;
    let started = Instant::now();
    for _ in 0..runs {
        tokenizer.encode(prompt)?;
    }
    println!(
        "encode one prompt ({} tokens): {:.1} µs each",
        tokenizer.encode(prompt)?.len(),
        started.elapsed().as_secs_f64() * 1e6 / runs as f64
    );
    Ok(())
}

/// Runs `f` `runs` times; the durations come back sorted.
fn time_runs<E: Into<Box<dyn std::error::Error>>>(
    runs: usize,
    mut f: impl FnMut() -> Result<(), E>,
) -> Result<Vec<Duration>, Box<dyn std::error::Error>> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        f().map_err(Into::into)?;
        times.push(started.elapsed());
    }
    times.sort();
    Ok(times)
}

fn median(sorted: &[Duration]) -> Duration {
    sorted[sorted.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// About 1 MB of English-like prose with code, numbers and some non-ASCII, varied enough
/// that the BPE caches do not answer everything.
fn sample_text() -> String {
    let words = [
        "the",
        "robots",
        "will",
        "bring",
        "attention",
        "transformer",
        "layer",
        "residual",
        "stream",
        "don't",
        "it's",
        "café",
        "日本語",
        "🤖",
        "fn main() {}",
        "3.14159",
        "x += 1;",
        "https://example.com/a?b=c",
        "\n\n",
        "   ",
        "Hello,",
        "world!",
        "naïve",
        "embedding",
    ];
    let mut seed: u64 = 42;
    let mut text = String::with_capacity(1_100_000);
    while text.len() < 1_000_000 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let word = words[(seed >> 33) as usize % words.len()];
        text.push_str(word);
        if (seed >> 20).is_multiple_of(7) {
            text.push_str(&format!("{}", seed % 100_000));
        }
        text.push(' ');
    }
    text
}
