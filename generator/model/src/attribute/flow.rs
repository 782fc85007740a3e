//! Information flow (Ferrando & Voita, 2024, "Information flow routes", the method of Meta's
//! LLM Transparency Tool): how much of each position's update came from which token, layer by
//! layer.
//!
//! In block `l` the attention sublayer adds to position `i`'s stream `x_i` one vector per
//! earlier position `j`: `z_ij = Σ_h α_h[i, j] · v_h[j] W_O^h`, what the heads moved from `j`
//! (the output projection's bias belongs to no position). With `y` the stream after the
//! sublayer, a part `p` (the residual `x_i`, or one `z_ij`) is as important as it is close to
//! `y`: `max(0, ‖y‖₁ − ‖y − p‖₁)`, and the importances at a position are shared out to sum to 1.
//! The MLP sublayer is read the same way, between its input and its output. The shares are
//! computed in f64 from the forward's f32 tensors.

use crate::error::Result;
use crate::recorder::Recorder;
use crate::transformer::Transformer;
use candle_core::{DType, Tensor};

/// Per layer and position: `attn[l][i][j]` (`j ≤ i`) the share of the attention sublayer's
/// result at `i` that came from token `j`, `residual[l][i]` the share the stream kept; the two
/// sum to 1 over a position. `mlp[l][i]` is the MLP's share of its sublayer's result at `i`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Flow {
    pub attn: Vec<Vec<Vec<f32>>>,
    pub residual: Vec<Vec<f32>>,
    pub mlp: Vec<Vec<f32>>,
}

/// The forward's tensors the shares are read from, per layer.
#[derive(Default)]
struct Taps {
    pre: Vec<Tensor>,
    mid: Vec<Tensor>,
    mlp: Vec<Tensor>,
    pattern: Vec<Tensor>,
    v: Vec<Tensor>,
}

impl Recorder for Taps {
    fn enabled(&self) -> bool {
        false
    }
    fn record(&mut self, name: &str, tensor: &Tensor) -> candle_core::Result<()> {
        let list = match name.rsplit_once('.').map_or(name, |(_, last)| last) {
            _ if !name.starts_with("blocks.") => return Ok(()),
            "resid_pre" => &mut self.pre,
            "resid_mid" => &mut self.mid,
            "mlp_out" => &mut self.mlp,
            "pattern" => &mut self.pattern,
            "v" if name.ends_with(".attn.v") => &mut self.v,
            _ => return Ok(()),
        };
        list.push(tensor.clone());
        Ok(())
    }
}

/// The information flow of the run over `ids`.
pub fn information_flow(net: &Transformer, ids: &[u32]) -> Result<Flow> {
    let mut taps = Taps::default();
    net.forward(ids, &mut taps)?;
    let rows = |t: &Tensor| t.to_dtype(DType::F64)?.to_vec2::<f64>();
    let mut flow = Flow::default();
    for (l, block) in net.blocks().iter().enumerate() {
        let writes = (block.attention().value_writes(&taps.v[l])?)
            .to_dtype(DType::F64)?
            .to_vec3::<f64>()?;
        let pattern = taps.pattern[l].to_dtype(DType::F64)?.to_vec3::<f64>()?;
        let (pre, mid, mlp) = (
            rows(&taps.pre[l])?,
            rows(&taps.mid[l])?,
            rows(&taps.mlp[l])?,
        );
        let (mut attn, mut residual, mut mlp_share) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..pre.len() {
            let mut parts = vec![pre[i].clone()];
            parts.extend((0..=i).map(|j| moved(&pattern, &writes, i, j)));
            let shares = proximity_shares(&mid[i], &parts);
            residual.push(shares[0] as f32);
            attn.push(shares[1..].iter().map(|&s| s as f32).collect());
            let post: Vec<f64> = mid[i].iter().zip(&mlp[i]).map(|(a, b)| a + b).collect();
            let mlp_parts = [mid[i].clone(), mlp[i].clone()];
            mlp_share.push(proximity_shares(&post, &mlp_parts)[1] as f32);
        }
        flow.attn.push(attn);
        flow.residual.push(residual);
        flow.mlp.push(mlp_share);
    }
    Ok(flow)
}

/// What the heads moved from position `j` into position `i`: `Σ_h α_h[i, j] · writes[h][j]`.
fn moved(pattern: &[Vec<Vec<f64>>], writes: &[Vec<Vec<f64>>], i: usize, j: usize) -> Vec<f64> {
    let d = writes[0][j].len();
    let mut sum = vec![0.0; d];
    for (alpha, write) in pattern.iter().zip(writes) {
        let a = alpha[i][j];
        for (s, w) in sum.iter_mut().zip(&write[j]) {
            *s += a * w;
        }
    }
    sum
}

/// Each part's importance to `y`, `max(0, ‖y‖₁ − ‖y − part‖₁)`, shared out to sum to 1 (all
/// zero when no part is close to `y`).
pub fn proximity_shares(y: &[f64], parts: &[Vec<f64>]) -> Vec<f64> {
    let norm: f64 = y.iter().map(|v| v.abs()).sum();
    let importance: Vec<f64> = parts
        .iter()
        .map(|p| {
            let away: f64 = y.iter().zip(p).map(|(a, b)| (a - b).abs()).sum();
            (norm - away).max(0.0)
        })
        .collect();
    let total: f64 = importance.iter().sum();
    if total > 0.0 {
        importance.iter().map(|v| v / total).collect()
    } else {
        vec![0.0; parts.len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_shares_as_it_is_close_to_the_whole() {
        // y = a + b with b small: a carries nearly all of y.
        let a = vec![1.0, 2.0, -1.0];
        let b = vec![0.1, 0.0, 0.0];
        let y: Vec<f64> = a.iter().zip(&b).map(|(x, z)| x + z).collect();
        let shares = proximity_shares(&y, &[a.clone(), b]);
        // ‖y‖₁ = 4.1; ‖y − a‖₁ = 0.1, ‖y − b‖₁ = 4.0: importances 4.0 and 0.1.
        assert!((shares[0] - 4.0 / 4.1).abs() < 1e-12);
        assert!((shares[1] - 0.1 / 4.1).abs() < 1e-12);
        // A part pointing away from y has no importance.
        let shares = proximity_shares(&y, &[a, vec![-5.0, 0.0, 0.0]]);
        assert_eq!(shares[1], 0.0);
        assert_eq!(shares[0], 1.0);
        assert_eq!(proximity_shares(&[0.0], &[vec![1.0]]), vec![0.0]);
    }
}
