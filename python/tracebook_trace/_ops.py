"""The computations of derived tensors (format version 3) and of predictions (version 2).

Every op gives the same bits as the Rust reader (`generator/trace/src/codec/derive.rs`,
`predict.rs`, `exact_math.rs`): f32 arithmetic where the format says f32, binary64 where it
says binary64, sums in the order it gives, and `exp` built from IEEE `+ - * /` only, never
from the platform's `exp` (which may differ in its last bit between libraries).

Each op takes the derivation's parameters, the tensor's shape and its decoded bases (float32
arrays of their shapes) and returns a float32 array of the shape, or raises `ValueError`
saying why the bases do not fit the op.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Sequence, Tuple

import numpy as np

F32, F64 = np.float32, np.float64

Shape = Tuple[int, ...]
#: A `derive` or `predict` object of a tensor entry.
Params = Mapping[str, Any]

# ln 2 split so that n * LN2_HI is exact for |n| < 2^11, and log2(e): exact_math.rs's constants.
_LN2_HI = np.array([0x3FE62E42FEE00000], dtype=np.uint64).view(F64)[0]
_LN2_LO = np.array([0x3DEA39EF35793C76], dtype=np.uint64).view(F64)[0]
_LOG2_E = F64(1.4426950408889634)


def exp64(x: np.ndarray) -> np.ndarray:
    """e^x in binary64 from IEEE +, -, *, / only, as the format's `exp64` (exact_math.rs)."""
    x = np.asarray(x, F64)
    with np.errstate(all="ignore"):
        y = x * _LOG2_E
        n = np.trunc(y)
        n = n + np.where(np.abs(y - n) >= 0.5, np.sign(y), 0.0)  # round half away from zero
        n = np.nan_to_num(n, nan=0.0, posinf=0.0, neginf=0.0)
        r = (x - n * _LN2_HI) - n * _LN2_LO
        p = np.ones_like(r)
        for k in range(13, 0, -1):
            p = 1.0 + p * r / F64(k)
    n = np.clip(n, -1100, 1100).astype(np.int64)
    half = np.trunc(n / 2).astype(np.int64)  # n / 2 truncated towards zero, as Rust's i32 `/`

    def power(e: np.ndarray) -> np.ndarray:
        bits: np.ndarray = (1023 + np.clip(e, -1022, 1023)).astype(np.uint64) << np.uint64(52)
        return bits.view(F64)

    with np.errstate(all="ignore"):
        out = p * power(half) * power(n - half)
    out = np.where(x > 709.78, np.inf, out)
    out = np.where(x < -745.2, 0.0, out)
    result: np.ndarray = np.where(np.isnan(x), x, out)
    return result


def _sum_in_order(x: np.ndarray) -> np.ndarray:
    """Binary64 sums over the last axis, added from the first value to the last.

    Starts from -0.0, as Rust's `Iterator::sum` of floats does (so a row of -0.0 sums to -0.0).
    """
    total = np.full(x.shape[:-1], -0.0, F64)
    for c in range(x.shape[-1]):
        total = total + x[..., c]
    return total


def row_stats(x: np.ndarray, eps: float) -> Tuple[np.ndarray, np.ndarray]:
    """Each row's mean and sqrt(population variance + eps), in binary64, summed in order."""
    x = x.astype(F64)
    d = F64(max(x.shape[-1], 1))
    mean = _sum_in_order(x) / d
    centred = x - mean[..., None]
    var = _sum_in_order(centred * centred) / d
    return mean, np.sqrt(var + F64(eps))


def products(a: np.ndarray, b: np.ndarray, shape: Shape, transposed: bool) -> np.ndarray:
    """Batched A·B (A·Bᵀ when `transposed`) over the last two axes: f32 products summed from 0
    in order of k, in f32 (no fused multiply-add)."""
    if a.ndim < 2 or b.ndim < 2 or len(shape) < 2:
        raise ValueError("the shapes of its bases do not multiply to its own")
    if transposed:
        b = np.swapaxes(b, -1, -2)
    m, k = a.shape[-2:]
    k2, n = b.shape[-2:]
    if k != k2 or a.shape[:-2] != b.shape[:-2] or a.shape[:-2] != tuple(shape[:-2]):
        raise ValueError("the shapes of its bases do not multiply to its own")
    if (m, n) != tuple(shape[-2:]):
        raise ValueError("the shapes of its bases do not multiply to its own")
    acc = np.zeros(tuple(shape), F32)
    for c in range(k):
        acc = acc + a[..., :, c, None] * b[..., None, c, :]
    return acc


def gelu_tanh(a: np.ndarray) -> np.ndarray:
    """GPT-2's gelu_new as the format computes it: a / (1 + exp64(-2u)) in binary64."""
    a = a.astype(F64)
    u = F64(0.7978845608028654) * (a + F64(0.044715) * (a * a * a))
    with np.errstate(all="ignore"):
        return (a / (F64(1.0) + exp64(F64(-2.0) * u))).astype(F32)


