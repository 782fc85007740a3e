"""The experiments' tables: the numbers of a trace's ablation, patching and attribution (in
its meta), offered as tensors beside the stored ones, exactly as
`generator/trace/src/intervention.rs` and `attribution.rs` make them (docs/trace-format.md,
"Experiments' tables")."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

F32, F64 = np.float32, np.float64

#: Every table name a trace may offer, with its shape in words.
TABLES = {
    "ablation.logprob": "[targets]",
    "ablation.prob": "[targets]",
    "ablation.heads.logprob": "[layers, heads, targets]",
    "ablation.heads.prob": "[layers, heads, targets]",
    "ablation.mlp.logprob": "[layers, targets]",
    "ablation.mlp.prob": "[layers, targets]",
    "patching.resid": "[layers, positions]",
    "patching.heads": "[layers, heads]",
    "patching.attrib.resid": "[layers, positions]",
    "patching.attrib.heads": "[layers, heads]",
    "dla.logit": "[targets]",
    "dla.embed": "[targets]",
    "dla.heads": "[layers, heads, targets]",
    "dla.mlp": "[layers, targets]",
    "dla.bias": "[targets]",
    "saliency.grad_input": "[positions, targets]",
    "saliency.integrated": "[positions, targets]",
    "saliency.logprob": "[targets]",
    "saliency.baseline_logprob": "[targets]",
    "flow.attn": "[layers, positions, positions]",
    "flow.residual": "[layers, positions]",
    "flow.mlp": "[layers, positions]",
}

_NON_FINITE = {"NaN": np.nan, "inf": np.inf, "-inf": -np.inf}


def _float(value: Any, where: str) -> float:
    """A meta number as the Rust reader reads it: a JSON number (parsed to binary64, later
    rounded to f32), or one of the strings "NaN", "inf", "-inf"."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f'{where}: {value!r} is not a number or "NaN", "inf", "-inf"')
    if isinstance(value, str):
        if value not in _NON_FINITE:
            raise ValueError(f'{where}: {value!r} is not a number or "NaN", "inf", "-inf"')
        return _NON_FINITE[value]
    return float(value)


def _f32(values: Sequence[Any], where: str) -> np.ndarray:
    return np.array([_float(v, where) for v in values], F64).astype(F32)


def _grid(rows: Sequence[Sequence[Any]], where: str) -> np.ndarray:
    """A table of rows, shaped [rows, length of the first row] (values read in order)."""
    flat = [v for row in rows for v in row]
    shape = (len(rows), len(rows[0]) if rows else 0)
    if len(flat) != shape[0] * shape[1]:
        raise ValueError(f"{where}: its rows are not all of one length")
    return _f32(flat, where).reshape(shape)


def _exp(logprobs: np.ndarray) -> np.ndarray:
    """e^x of f32 values rounded to f32, as Rust's `f32::exp` gives it (the correctly
    rounded value, but for rare halfway cases that no trace has shown)."""
    with np.errstate(all="ignore"):
        return np.exp(logprobs.astype(F64)).astype(F32)


def tables(meta: Mapping[str, Any]) -> Dict[str, np.ndarray]:
    """Every table of the meta's ablation, patching and attribution, by name (in the order made; the
    trace lists them sorted)."""
    out: Dict[str, np.ndarray] = {}
    ablation: Optional[Mapping[str, Any]] = meta.get("ablation")
    if ablation is not None:
        k = len(ablation["targets"])
        heads: List[List[Mapping[str, Any]]] = ablation["heads"]
        layers, per_layer = len(heads), (len(heads[0]) if heads else 0)
        flat_heads = [v for layer in heads for o in layer for v in o["logprobs"]]
        flat_mlp = [v for o in ablation["mlp"] for v in o["logprobs"]]
        for name, shape, logprobs in (
            ("ablation", (k,), ablation["base"]["logprobs"]),
            ("ablation.heads", (layers, per_layer, k), flat_heads),
            ("ablation.mlp", (layers, k), flat_mlp),
        ):
            values = _f32(logprobs, f"meta.{name}")
            if values.size != int(np.prod(shape)):
                raise ValueError(
                    f"meta.{name}: {values.size} log-probabilities for shape {list(shape)}"
                )
            out[f"{name}.logprob"] = values.reshape(shape)
            out[f"{name}.prob"] = _exp(values).reshape(shape)
    patching: Optional[Mapping[str, Any]] = meta.get("patching")
    if patching is not None:
        for name in ("patching.resid", "patching.heads"):
            out[name] = _grid(patching[name.split(".")[1]], f"meta.{name}")
        for name in ("resid", "heads"):
            rows = patching.get(f"attrib_{name}", [])
            out[f"patching.attrib.{name}"] = (
                _grid(rows, f"meta.patching.attrib_{name}") if rows else np.zeros((0, 0), F32)
            )
    attribution: Optional[Mapping[str, Any]] = meta.get("attribution")
    if attribution is not None:
        k = len(attribution["targets"])
        heads = _grid(attribution["heads"], "meta.attribution.heads")
        out["dla.logit"] = _f32(attribution["logit"], "meta.attribution.logit")
        out["dla.embed"] = _f32(attribution["embed"], "meta.attribution.embed")
        out["dla.heads"] = heads.reshape(heads.shape[0], heads.shape[1] // max(k, 1), k)
        out["dla.mlp"] = _grid(attribution["mlp"], "meta.attribution.mlp")
        out["dla.bias"] = _f32(attribution["bias"], "meta.attribution.bias")
        for name in ("grad_input", "integrated"):
            rows = attribution.get(name, [])
            out[f"saliency.{name}"] = (
                _grid(rows, f"meta.attribution.{name}") if rows else np.zeros((0, k), F32)
            )
        for name in ("logprob", "baseline_logprob"):
            out[f"saliency.{name}"] = _f32(attribution.get(name, []), f"meta.attribution.{name}")
        flow: Mapping[str, Any] = attribution.get("flow") or {}
        residual, attn, mlp = (flow.get(n, []) for n in ("residual", "attn", "mlp"))
        t = len(residual[0]) if residual else 0
        out["flow.attn"] = (
            _grid(attn, "meta.attribution.flow.attn").reshape(len(attn), t, t)
            if attn
            else np.zeros((0, t, t), F32)
        )
        out["flow.residual"] = (
            _grid(residual, "meta.attribution.flow.residual") if residual else np.zeros((0, 0), F32)
        )
        out["flow.mlp"] = _grid(mlp, "meta.attribution.flow.mlp") if mlp else np.zeros((0, t), F32)
    return out
