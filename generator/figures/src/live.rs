//! The numbers a page's script needs to redraw a next-token figure under the reader's
//! temperature, top-k and top-p, with the probabilities the build itself would compute.
//!
//! Temperature rescales every logit, so the softmax at T needs log Σ exp(l / T) over all V
//! logits, which the top-k logits and the log-sum-exp at T = 1 do not determine. The build
//! has every logit of the last position (`logits.last`), so for each temperature the slider
//! stops at (0 to 2 in steps of 0.1, plus the figure's own) it computes that normalizer
//! exactly, and embeds:
//!
//! - `head`: the [`HEAD`] largest logits, largest first (f32, as decoded from the trace);
//! - `z`: the normalizer at each temperature stop;
//! - `counts`, `masses`: for each temperature stop and each top-p stop (0.05 to 1 in steps
//!   of 0.05, plus the figure's own), how many tokens top-p alone keeps and the probability
//!   they hold, counted over all V; the script needs them only when the survivors run past
//!   the head, which at high temperatures they do by thousands.
//!
//! The script computes p = exp(l / T − z) for the head, cuts top-k (1 to [`HEAD`]) and top-p
//! inside the head, and reads the table past it. [`Live::view`] is the same computation in
//! Rust; the tests check it against [`crate::sampler::sample`] over all V at every stop.
//! What is left inexact: the masses are stored as f32 (relative error below 6·10⁻⁸), and the
//! browser's `Math.exp` may differ from Rust's in the last bit.
//!
//! Figures on the same prompt (a next-token, a temperature and a sampling figure, or one
//! prompt shared by many articles) share one computation: [`Live::new`] keeps the last few
//! in a process-wide cache, keyed by the logits and the stops, bit for bit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::sampler::{scaled_exp, top_p_keeps};
#[cfg(test)]
use crate::sampler::{survivors, Rules};

/// How many of the largest logits a figure embeds; top-k goes up to this.
pub const HEAD: usize = 256;

/// The embedded numbers for one distribution (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct Live {
    pub temps: Vec<f64>,
    pub top_ps: Vec<f64>,
    pub head: Vec<f32>,
    pub z: Vec<f64>,
    /// Per (temperature stop, top-p stop), row-major: survivors of top-p alone.
    pub counts: Vec<u32>,
    /// The same cells: the probability those survivors hold.
    pub masses: Vec<f32>,
    pub vocab: usize,
}

/// What the reader sees at one setting: p_T of the head and the survivors.
#[cfg(test)]
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    pub probs: Vec<f64>,
    pub survivors: usize,
    pub mass: f64,
}

#[cfg(test)]
impl View {
    /// The probability the token at `rank` (< [`HEAD`]) is drawn with; 0 if it is cut.
    pub fn drawn(&self, rank: usize) -> f64 {
        if rank < self.survivors {
            self.probs[rank] / self.mass
        } else {
            0.0
        }
    }
}

/// What [`Live::new`] computes from, bit for bit.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Key {
    logits: Vec<u32>,
    temps: Vec<u64>,
    top_ps: Vec<u64>,
}

/// How many results a [`LiveCache`] holds (about 0.2 MB each with its key, for GPT-2)
/// before it starts over.
const CACHED: usize = 64;

/// [`Live`] results shared by the figures of one build, so that a prompt's distribution
/// embedded by several figures (next-token, temperature, sampling, on several pages) is
/// computed once. The caller owns it (the site keeps one per build, beside its traces) and
/// hands it to the figures through [`Traces::live_cache`](crate::Traces::live_cache).
#[derive(Debug, Default)]
pub struct LiveCache {
    entries: Mutex<HashMap<Key, Arc<Live>>>,
}