def silu(a: np.ndarray) -> np.ndarray:
    """SiLU as the format computes it: a / (1 + exp64(-a)) in binary64."""
    a = a.astype(F64)
    with np.errstate(all="ignore"):
        return (a / (F64(1.0) + exp64(-a))).astype(F32)


def causal_softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis of [..., m, n], row i keeping the entries j <= i + n - m."""
    if x.ndim < 2:
        raise ValueError(f"causal_softmax needs at least two dimensions, not {list(x.shape)}")
    m, n = x.shape[-2:]
    if m > n:
        raise ValueError(f"causal_softmax needs no more queries than keys, not {m} × {n}")
    kept = np.arange(n)[None, :] <= (np.arange(m)[:, None] + n - m)
    s = np.where(kept, x.astype(F64), -np.inf)
    # The maximum as Rust's fold with f64::max from -inf: NaN entries are passed over.
    top = np.fmax.reduce(s, axis=-1, initial=-np.inf) if n else np.full(s.shape[:-1], -np.inf)
    with np.errstate(all="ignore"):
        e = np.where(kept, exp64(s - top[..., None]), 0.0)
        total = _sum_in_order(e)
        return np.where(kept, e / total[..., None], 0.0).astype(F32)


def _row_of(x: np.ndarray, shape: Shape) -> None:
    if x.ndim == 0 or x.shape[:-1] != tuple(shape):
        raise ValueError(
            f"its base of shape {list(x.shape)} does not reduce to its shape {list(shape)} "
            "over the last dimension"
        )


def _same_shape(shape: Shape, *bases: np.ndarray) -> None:
    for b in bases:
        if b.shape != tuple(shape):
            raise ValueError(
                f"a base of its derivation has shape {list(b.shape)}, not {list(shape)}"
            )


def _sum(_: Params, shape: Shape, *bases: np.ndarray) -> np.ndarray:
    _same_shape(shape, *bases)
    out = bases[0].reshape(-1).copy()
    for b in bases[1:]:
        out = out + b.reshape(-1)
    return out.reshape(shape)


def _mean(_: Params, shape: Shape, x: np.ndarray) -> np.ndarray:
    _row_of(x, shape)
    return row_stats(x, 0.0)[0].astype(F32)


def _std(d: Params, shape: Shape, x: np.ndarray) -> np.ndarray:
    _row_of(x, shape)
    return row_stats(x, d["eps"])[1].astype(F32)


def _layer_norm(d: Params, shape: Shape, x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    width = shape[-1] if shape else 0
    if x.shape != tuple(shape) or w.shape != (width,) or b.shape != (width,):
        raise ValueError(
            f"its layer_norm bases have shapes {list(x.shape)}, {list(w.shape)}, {list(b.shape)}; "
            f"they must be {list(shape)}, [{width}], [{width}]"
        )
    mean, std = row_stats(x, d["eps"])
    m = mean.astype(F32).astype(F64)[..., None]
    s = std.astype(F32).astype(F64)[..., None]
    with np.errstate(all="ignore"):
        out = ((x.astype(F64) - m) / s) * w.astype(F64) + b.astype(F64)
    return out.astype(F32)


def _dot(d: Params, shape: Shape, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return products(a, b, shape, transposed=True) * F32(d["scale"])


def _matmul(_: Params, shape: Shape, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return products(a, b, shape, transposed=False)


def _causal_softmax(_: Params, shape: Shape, x: np.ndarray) -> np.ndarray:
    _same_shape(shape, x)
    return causal_softmax(x)


def _gelu_tanh(_: Params, shape: Shape, a: np.ndarray) -> np.ndarray:
    _same_shape(shape, a)
    return gelu_tanh(a.reshape(-1)).reshape(shape)


def _silu(_: Params, shape: Shape, a: np.ndarray) -> np.ndarray:
    _same_shape(shape, a)
    return silu(a.reshape(-1)).reshape(shape)


def _mul(_: Params, shape: Shape, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    _same_shape(shape, a)
    _same_shape(shape, b)
    return (a.astype(F32) * b.astype(F32)).astype(F32)


def _exp_diff(_: Params, shape: Shape, logits: np.ndarray, lse: np.ndarray) -> np.ndarray:
    _same_shape(shape, logits)
    if not shape or lse.shape != tuple(shape[:-1]):
        raise ValueError(
            f"its bases of shapes {list(logits.shape)} and {list(lse.shape)} are not logits and "
            "one log-sum-exp per row"
        )
    diff = logits.reshape(-1, shape[-1]) - lse.reshape(-1, 1)  # f32 subtraction
    return exp64(diff.astype(F64)).astype(F32).reshape(shape)


Op = Callable[..., np.ndarray]

#: op name -> (the function, how many bases it takes, the parameters it needs).
DERIVE: Dict[str, Tuple[Op, range, Tuple[str, ...]]] = {
    "sum": (_sum, range(1, 4), ()),
    "mean": (_mean, range(1, 2), ()),
    "std": (_std, range(1, 2), ("eps",)),
    "layer_norm": (_layer_norm, range(3, 4), ("eps",)),
    "dot": (_dot, range(2, 3), ("scale",)),
    "causal_softmax": (_causal_softmax, range(1, 2), ()),
    "matmul": (_matmul, range(2, 3), ()),
    "gelu_tanh": (_gelu_tanh, range(1, 2), ()),
    "silu": (_silu, range(1, 2), ()),
    "mul": (_mul, range(2, 3), ()),
    "exp_diff": (_exp_diff, range(2, 3), ()),
}


def check_derivation(derive: Params) -> None:
    """Raise `ValueError` unless `derive` names a known op, as many bases as it takes, and
    exactly the parameters it needs (checked before any base is decoded)."""
    op = derive.get("op")
    if op not in DERIVE:
        raise ValueError(f"its derivation's op {op!r} is not one of {', '.join(DERIVE)}")
    _, arity, params = DERIVE[op]
    bases = derive.get("from")
    if not isinstance(bases, list) or not all(isinstance(b, str) for b in bases):
        raise ValueError('its derivation\'s "from" is not a list of tensor names')
    if len(bases) not in arity:
        raise ValueError(f'its derivation "{op}" cannot take {len(bases)} bases')
    for key in set(derive) - {"op", "from"}:
        if key not in ("eps", "scale"):
            raise ValueError(f'its derivation has an unknown key "{key}"')
    for key in ("eps", "scale"):
        if key in params and key not in derive:
            raise ValueError(f'its derivation "{op}" needs "{key}"')
        if key not in params and key in derive:
            raise ValueError(f'its derivation "{op}" takes no "{key}"')
    eps = derive.get("eps")
    if eps is not None and not (isinstance(eps, (int, float)) and np.isfinite(eps) and eps >= 0):
        raise ValueError(f'its derivation\'s "eps" {eps} is not a number ≥ 0')


def derive(derive: Params, shape: Shape, bases: Sequence[np.ndarray]) -> np.ndarray:
    """The values of a derived tensor of `shape` from its decoded bases."""
    function = DERIVE[derive["op"]][0]
    with np.errstate(all="ignore"):
        return np.asarray(function(derive, tuple(shape), *bases), F32).reshape(shape)


# Version 2's predictions: f32 arithmetic in exactly the order the format gives.


def gelu_new(a: np.ndarray) -> np.ndarray:
    """Version 2's `gelu_new` prediction, tanh as a clamped rational function, in f32."""
    a = a.astype(F32)
    with np.errstate(all="ignore"):
        u = F32(0.7978846) * (a + F32(0.044715) * (a * a * a))
        u2 = u * u
        num = u * (F32(135135) + u2 * (F32(17325) + u2 * (F32(378) + u2)))
        den = F32(135135) + u2 * (F32(62370) + u2 * (F32(3150) + u2 * F32(28)))
        th = np.where(np.abs(u) >= 9, np.copysign(F32(1), u), np.clip(num / den, -1, 1)).astype(F32)
        result: np.ndarray = F32(0.5) * a * (F32(1) + th)
        return result


