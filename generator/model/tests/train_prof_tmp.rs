use std::time::Instant;
use tracebook_model::gpt2::Gpt2;
use tracebook_model::train::adamw::*;
use tracebook_model::train::params::Params;
use tracebook_model::train::rng::Rng;
use tracebook_model::train::step::*;
use tracebook_model::train::*;
#[test]
#[ignore]
fn prof() {
    let arch = Architecture {
        layers: 4,
        heads: 4,
        width: 128,
        context: 128,
    };
    let config = arch.config();
    let params = Params::init(&config, &mut Rng::new(0)).unwrap();
    let model = Gpt2::trainable(&params.weights(), &config).unwrap();
    let ids: Vec<u32> = (0..129).map(|i| (i * 37 % 50000) as u32).collect();
    let batch: Vec<&[u32]> = (0..8).map(|_| &ids[..]).collect();
    let mut opt = AdamW::new(&params, AdamWConfig::gpt2(0.1));
    for _ in 0..8 {
        let t = Instant::now();
        let (_l, mut g) = batch_gradients(&model, &params, &batch).unwrap();
        eprintln!("grads {:?} rss {}", t.elapsed(), std::fs::read_to_string("/proc/self/status").unwrap().lines().find(|l| l.starts_with("VmRSS")).unwrap());
        let t = Instant::now();
        clip_grad_norm(&mut g, 1.0);
        eprintln!("clip {:?}", t.elapsed());
        let t = Instant::now();
        opt.step(&params, &g, 1e-3).unwrap();
        eprintln!("adamw {:?}", t.elapsed());
    }
}