impl LiveCache {
    /// The entries, also after a panic elsewhere (they are always whole).
    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Arc<Live>>> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Below half an ulp of 1.0: a weight this small added to a sum ≥ 1 leaves it unchanged.
const NEGLIGIBLE: f64 = f64::EPSILON / 4.0;

/// `extra` added to `grid`, sorted, without duplicates.
fn stops(grid: impl Iterator<Item = f64>, extra: &[f64]) -> Vec<f64> {
    let mut all: Vec<f64> = grid.chain(extra.iter().copied()).collect();
    all.sort_by(f64::total_cmp);
    all.dedup();
    all
}

impl Live {
    /// The embedded numbers for `logits` (all V), with the figure's own temperatures and
    /// top-p values added to the stops; computed once per distinct input in `cache` (see the
    /// module doc), or every time without one.
    pub fn new(
        logits: &[f32],
        own_temps: &[f64],
        own_top_ps: &[f64],
        cache: Option<&LiveCache>,
    ) -> Arc<Live> {
        let Some(cache) = cache else {
            return Arc::new(Live::compute(logits, own_temps, own_top_ps));
        };
        let key = Key {
            logits: logits.iter().map(|l| l.to_bits()).collect(),
            temps: own_temps.iter().map(|t| t.to_bits()).collect(),
            top_ps: own_top_ps.iter().map(|p| p.to_bits()).collect(),
        };
        if let Some(live) = cache.entries().get(&key) {
            return Arc::clone(live);
        }
        let live = Arc::new(Live::compute(logits, own_temps, own_top_ps));
        let mut entries = cache.entries();
        if entries.len() >= CACHED {
            entries.clear();
        }
        entries.insert(key, Arc::clone(&live));
        live
    }

    fn compute(logits: &[f32], own_temps: &[f64], own_top_ps: &[f64]) -> Live {
        let temps = stops((0..=20).map(|i| f64::from(i) / 10.0), own_temps);
        let top_ps = stops((1..=20).map(|i| f64::from(i) / 20.0), own_top_ps);
        // Only values matter (not which token holds them): the logits largest first, as runs
        // of equal values (a trace's f16 logits repeat often: ~1,500 distinct of 50,257), so
        // each temperature takes one exp per run.
        let mut sorted = logits.to_vec();
        sorted.sort_unstable_by(|a, b| b.total_cmp(a));
        let head: Vec<f32> = sorted.iter().take(HEAD).copied().collect();
        let max = sorted.first().copied().unwrap_or(0.0);
        let mut runs: Vec<(f32, usize)> = Vec::new();
        for &l in &sorted {
            match runs.last_mut() {
                Some((value, n)) if *value == l => *n += 1,
                _ => runs.push((l, 1)),
            }
        }
        let mut z = Vec::with_capacity(temps.len());
        let mut counts = Vec::with_capacity(temps.len() * top_ps.len());
        let mut masses = Vec::with_capacity(temps.len() * top_ps.len());
        let mut weights: Vec<f64> = Vec::with_capacity(runs.len());
        for &t in &temps {
            if t == 0.0 {
                z.push(0.0);
                counts.extend(top_ps.iter().map(|_| 1));
                masses.extend(top_ps.iter().map(|_| 1.0));
                continue;
            }
            // One weight per token, likeliest first, until the weights (≤ 1, their sum ≥ 1)
            // drop below half an ulp of 1: every later one would leave the f64 sum unchanged,
            // so the normalizer is the one over all V, and the probabilities follow from it.
            // The sum adds each token's weight in turn, as a sum over the tokens would.
            weights.clear();
            let (mut sum, mut kept) = (0.0f64, 0usize);
            for &(value, n) in &runs {
                let w = scaled_exp(value, max, t);
                if w.is_nan() || w < NEGLIGIBLE {
                    break;
                }
                weights.push(w);
                for _ in 0..n {
                    sum += w;
                }
                kept += n;
            }
            z.push(f64::from(max) / t + sum.ln());
            // One walk for every top-p stop (ascending): the rule of `Rules::keeps`, with
            // the running total carried from one stop to the next. A walk that passes the
            // last weight kept keeps every token: the rest cannot raise the total.
            let (mut count, mut before) = (0, 0.0);
            let (mut run, mut in_run) = (0, 0);
            for &p in &top_ps {
                while count < kept && top_p_keeps(p, count, before) {
                    before += weights[run] / sum;
                    count += 1;
                    in_run += 1;
                    if in_run == runs[run].1 {
                        (run, in_run) = (run + 1, 0);
                    }
                }
                let all = count == kept;
                counts.push(if all { logits.len() } else { count } as u32);
                masses.push(before as f32);
            }
        }
        Live {
            temps,
            top_ps,
            head,
            z,
            counts,
            masses,
            vocab: logits.len(),
        }
    }

