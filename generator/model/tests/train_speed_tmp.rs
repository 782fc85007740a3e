use tracebook_model::train::*;
#[test]
#[ignore]
fn speed() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c.txt");
    let text = std::fs::read_to_string("/tmp/corpus/sample.txt").unwrap();
    std::fs::write(&corpus, text).unwrap();
    let mut s = Settings::small(Architecture {
        layers: 4,
        heads: 4,
        width: 128,
        context: 128,
    });
    s.steps = 6;
    s.warmup = 1;
    s.eval_every = 1000;
    s.checkpoint_every = 1000;
    s.val_windows = 8;
    s.batch_size = std::env::var("B").map(|b| b.parse().unwrap()).unwrap_or(8);
    let run = TrainRun {
        corpus,
        out: dir.path().join("out"),
        settings: s,
        resume: false,
    };
    struct P(std::time::Instant);
    impl Observer for P {
        fn started(&mut self, st: &Start) {
            eprintln!("start {:?} init {:?}", st.bigram, st.initial_val_loss);
            self.0 = std::time::Instant::now();
        }
        fn stepped(&mut self, r: &StepRecord) {
            eprintln!(
                "step {} loss {:.3} norm {:.3} {:.2}s",
                r.step,
                r.loss,
                r.grad_norm,
                self.0.elapsed().as_secs_f64()
            );
            self.0 = std::time::Instant::now();
        }
    }
    let t = std::time::Instant::now();
    let log = train(&run, &mut P(std::time::Instant::now())).unwrap();
    eprintln!(
        "total {:.1}s, {:.0} tok/s",
        t.elapsed().as_secs_f64(),
        log.tokens_per_second()
    );
}
