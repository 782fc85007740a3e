use super::{base64, Live, LiveCache, HEAD};
use crate::sampler::{sample, Rules};

/// A flat-tailed vocabulary of 3,000 logits, like a small model's: at T = 1 top-p 0.9 keeps
/// far more than the head.
fn wide_logits() -> Vec<f32> {
    (0..3000u32)
        .map(|i| {
            let x = ((i * 7919) % 3000) as f32;
            -2.0 - 6.0 * (x / 3000.0).sqrt() + 0.001 * (i % 13) as f32
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 + 1e-6 * b.abs()
}

#[test]
fn every_setting_the_controls_offer_matches_the_sampler_over_all_v() {
    let logits = wide_logits();
    let live = Live::new(&logits, &[0.73], &[0.93], None);
    assert!(live.temps.contains(&0.73) && live.top_ps.contains(&0.93));
    let mut past_head = 0;
    for t in 0..live.temps.len() {
        for k in [None, Some(1), Some(7), Some(HEAD)] {
            for p in std::iter::once(None).chain((0..live.top_ps.len()).map(Some)) {
                let rules = Rules {
                    temperature: live.temps[t],
                    top_k: k,
                    top_p: p.map(|i| live.top_ps[i]),
                };
                let full = sample(&logits, rules);
                let view = live.view(t, k, p);
                assert_eq!(view.survivors, full.survivors, "{rules:?}");
                assert!(close(view.mass, full.mass), "{rules:?}");
                for rank in 0..20 {
                    assert!(close(view.probs[rank], full.sorted[rank].1), "{rules:?}");
                    assert!(close(view.drawn(rank), full.drawn(rank)), "{rules:?}");
                }
                past_head += usize::from(view.survivors > HEAD);
            }
        }
    }
    assert!(past_head > 100, "the table is exercised: {past_head}");
}

#[test]
fn the_head_is_the_largest_logits_in_order() {
    let logits = wide_logits();
    let live = Live::new(&logits, &[], &[], None);
    assert_eq!(live.head.len(), HEAD);
    assert!(live.head.windows(2).all(|w| w[0] >= w[1]));
    let mut sorted = logits.clone();
    sorted.sort_by(|a, b| b.total_cmp(a));
    assert_eq!(live.head, sorted[..HEAD]);
    assert_eq!(live.temps.len(), 21);
    assert_eq!(live.top_ps.len(), 20);
    assert_eq!(live.counts.len(), 21 * 20);
}

#[test]
fn a_small_vocabulary_is_embedded_whole() {
    let logits: Vec<f32> = (0..40).map(|i| (i % 7) as f32 * 0.5).collect();
    let live = Live::new(&logits, &[], &[], None);
    assert_eq!(live.head.len(), 40);
    let view = live.view(live.temp_stop(1.0), None, None);
    assert_eq!(view.survivors, 40);
    assert!(close(view.probs.iter().sum::<f64>(), 1.0));
}

#[test]
fn the_fields_are_json_with_base64_arrays() {
    let live = Live::new(&[1.0, 0.5, -1.0], &[], &[0.9], None);
    let json = format!("{{{}}}", live.json_fields());
    assert!(json.starts_with("{\"vocab\":3,\"temps\":[0,0.1,0.2,"));
    assert!(json.contains("\"tops\":[0.05,0.1,"));
    // 1.0, 0.5, -1.0 as little-endian f32.
    assert!(json.contains("\"head\":\"AACAPwAAAD8AAIC/\""));
}

#[test]
fn base64_pads_like_rfc_4648() {
    assert_eq!(base64(b""), "");
    assert_eq!(base64(b"f"), "Zg==");
    assert_eq!(base64(b"fo"), "Zm8=");
    assert_eq!(base64(b"foo"), "Zm9v");
    assert_eq!(base64(b"foobar"), "Zm9vYmFy");
}

#[test]
fn json_strings_escape_quotes_backslashes_controls_and_tags() {
    assert_eq!(
        super::json_string("a\"b\\c\n</script>"),
        "\"a\\\"b\\\\c\\u000a\\u003c/script>\""
    );
}

#[test]
fn the_same_distribution_and_stops_are_computed_once() {
    let logits = wide_logits();
    let cache = LiveCache::default();
    let first = Live::new(&logits, &[0.37], &[], Some(&cache));
    assert!(std::sync::Arc::ptr_eq(
        &first,
        &Live::new(&logits, &[0.37], &[], Some(&cache))
    ));
    let another_build = LiveCache::default();
    assert!(!std::sync::Arc::ptr_eq(
        &first,
        &Live::new(&logits, &[0.37], &[], Some(&another_build))
    ));
    assert_eq!(*first, *Live::new(&logits, &[0.37], &[], None));
    let other_stops = Live::new(&logits, &[0.38], &[], Some(&cache));
    assert!(other_stops.temps.contains(&0.38) && !other_stops.temps.contains(&0.37));
    let mut shifted = logits.clone();
    shifted[0] += 1.0;
    let other_logits = Live::new(&shifted, &[0.37], &[], Some(&cache));
    assert!(!std::sync::Arc::ptr_eq(&first, &other_logits));
    assert_ne!(first.z, other_logits.z);
}
