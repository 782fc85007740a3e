//! `tracebook train`: train a GPT-2- or Llama-architecture model on a text file, with a
//! progress bar.

use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::time::Instant;
use tracebook_model::train::{
    train, train_translation, Arch, Architecture, Observer, PositionInit, Settings, Start,
    StepRecord, TrainRun, TrainingLog, TranslationRun, WeightsDtype,
};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A UTF-8 text file to train on (GPT-2's tokenizer unless --vocab; the last --val-share is
    /// held out).
    #[arg(long, required_unless_present = "pairs", conflicts_with = "pairs")]
    pub corpus: Option<PathBuf>,
    /// Train a Marian-architecture translation model instead: a UTF-8 file of lines
    /// `source<TAB>target` (a byte-level BPE of --vocab tokens is trained on them first;
    /// --layers is each stack's depth, --context the most tokens a side may have).
    #[arg(long)]
    pub pairs: Option<PathBuf>,
    /// A vocabulary of the model's own: a byte-level BPE of N tokens trained on the corpus
    /// (--corpus; default GPT-2's tokenizer), or the translation model's, shared by both
    /// languages (--pairs) [default: 4096]
    #[arg(long)]
    pub vocab: Option<usize>,
    /// The share of training windows that say a stretch of the corpus twice (the stretch, the
    /// same again, then the text after it), to teach copying from the context [default: 0]
    #[arg(long)]
    pub repeat_share: Option<f64>,
    /// The share of training windows that say a stretch of random tokens (uniform over the
    /// vocabulary) twice, then go on with corpus text: copying of any tokens [default: 0]
    #[arg(long)]
    pub random_repeat_share: Option<f64>,
    /// The share of training windows that say one short stretch of random tokens over and
    /// over until the window is full: the quickest way to teach copying [default: 0]
    #[arg(long)]
    pub cycle_share: Option<f64>,
    /// How GPT-2's learned position table starts: normal (N(0, 0.02²), as GPT-2) or sinusoid
    /// (sines and cosines, in which one step back is the same rotation everywhere, which
    /// helps a head find the previous token) [default: normal]
    #[arg(long)]
    pub position_init: Option<PositionInit>,
    /// A source text to translate at every evaluation, logged (--pairs; repeatable)
    #[arg(long = "sample")]
    pub samples: Vec<String>,
    /// The checkpoint folder (Hugging Face layout); must be new or empty unless --resume.
    #[arg(long)]
    pub out: PathBuf,
    /// Continue the run saved in --out; settings not given are taken from it.
    #[arg(long)]
    pub resume: bool,
    /// Pause after this step (a checkpoint is saved) to continue later with --resume; the
    /// learning-rate schedule stays that of --steps.
    #[arg(long)]
    pub stop_after: Option<usize>,
    /// gpt2 (learned positions, LayerNorm, GELU MLP) or llama (RoPE, RMSNorm, SwiGLU,
    /// grouped-query attention) [default: gpt2]
    #[arg(long)]
    pub arch: Option<Arch>,
    /// Transformer blocks [default: 4]
    #[arg(long)]
    pub layers: Option<usize>,
    /// Attention heads per block [default: 4]
    #[arg(long)]
    pub heads: Option<usize>,
    /// Key/value heads shared by the query heads (--arch llama) [default: half of --heads]
    #[arg(long)]
    pub kv_heads: Option<usize>,
    /// Model width (n_embd), a multiple of --heads [default: 128]
    #[arg(long)]
    pub width: Option<usize>,
    /// Context length in tokens [default: 128]
    #[arg(long)]
    pub context: Option<usize>,
    /// Optimiser steps in total [default: 2000]
    #[arg(long)]
    pub steps: Option<usize>,
    /// Sequences per step [default: 8]
    #[arg(long)]
    pub batch_size: Option<usize>,
    /// Peak learning rate [default: 0.002]
    #[arg(long)]
    pub lr: Option<f64>,
    /// Learning rate at the end of the cosine decay [default: a tenth of --lr]
    #[arg(long)]
    pub min_lr: Option<f64>,
    /// Linear warmup steps [default: 100]
    #[arg(long)]
    pub warmup: Option<usize>,
    /// AdamW weight decay on matrices and embeddings [default: 0.1]
    #[arg(long)]
    pub weight_decay: Option<f64>,
    /// Maximum global gradient norm [default: 1]
    #[arg(long)]
    pub grad_clip: Option<f64>,
    /// Seed for the initial weights and the batches [default: 0]
    #[arg(long)]
    pub seed: Option<u64>,
    /// Share of the corpus held out for validation [default: 0.05]
    #[arg(long)]
    pub val_share: Option<f64>,
    /// Validation windows measured [default: 32]
    #[arg(long)]
    pub val_windows: Option<usize>,
    /// Measure the validation loss every N steps [default: 100]
    #[arg(long)]
    pub eval_every: Option<usize>,
    /// Save a checkpoint every N steps (and at the end) [default: 250]
    #[arg(long)]
    pub checkpoint_every: Option<usize>,
    /// f32 or f16 weights in model.safetensors [default: f32]
    #[arg(long)]
    pub dtype: Option<WeightsDtype>,
    /// Keep copies of the model after these steps, e.g. 0,100,1000 (0 = the initial weights)
    #[arg(long, value_delimiter = ',')]
    pub snapshot_at: Option<Vec<usize>>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    candle_elementwise_on_the_calling_thread();
    let settings = settings(&args)?;
    if let Some(pairs) = &args.pairs {
        return translation(&args, pairs, settings);
    }
    let run = TrainRun {
        corpus: args
            .corpus
            .clone()
            .expect("clap requires --corpus without --pairs"),
        out: args.out.clone(),
        settings,
        resume: args.resume,
        stop_after: args.stop_after,
    };
    let mut bar = Bar::default();
    let log = train(&run, &mut bar)?;
    bar.finish();
    summary(&log, &run.out);
    Ok(())
}