    /// The index of the stop equal to `t` (present: [`Live::new`] adds the figure's own).
    pub fn temp_stop(&self, t: f64) -> usize {
        self.temps.iter().position(|&s| s == t).unwrap_or(0)
    }

    /// The index of the top-p stop equal to `p`.
    pub fn top_p_stop(&self, p: f64) -> usize {
        self.top_ps.iter().position(|&s| s == p).unwrap_or(0)
    }

    /// What the script computes at temperature stop `t`, top-k `k` (≤ [`HEAD`]) and
    /// top-p stop `p`.
    #[cfg(test)]
    pub fn view(&self, t: usize, k: Option<usize>, p: Option<usize>) -> View {
        let temperature = self.temps[t];
        let probs: Vec<f64> = if temperature == 0.0 {
            (0..self.head.len())
                .map(|r| f64::from(u8::from(r == 0)))
                .collect()
        } else {
            self.head
                .iter()
                .map(|&l| (f64::from(l) / temperature - self.z[t]).exp())
                .collect()
        };
        let rules = Rules {
            temperature,
            top_k: k,
            top_p: p.map(|i| self.top_ps[i]),
        };
        let (mut survivors, mut mass) = survivors(probs.iter().copied(), rules);
        let past_head =
            survivors == self.head.len() && self.head.len() < self.vocab && temperature > 0.0;
        if past_head && k.is_none() {
            match p {
                Some(i) => {
                    let cell = t * self.top_ps.len() + i;
                    survivors = self.counts[cell] as usize;
                    mass = f64::from(self.masses[cell]);
                }
                None => {
                    survivors = self.vocab;
                    mass = 1.0;
                }
            }
        }
        View {
            probs,
            survivors,
            mass,
        }
    }

    /// The fields of the page's JSON object (no braces), see the module doc.
    pub fn json_fields(&self) -> String {
        let mut head = Vec::with_capacity(self.head.len() * 4);
        self.head.iter().for_each(|v| head.extend(v.to_le_bytes()));
        let mut z = Vec::with_capacity(self.z.len() * 8);
        self.z.iter().for_each(|v| z.extend(v.to_le_bytes()));
        let mut counts = Vec::with_capacity(self.counts.len() * 4);
        self.counts
            .iter()
            .for_each(|v| counts.extend(v.to_le_bytes()));
        let mut masses = Vec::with_capacity(self.masses.len() * 4);
        self.masses
            .iter()
            .for_each(|v| masses.extend(v.to_le_bytes()));
        format!(
            "\"vocab\":{},\"temps\":{},\"tops\":{},\"head\":\"{}\",\"z\":\"{}\",\
             \"counts\":\"{}\",\"masses\":\"{}\"",
            self.vocab,
            json_numbers(&self.temps),
            json_numbers(&self.top_ps),
            base64(&head),
            base64(&z),
            base64(&counts),
            base64(&masses),
        )
    }
}

/// A JSON array of numbers in their shortest round-trip form.
pub fn json_numbers(values: &[f64]) -> String {
    let items: Vec<String> = values.iter().map(|v| format!("{v}")).collect();
    format!("[{}]", items.join(","))
}

/// `text` as a JSON string; `<` escaped too, so it can sit in an HTML `<script>`.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '<' => out.push_str("\\u003c"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Standard base64 with padding (RFC 4648), which the browser's `atob` reads.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "testing/live_tests.rs"]
mod tests;
