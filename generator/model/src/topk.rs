//! Small numeric helpers over logits: softmax and the k largest values.

/// Probabilities from logits, computed stably in f64.
pub fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let exps: Vec<f64> = logits.iter().map(|&l| (l as f64 - max).exp()).collect();
    let sum: f64 = exps.iter().sum();
    exps.iter().map(|e| (e / sum) as f32).collect()
}

/// The `k` largest values with their indices, largest first; ties broken by the lower index.
pub fn top_k(values: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut order: Vec<u32> = (0..values.len() as u32).collect();
    let k = k.min(values.len());
    let cmp = |a: &u32, b: &u32| {
        values[*b as usize]
            .total_cmp(&values[*a as usize])
            .then(a.cmp(b))
    };
    if k < order.len() && k > 0 {
        order.select_nth_unstable_by(k - 1, cmp);
    }
    order.truncate(k);
    order.sort_by(cmp);
    order.into_iter().map(|i| (i, values[i as usize])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_orders_and_breaks_ties_by_index() {
        let v = [0.5, 2.0, -1.0, 2.0, 0.7];
        assert_eq!(top_k(&v, 3), vec![(1, 2.0), (3, 2.0), (4, 0.7)]);
        assert_eq!(top_k(&v, 10).len(), 5);
        assert!(top_k(&v, 0).is_empty());
    }

    #[test]
    fn softmax_sums_to_one_and_keeps_order() {
        let p = softmax(&[1.0, 3.0, -50.0, 12.0]);
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(p[3] > 0.999 && p[1] > p[0] && p[0] > p[2]);
    }
}