/// `train --pairs`: a translation model, a line per evaluation.
fn translation(args: &Args, pairs: &Path, settings: Settings) -> anyhow::Result<()> {
    if args.resume
        || args.stop_after.is_some()
        || args.arch.is_some()
        || args.repeat_share.is_some()
        || args.random_repeat_share.is_some()
        || args.cycle_share.is_some()
        || args.position_init.is_some()
    {
        anyhow::bail!(
            "--pairs trains a Marian-architecture model from scratch: leave out --arch, \
             --resume, --stop-after, --repeat-share, --random-repeat-share and --position-init"
        );
    }
    let run = TranslationRun {
        pairs: pairs.to_path_buf(),
        out: args.out.clone(),
        settings,
        vocab: args.vocab.unwrap_or(4096),
        samples: args.samples.clone(),
    };
    let mut last = Instant::now();
    let log = train_translation(&run, &mut |step, evaluation| {
        if let Some(e) = evaluation {
            eprintln!(
                "step {} ({:.0} s): loss {:.3}, validation {:.3}",
                step.step, step.seconds, step.loss, e.val_loss
            );
            for (source, output) in &e.samples {
                eprintln!("  {source}  ->  {output}");
            }
        } else if last.elapsed().as_secs() >= 60 {
            eprintln!(
                "step {} ({:.0} s): loss {:.3}",
                step.step, step.seconds, step.loss
            );
            last = Instant::now();
        }
    })?;
    eprintln!(
        "trained on {} pairs ({} held out, {} too long) with {} parameters; saved to {}",
        log.train_pairs,
        log.val_pairs,
        log.too_long,
        log.parameters,
        run.out.display()
    );
    Ok(())
}

/// candle runs elementwise ops on a spinning thread pool of its own, beside rayon's (which runs
/// the matmuls and the loss). On a machine with few cores the two pools' busy-waiting threads
/// outnumber the cores, and each of the many small ops of a training step then waits for a
/// worker the scheduler has set aside: with candle's pool, a step took twice the time and
/// twice the CPU. Unless the user set `CANDLE_NUM_THREADS`, candle's pool gets no workers and
/// its ops run on the calling thread; rayon's pool is unchanged. Call before any candle op
/// (the pool starts with the first) and before other threads exist.
fn candle_elementwise_on_the_calling_thread() {
    if std::env::var_os("CANDLE_NUM_THREADS").is_none() {
        std::env::set_var("CANDLE_NUM_THREADS", "1");
    }
}

