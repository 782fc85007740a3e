//! Gauss–Legendre quadrature on [0, 1]: the points and weights integrated gradients sums over,
//! as Captum's default method (`"gausslegendre"`) takes them: numpy's `leggauss(n)` moved from
//! [−1, 1] to [0, 1] (points (x + 1) / 2, weights w / 2).
//!
//! Written here (Newton's method on the Legendre polynomial, about twenty lines) rather than
//! taken from a crate: it is one function, and the browser module compiles it too.

/// The `n` points of [0, 1] (ascending) and their weights, which sum to 1.
pub fn gauss_legendre(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut points = vec![0.0; n];
    let mut weights = vec![0.0; n];
    for i in 0..n.div_ceil(2) {
        // Chebyshev's estimate of the i-th largest root of P_n, then Newton's method.
        let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
        let mut derivative = 0.0;
        for _ in 0..100 {
            let (p, dp) = legendre(n, x);
            derivative = dp;
            let step = p / dp;
            x -= step;
            if step.abs() < 1e-15 {
                break;
            }
        }
        let (_, dp) = legendre(n, x);
        derivative = if dp != 0.0 { dp } else { derivative };
        let w = 2.0 / ((1.0 - x * x) * derivative * derivative);
        // Roots come in ± pairs: x on [−1, 1] is (x + 1) / 2 on [0, 1].
        points[n - 1 - i] = (1.0 + x) / 2.0;
        points[i] = (1.0 - x) / 2.0;
        weights[n - 1 - i] = w / 2.0;
        weights[i] = w / 2.0;
    }
    (points, weights)
}

/// P_n(x) and its derivative, by the three-term recurrence.
fn legendre(n: usize, x: f64) -> (f64, f64) {
    let (mut p0, mut p1) = (1.0, x);
    if n == 0 {
        return (1.0, 0.0);
    }
    for k in 2..=n {
        let k = k as f64;
        let p2 = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = p2;
    }
    let dp = n as f64 * (x * p1 - p0) / (x * x - 1.0);
    (p1, dp)
}

#[cfg(test)]
mod tests {
    use super::gauss_legendre;

    #[test]
    fn two_and_three_points_are_the_textbook_ones() {
        let (x, w) = gauss_legendre(2);
        let r = 1.0 / 3f64.sqrt();
        assert!((x[0] - (1.0 - r) / 2.0).abs() < 1e-15 && (x[1] - (1.0 + r) / 2.0).abs() < 1e-15);
        assert!((w[0] - 0.5).abs() < 1e-15 && (w[1] - 0.5).abs() < 1e-15);
        let (x, w) = gauss_legendre(3);
        assert!((x[1] - 0.5).abs() < 1e-15);
        assert!((w[1] - 4.0 / 9.0).abs() < 1e-14, "{w:?}");
    }

    #[test]
    fn fifty_points_integrate_a_high_polynomial_exactly() {
        let (x, w) = gauss_legendre(50);
        assert!(x.windows(2).all(|p| p[0] < p[1]));
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-13);
        // Exact up to degree 99: ∫₀¹ t^99 dt = 1/100.
        let integral: f64 = x.iter().zip(&w).map(|(t, w)| w * t.powi(99)).sum();
        assert!((integral - 0.01).abs() < 1e-13, "{integral}");
    }
}
