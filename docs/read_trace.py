"""Read tracebook traces (format versions 1 to 3) with NumPy.

The reference reader of docs/trace-format.md: `read_tensor(trace, name)` decodes one tensor
of a parsed trace file into a float32 array of its shape, bit for bit as the Rust decoder
does (checked by benches/python_reader.sh on every tensor of the example site's traces and of
a GPT-2-small-shape trace at each precision).

    import json, read_trace
    trace = json.load(open("traces/robots.json"))
    pattern = read_trace.read_tensor(trace, "blocks.0.attn.pattern")
"""

import base64
import zlib

import numpy as np

F32, F64 = np.float32, np.float64


def read_tensor(trace, name, _seen=()):
    """Decode one tensor of a parsed trace file into a float32 array of its shape."""
    entry = trace["tensors"][name]
    shape = entry["shape"]
    if "derive" in entry:
        if name in _seen:
            raise ValueError(f"{name}: its derivation depends on itself")
        d = entry["derive"]
        bases = [read_tensor(trace, b, _seen + (name,)) for b in d["from"]]
        return DERIVE[d["op"]](d, *bases).astype(F32).reshape(shape)
    values = decode(entry).reshape(shape)
    if "predict" in entry:  # version 2
        op, bases = entry["predict"]["op"], entry["predict"]["from"]
        bases = [read_tensor(trace, base, _seen + (name,)) for base in bases]
        values = values + PREDICT[op](*bases)
    return values


def decode(entry):
    """The flat float32 values an encoded tensor entry stores."""
    shape, encoding = entry["shape"], entry["encoding"]
    raw = base64.b64decode(entry["data"], validate=True)
    if entry.get("compression") == "zlib":
        raw = zlib.decompress(raw)
    cols = shape[-1] if shape else 1
    rows = int(np.prod(shape[:-1], dtype=np.int64)) if shape else 1
    if encoding == "f32":
        return np.frombuffer(raw, "<f4").copy()
    if encoding == "f16":
        return np.frombuffer(raw, "<f2").astype(F32)
    if encoding == "f16_rows":
        offsets = np.frombuffer(raw[: 4 * rows], "<f4")
        h = np.frombuffer(raw[4 * rows :], "<f2").astype(F32)
        return (h.reshape(rows, cols) + offsets[:, None]).reshape(-1)
    if encoding == "unorm8":
        return np.frombuffer(raw, np.uint8).astype(F32) / F32(255)
    if encoding == "int8_rows":
        scales = np.frombuffer(raw[: 4 * rows], "<f4")
        q = np.frombuffer(raw[4 * rows :], np.int8).astype(F32)
        return (q.reshape(rows, cols) * scales[:, None]).reshape(-1)
    raise ValueError(f"unknown encoding {encoding!r}: this reader knows format versions 1 to 3")


# Elementary functions from IEEE +, -, *, / only, as exact_math.rs computes them.


def exp64(x):
    x = np.asarray(x, F64)
    with np.errstate(all="ignore"):
        y = x * F64(1.4426950408889634)
        n = np.trunc(y)
        n = n + np.where(np.abs(y - n) >= 0.5, np.sign(y), 0.0)  # round half away from zero
        n = np.nan_to_num(n, nan=0.0, posinf=0.0, neginf=0.0)
    r = (x - n * F64(6.931471803691238e-1)) - n * F64(1.9082149292705877e-10)
    p = np.ones_like(r)
    for k in range(13, 0, -1):
        p = 1.0 + p * r / F64(k)
    n = np.clip(n, -1100, 1100).astype(np.int64)
    half = np.trunc(n / 2).astype(np.int64)

    def power(e):
        return ((1023 + np.clip(e, -1022, 1023)).astype(np.uint64) << np.uint64(52)).view(F64)

    with np.errstate(all="ignore"):
        out = p * power(half) * power(n - half)
    out = np.where(x > 709.78, np.inf, out)
    out = np.where(x < -745.2, 0.0, out)
    return np.where(np.isnan(x), x, out)


def gelu_tanh(a):
    a = a.astype(F64)
    u = F64(0.7978845608028654) * (a + F64(0.044715) * (a * a * a))
    return a / (1.0 + exp64(-2.0 * u))


def row_stats(x, eps):
    x = x.astype(F64)
    d = x.shape[-1]
    mean = np.zeros(x.shape[:-1], F64)
    for c in range(d):  # summed in order, as the Rust reader does
        mean = mean + x[..., c]
    mean = mean / d
    var = np.zeros(x.shape[:-1], F64)
    for c in range(d):
        centred = x[..., c] - mean
        var = var + centred * centred
    return mean, np.sqrt(var / d + eps)


def layer_norm(d, x, w, b):
    mean, std = row_stats(x, d["eps"])
    m, s = mean.astype(F32).astype(F64), std.astype(F32).astype(F64)
    return ((x.astype(F64) - m[..., None]) / s[..., None]) * w.astype(F64) + b.astype(F64)


def matmul(a, b):  # [..., m, k] x [..., k, n], summed from 0 in order of k, in f32
    acc = np.zeros(a.shape[:-1] + b.shape[-1:], F32)
    for c in range(a.shape[-1]):
        acc = acc + a[..., :, c, None] * b[..., None, c, :]
    return acc


def causal_softmax(x):
    m, n = x.shape[-2:]
    kept = np.arange(n)[None, :] <= (np.arange(m)[:, None] + n - m)
    s = np.where(kept, x.astype(F64), -np.inf)
    e = np.where(kept, exp64(s - s.max(axis=-1, keepdims=True)), 0.0)
    total = np.zeros(x.shape[:-1], F64)
    for j in range(n):
        total = total + e[..., j]
    return e / total[..., None]


def exp_diff(a, b):
    return exp64((a - b[..., None]).astype(F32).astype(F64))


DERIVE = {
    "sum": lambda d, *bases: sum(bases[1:], bases[0]),
    "mean": lambda d, x: row_stats(x, 0.0)[0],
    "std": lambda d, x: row_stats(x, d["eps"])[1],
    "layer_norm": layer_norm,
    "dot": lambda d, a, b: matmul(a, np.swapaxes(b, -1, -2)) * F32(d["scale"]),
    "causal_softmax": lambda d, x: causal_softmax(x),
    "matmul": lambda d, a, b: matmul(a, b),
    "gelu_tanh": lambda d, a: gelu_tanh(a),
    "exp_diff": lambda d, a, b: exp_diff(a, b),
}


def gelu_new(a):  # version 2's prediction
    u = F32(0.7978846) * (a + F32(0.044715) * (a * a * a))
    u2 = u * u
    num = u * (135135 + u2 * (17325 + u2 * (378 + u2)))
    den = 135135 + u2 * (62370 + u2 * (3150 + u2 * 28))
    with np.errstate(all="ignore"):
        th = np.where(np.abs(u) >= 9, np.copysign(F32(1), u), np.clip(num / den, -1, 1))
    return F32(0.5) * a * (1 + th.astype(F32))


PREDICT = {
    "sum": lambda *bases: sum(bases[1:], bases[0]),
    "gelu_new": gelu_new,
    "matmul": matmul,
    "scaled_dot": lambda a, b: matmul(a, np.swapaxes(b, -1, -2)) / np.sqrt(F32(a.shape[-1])),
}


if __name__ == "__main__":
    import json
    import sys

    trace = json.load(open(sys.argv[1]))
    for name in sys.argv[2:] or sorted(trace["tensors"]):
        values = read_tensor(trace, name)
        print(name, list(values.shape), values.reshape(-1)[:4])
