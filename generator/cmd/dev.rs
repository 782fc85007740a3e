//! `tracebook dev` (hidden): developer helpers, such as writing a random-weights test model.

use std::path::{Path, PathBuf};
use std::time::Instant;
use tracebook_model::config::seq2seq::{Seq2SeqConfig, Seq2SeqKind};
use tracebook_model::testmodel::{write_test_model, KeyLayout, StoredDtype, TestModelSpec, SHAPES};
use tracebook_model::{Family, Model, NoRecorder, TensorRecorder};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: DevCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum DevCommand {
    /// Write a model folder (GPT-2 or a Llama-family architecture) with deterministic
    /// pseudo-random weights.
    TestModel {
        /// Where to write config.json, model.safetensors and tokenizer.json.
        dir: PathBuf,
        /// tiny (2 layers, 4 heads, 64 wide), or GPT-2's sizes: small (12×12×768),
        /// medium (24×16×1024), large (36×20×1280), xl (48×25×1600).
        #[arg(long, default_value = "tiny")]
        shape: String,
        /// The architecture: gpt2, or llama, mistral, qwen2, qwen3, gemma (2 layers, 4 query
        /// heads sharing 2 key/value heads, 64 wide; change any field with --set), or the
        /// encoder-decoders marian and bart (2 + 2 layers, 4 heads, 64 wide, 96 tokens; no
        /// tokenizer).
        #[arg(long, default_value = "gpt2")]
        arch: String,
        /// Write keys as `h.0...` (bare) or `transformer.h.0...` (save_pretrained).
        #[arg(long, default_value = "transformer")]
        layout: String,
        #[arg(long)]
        seed: Option<u64>,
        /// Set a config.json field, e.g. `--set activation_function=gelu`
        /// `--set tie_word_embeddings=false` (repeatable; values are JSON or bare strings).
        #[arg(long = "set", value_name = "FIELD=VALUE")]
        set: Vec<String>,
        /// How the weights are stored: f32, f16 or bf16.
        #[arg(long, default_value = "f32")]
        dtype: String,
        /// Split the weights over N shard files with a model.safetensors.index.json.
        #[arg(long, default_value_t = 1)]
        shards: usize,
    },
    /// Time forward passes (traced and plain) on a prompt of N tokens; prints medians in ms.
    BenchForward {
        /// The model folder.
        model: PathBuf,
        #[arg(long, default_value_t = 16)]
        tokens: usize,
        #[arg(long, default_value_t = 20)]
        runs: usize,
    },
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        DevCommand::TestModel {
            dir,
            shape,
            arch,
            layout,
            seed,
            set,
            dtype,
            shards,
        } => {
            if let Some(kind) = Seq2SeqKind::from_model_type(&arch) {
                return seq2seq_test_model(&dir, kind, (&set, &dtype, shards, seed));
            }
            let Some(mut spec) = TestModelSpec::shape(&shape) else {
                let names: Vec<&str> = SHAPES.iter().map(|s| s.0).collect();
                anyhow::bail!("unknown shape {shape:?}: use {}", names.join(", "));
            };
            if arch != "gpt2" {
                let Some(family) = Family::from_model_type(&arch) else {
                    anyhow::bail!(
                        "unknown architecture {arch:?}: use {}",
                        tracebook_model::config::supported()
                    );
                };
                if shape != "tiny" {
                    anyhow::bail!(
                        "--shape {shape} is GPT-2's; a {arch} test model starts tiny (change its \
                         sizes with --set hidden_size=... --set num_hidden_layers=...)"
                    );
                }
                spec = TestModelSpec::family(family);
            }
            for assignment in &set {
                let (field, value) = assignment
                    .split_once('=')
                    .ok_or_else(|| anyhow::anyhow!("--set {assignment:?}: write FIELD=VALUE"))?;
                spec.config = spec
                    .config
                    .with(field, value)
                    .map_err(|e| anyhow::anyhow!("--set {assignment}: {e}"))?;
            }
            spec.dtype = match dtype.as_str() {
                "f32" => StoredDtype::F32,
                "f16" => StoredDtype::F16,
                "bf16" => StoredDtype::BF16,
                other => anyhow::bail!("unknown dtype {other:?}: use f32, f16 or bf16"),
            };
            spec.shards = shards;
            spec.layout = match layout.as_str() {
                "bare" => KeyLayout::Bare,
                "transformer" => KeyLayout::Transformer,
                other => anyhow::bail!("unknown layout {other:?}: use bare or transformer"),
            };
            if let Some(seed) = seed {
                spec.seed = seed;
            }
            write_test_model(&dir, &spec)?;
            outln!("wrote a {shape} test model to {}", dir.display());
            Ok(())
        }
        DevCommand::BenchForward {
            model,
            tokens,
            runs,
        } => bench_forward(&model, tokens, runs),
    }
}

/// `dev test-model DIR --arch marian|bart`: the tiny encoder-decoder, with `--set` fields.
fn seq2seq_test_model(
    dir: &Path,
    kind: Seq2SeqKind,
    (set, dtype, shards, seed): (&[String], &str, usize, Option<u64>),
) -> anyhow::Result<()> {
    let mut config = Seq2SeqConfig::tiny(kind);
    for assignment in set {
        let (field, value) = assignment
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--set {assignment:?}: write FIELD=VALUE"))?;
        config = config
            .with(field, value)
            .map_err(|e| anyhow::anyhow!("--set {assignment}: {e}"))?;
    }
    let dtype = match dtype {
        "f32" => StoredDtype::F32,
        "f16" => StoredDtype::F16,
        "bf16" => StoredDtype::BF16,
        other => anyhow::bail!("unknown dtype {other:?}: use f32, f16 or bf16"),
    };
    if shards != 1 {
        anyhow::bail!("an encoder-decoder test model is one file: leave out --shards");
    }
    let seed = seed.unwrap_or(TestModelSpec::tiny().seed);
    tracebook_model::seq2seq::testmodel::write(dir, &config, seed, dtype)?;
    outln!(
        "wrote a tiny {} test model to {}",
        kind.model_type(),
        dir.display()
    );
    Ok(())
}

fn bench_forward(dir: &Path, tokens: usize, runs: usize) -> anyhow::Result<()> {
    let id = dir.display().to_string();
    let model = Model::load(tracebook_model::source::from_dir(&id, dir)?)?;
    // Token ids 1000, 1001, ...: content does not change the cost of a forward pass.
    let ids: Vec<u32> = (1000..1000 + tokens as u32).collect();
    let time = |traced: bool| -> anyhow::Result<f64> {
        let mut ms = Vec::with_capacity(runs);
        for _ in 0..runs + 2 {
            let start = Instant::now();
            if traced {
                let mut rec = TensorRecorder::default();
                model.net.forward(&ids, &mut rec)?;
            } else {
                model.net.forward(&ids, &mut NoRecorder)?;
            }
            ms.push(start.elapsed().as_secs_f64() * 1e3);
        }
        ms.drain(..2); // warm-up
        ms.sort_by(f64::total_cmp);
        Ok(ms[ms.len() / 2])
    };
    let traced = time(true)?;
    let plain = time(false)?;
    let threads = candle_core::utils::get_num_threads();
    outln!(
        "{tokens} tokens, median of {runs}: traced forward {traced:.1} ms, plain forward {plain:.1} ms ({threads} threads)"
    );
    Ok(())
}