/// The saved settings when resuming (else the defaults), overridden by every option given.
fn settings(args: &Args) -> anyhow::Result<Settings> {
    let saved = args.out.join(tracebook_model::train::log::LOG_FILE);
    let base = if args.resume && saved.is_file() {
        TrainingLog::load(&saved)?.settings
    } else {
        Settings::small(Architecture::gpt2(4, 4, 128, 128))
    };
    let a = base.architecture;
    let learning_rate = args.lr.unwrap_or(base.learning_rate);
    let default_min = if args.lr.is_some() {
        learning_rate / 10.0
    } else {
        base.min_learning_rate
    };
    Ok(Settings {
        architecture: Architecture {
            arch: args.arch.unwrap_or(a.arch),
            layers: args.layers.unwrap_or(a.layers),
            heads: args.heads.unwrap_or(a.heads),
            kv_heads: args.kv_heads.or(a.kv_heads),
            width: args.width.unwrap_or(a.width),
            context: args.context.unwrap_or(a.context),
            vocab: if args.pairs.is_some() {
                None
            } else {
                args.vocab.or(a.vocab)
            },
        },
        steps: args.steps.unwrap_or(base.steps),
        batch_size: args.batch_size.unwrap_or(base.batch_size),
        learning_rate,
        min_learning_rate: args.min_lr.unwrap_or(default_min),
        warmup: args.warmup.unwrap_or(base.warmup),
        weight_decay: args.weight_decay.unwrap_or(base.weight_decay),
        grad_clip: args.grad_clip.unwrap_or(base.grad_clip),
        seed: args.seed.unwrap_or(base.seed),
        val_share: args.val_share.unwrap_or(base.val_share),
        val_windows: args.val_windows.unwrap_or(base.val_windows),
        eval_every: args.eval_every.unwrap_or(base.eval_every),
        checkpoint_every: args.checkpoint_every.unwrap_or(base.checkpoint_every),
        dtype: args.dtype.unwrap_or(base.dtype),
        snapshots: args.snapshot_at.clone().unwrap_or(base.snapshots),
        repeat_share: args.repeat_share.unwrap_or(base.repeat_share),
        random_repeat_share: args.random_repeat_share.unwrap_or(base.random_repeat_share),
        cycle_share: args.cycle_share.unwrap_or(base.cycle_share),
        position_init: args.position_init.unwrap_or(base.position_init),
    })
}

/// A progress bar with step, loss, validation loss, tokens/s and ETA.
#[derive(Default)]
struct Bar {
    bar: Option<ProgressBar>,
    clock: Option<(Instant, usize)>,
    tokens_per_step: usize,
    val_loss: Option<f64>,
}

impl Observer for Bar {
    fn started(&mut self, start: &Start) {
        let c = start.corpus;
        eprintln!(
            "corpus {}: {} bytes, {} tokens ({} train, {} validation)",
            c.path, c.bytes, c.tokens, c.train_tokens, c.val_tokens
        );
        eprintln!(
            "model: {} parameters; {} tokens per step",
            start.parameters, start.tokens_per_step
        );
        if let (Some(b), Some(v)) = (start.bigram, start.initial_val_loss) {
            eprintln!(
                "validation loss: {v:.3} at initialisation; bigram baseline {:.3}",
                b.val_loss
            );
        }
        let bar = ProgressBar::new(start.total_steps as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:30} step {pos}/{len} {msg} ETA {eta}")
                .expect("the template is valid"),
        );
        bar.set_position(start.first_step as u64);
        self.bar = Some(bar);
        self.clock = Some((Instant::now(), start.first_step));
        self.tokens_per_step = start.tokens_per_step;
    }

    fn stepped(&mut self, r: &StepRecord) {
        let (Some(bar), Some((clock, first))) = (&self.bar, self.clock) else {
            return;
        };
        self.val_loss = r.val_loss.or(self.val_loss);
        let rate = ((r.step - first) * self.tokens_per_step) as f64 / clock.elapsed().as_secs_f64();
        let val = self
            .val_loss
            .map(|v| format!(" val {v:.3}"))
            .unwrap_or_default();
        let message = format!("loss {:.3}{val} {rate:.0} tok/s", r.loss);
        if r.val_loss.is_some() {
            // A line per validation, so a log (or a terminal's scrollback) keeps the curve.
            let total = bar.length().unwrap_or(0);
            let copy = r
                .copy_loss
                .map(|c| format!(" copy {c:.3}"))
                .unwrap_or_default();
            let heads = match (r.previous_token_score, r.induction_score) {
                (Some(p), Some(i)) => format!(" heads: previous-token {p:.2}, induction {i:.2}"),
                _ => String::new(),
            };
            let copy = copy + &heads;
            bar.suspend(|| eprintln!("step {}/{total}: {message}{copy}", r.step));
        }
        bar.set_message(message);
        bar.set_position(r.step as u64);
    }

    fn saved(&mut self, step: usize, dir: &Path) {
        if let Some(bar) = &self.bar {
            bar.println(format!(
                "step {step}: checkpoint saved to {}",
                dir.display()
            ));
        }
    }
}

impl Bar {
    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}

fn summary(log: &TrainingLog, out: &Path) {
    let last = log.steps.last();
    outln!(
        "trained {} steps ({} tokens) in {:.0} s, {:.0} tokens/s",
        log.steps_done(),
        last.map_or(0, |r| r.tokens_seen),
        log.seconds(),
        log.tokens_per_second()
    );
    if let Some(r) = last {
        outln!("final training loss {:.3}", r.loss);
    }
    if let (Some(v), Some(b)) = (log.last_val_loss(), log.bigram) {
        outln!("validation loss {v:.3} (bigram baseline {:.3})", b.val_loss);
    }
    outln!("model saved to {}", out.display());
}
