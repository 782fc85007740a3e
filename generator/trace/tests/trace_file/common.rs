//! Test helpers: a seeded random source and traces to fill.

use tracebook_trace::{
    Candidate, GenerationStep, ModelInfo, ModelShape, Precision, PromptSpec, Token, Trace,
    TraceMeta, TraceOptions,
};

/// Test data drawn from the shared SplitMix64 stream.
pub struct Rng(tracebook_trace::SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(tracebook_trace::SplitMix64::new(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f32 {
        let u = 1.0 - self.uniform();
        let v = self.uniform();
        ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn normals(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| self.normal() * scale).collect()
    }

    /// `rows` softmax rows of length `cols` under a causal mask: row i covers columns 0..=i
    /// (wrapping for rows beyond `cols`), the rest are exactly zero.
    pub fn causal_pattern(&mut self, rows: usize, cols: usize) -> Vec<f32> {
        let mut data = Vec::with_capacity(rows * cols);
        for r in 0..rows {
            let visible = r % cols + 1;
            let exps: Vec<f32> = (0..visible).map(|_| (self.normal() * 2.0).exp()).collect();
            let sum: f32 = exps.iter().sum();
            data.extend(exps.iter().map(|e| e / sum));
            data.extend(std::iter::repeat_n(0.0, cols - visible));
        }
        data
    }
}

pub fn model() -> ModelInfo {
    ModelInfo {
        id: "openai-community/gpt2".to_string(),
        name: None,
        config: ModelShape::default(),
        weights_sha256: "248dfc3911869ec493c76e65bf2fcf7f615828b0254c12b473182f0f81d3a707"
            .to_string(),
        weights_dtype: "f32".into(),
    }
}

pub fn meta(precision: Precision) -> TraceMeta {
    let text = "The robots will bring";
    let words = [
        (464, "The", 0, 3),
        (14193, " robots", 3, 10),
        (481, " will", 10, 15),
    ];
    let tokens = words
        .iter()
        .map(|&(id, text, start, end)| Token {
            id,
            text: text.to_string(),
            start,
            end,
        })
        .collect();
    let candidate = |id, text: &str, prob| Candidate {
        id,
        text: text.to_string(),
        prob,
    };
    TraceMeta {
        tool: "tracebook 0.1.0".to_string(),
        name: "robots".to_string(),
        model: model(),
        prompt: PromptSpec::new(text),
        options: TraceOptions {
            precision,
            top_k: 2,
        },
        tokens,
        generation: vec![GenerationStep {
            id: 257,
            text: " a".to_string(),
            prob: 0.125,
            top: vec![candidate(257, " a", 0.125), candidate(606, " them", 0.0625)],
        }],
        token_texts: [(257, " a"), (464, "The"), (606, " them")]
            .into_iter()
            .map(|(id, t)| (id, t.to_string()))
            .collect(),
        training: None,
        merges: Vec::new(),
        beam: None,
        ablation: None,
        patching: None,
        attribution: None,
        translation: None,
    }
}

/// A small trace with a tensor of every kind.
pub fn small_trace(precision: Precision) -> Trace {
    let mut rng = Rng::new(7);
    let mut trace = Trace::new(meta(precision));
    let inserts: [(&str, Vec<usize>, Vec<f32>); 5] = [
        ("embed", vec![3, 8], rng.normals(24, 0.5)),
        (
            "blocks.0.attn.pattern",
            vec![2, 3, 3],
            rng.causal_pattern(6, 3),
        ),
        ("logits.last", vec![10], rng.normals(10, 30.0)),
        (
            "logits.topk_ids",
            vec![3, 2],
            vec![464.0, 50256.0, 1.0, 0.0, 13.0, 11.0],
        ),
        ("logits.topk_values", vec![3, 2], rng.normals(6, 30.0)),
    ];
    for (name, shape, data) in inserts {
        trace.insert(name, shape, &data).unwrap();
    }
    trace
}
