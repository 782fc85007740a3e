//! The sampler over all V logits, as tracebook's generation (candle's) does it: divide the
//! logits by the temperature, softmax over every token, sort, keep a token if it is among the
//! top k and the tokens before it hold less than top_p, renormalize the survivors.
//! Temperature 0 is greedy. The `temperature` and `sampling` figures draw from it, and the
//! page's controls are checked against it (see [`crate::live`]).

/// The sampler's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rules {
    pub temperature: f64,
    pub top_k: Option<usize>,
    pub top_p: Option<f64>,
}

impl Rules {
    /// Whether the token at rank `rank` (0 = likeliest), with `before` the probability
    /// the tokens ranked above it hold, survives.
    pub fn keeps(&self, rank: usize, before: f64) -> bool {
        if self.temperature == 0.0 {
            return rank == 0;
        }
        self.top_k.is_none_or(|k| rank < k)
            && self.top_p.is_none_or(|p| top_p_keeps(p, rank, before))
    }

    pub fn describe(&self) -> String {
        let mut parts = vec![format!("temperature {}", self.temperature)];
        if let Some(k) = self.top_k {
            parts.push(format!("top_k {k}"));
        }
        if let Some(p) = self.top_p {
            parts.push(format!("top_p {p}"));
        }
        parts.join(", ")
    }
}

/// Top-p's rule: keep the likeliest token, and a token while the tokens before it hold less
/// than `p`. `p` ≥ 1 keeps every token (exactly, whatever the rounding of the running sum).
pub fn top_p_keeps(p: f64, rank: usize, before: f64) -> bool {
    rank == 0 || p >= 1.0 || before < p
}

/// One temperature's probabilities for some tokens, and what the rest share.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub temperature: f64,
    pub probs: Vec<f64>,
    pub rest: f64,
}

/// log Σ exp(l / T) over all `logits`, the softmax's normalizer at temperature `t` > 0,
/// computed in f64 as max/T + ln Σ exp((l − max)/T).
pub fn log_partition(logits: &[f32], t: f64) -> f64 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f64 = logits.iter().map(|&l| scaled_exp(l, max, t)).sum();
    f64::from(max) / t + sum.ln()
}

/// exp((l − max)/T): a logit's unnormalized weight at temperature `t`, at most 1.
pub fn scaled_exp(l: f32, max: f32, t: f64) -> f64 {
    ((f64::from(l) - f64::from(max)) / t).exp()
}

/// p_T of `ids` over all `logits`; T = 0 puts everything on the argmax.
pub fn column(logits: &[f32], ids: &[u32], temperature: f64) -> Column {
    let probs: Vec<f64> = if temperature == 0.0 {
        let top = (0..logits.len())
            .max_by(|&a, &b| logits[a].total_cmp(&logits[b]).then(b.cmp(&a)))
            .unwrap_or(0);
        ids.iter()
            .map(|&i| f64::from(u8::from(i as usize == top)))
            .collect()
    } else {
        let total = log_partition(logits, temperature);
        ids.iter()
            .map(|&i| (f64::from(logits[i as usize]) / temperature - total).exp())
            .collect()
    };
    let rest = (1.0 - probs.iter().sum::<f64>()).max(0.0);
    Column {
        temperature,
        probs,
        rest,
    }
}

/// Every token's probability at the rules' temperature, likeliest first, and the survivors.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    /// (token id, p_T), sorted by probability, ties by lower id.
    pub sorted: Vec<(u32, f64)>,
    /// How many of `sorted` survive (always a prefix).
    pub survivors: usize,
    /// The probability the survivors hold before renormalizing.
    pub mass: f64,
}

impl Sampled {
    /// The probability the token at `rank` is drawn with: 0 if it is cut.
    pub fn drawn(&self, rank: usize) -> f64 {
        if rank < self.survivors {
            self.sorted[rank].1 / self.mass
        } else {
            0.0
        }
    }
}

/// Applies `rules` to all `logits`.
pub fn sample(logits: &[f32], rules: Rules) -> Sampled {
    let all_ids: Vec<u32> = (0..logits.len() as u32).collect();
    let mut sorted: Vec<(u32, f64)> = all_ids
        .iter()
        .copied()
        .zip(column(logits, &all_ids, rules.temperature).probs)
        .collect();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let (survivors, mass) = survivors(sorted.iter().map(|s| s.1), rules);
    Sampled {
        sorted,
        survivors,
        mass,
    }
}

/// How many of `probs` (sorted, likeliest first) survive `rules`, and the mass they hold.
pub fn survivors(probs: impl Iterator<Item = f64>, rules: Rules) -> (usize, f64) {
    let mut before = 0.0;
    let mut count = 0;
    for (rank, p) in probs.enumerate() {
        if !rules.keeps(rank, before) {
            break;
        }
        before += p;
        count += 1;
    }
    (count, before)
}