def _predict_elementwise(shape: Shape, bases: Sequence[np.ndarray]) -> None:
    if any(b.shape != tuple(shape) for b in bases):
        raise ValueError("a base of its prediction has another shape")


def _p_sum(shape: Shape, *bases: np.ndarray) -> np.ndarray:
    _predict_elementwise(shape, bases)
    out = bases[0].reshape(-1).copy()
    for b in bases[1:]:
        out = out + b.reshape(-1)
    return out.reshape(shape)


def _p_gelu_new(shape: Shape, a: np.ndarray) -> np.ndarray:
    _predict_elementwise(shape, [a])
    return gelu_new(a.reshape(-1)).reshape(shape)


def _p_matmul(shape: Shape, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return products(a, b, shape, transposed=False)


def _p_scaled_dot(shape: Shape, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    root = np.sqrt(F32(a.shape[-1] if a.ndim else 0))
    result: np.ndarray = products(a, b, shape, transposed=True) / root
    return result


#: op name -> (the function, how many bases it takes).
PREDICT: Dict[str, Tuple[Op, range]] = {
    "sum": (_p_sum, range(1, 4)),
    "gelu_new": (_p_gelu_new, range(1, 2)),
    "matmul": (_p_matmul, range(2, 3)),
    "scaled_dot": (_p_scaled_dot, range(2, 3)),
}


def check_prediction(predict: Params) -> None:
    """Raise `ValueError` unless `predict` names a known op and as many bases as it takes."""
    op = predict.get("op")
    if op not in PREDICT:
        raise ValueError(f"its prediction's op {op!r} is not one of {', '.join(PREDICT)}")
    bases = predict.get("from")
    if not isinstance(bases, list) or not all(isinstance(b, str) for b in bases):
        raise ValueError('its prediction\'s "from" is not a list of tensor names')
    if len(bases) not in PREDICT[op][1]:
        raise ValueError(f'its prediction "{op}" cannot take {len(bases)} bases')


def predict(predict: Params, shape: Shape, bases: Sequence[np.ndarray]) -> np.ndarray:
    """A version-2 prediction of a tensor of `shape` from its decoded bases."""
    function = PREDICT[predict["op"]][0]
    with np.errstate(all="ignore"):
        return np.asarray(function(tuple(shape), *bases), F32).reshape(shape)
