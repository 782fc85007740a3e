"""Write a trace of the values real runs rarely hold, for test_equal.py to read both ways.

    python edge_trace.py IN.json OUT.json [CORRUPT_DIR]

OUT is IN (a version-3 trace with an ablation and a patching in its meta), with an attribution
added to its meta (shaped as the ablation, so every experiment table is read), plus tensors named
`extra.*` (writers may add tensors; readers decode any): NaN, infinities, -0.0 and
subnormals in f32 and f16, an int8_rows byte of -128 (never written, always read), a scalar,
an empty tensor, and derivations of them (the mean of a row of -0.0 is -0.0 in Rust); and
with "-inf", "NaN" and "inf" among the experiments' numbers.

With CORRUPT_DIR it also writes there one file per way a trace can be corrupt, each OUT with
a tensor named `bad` that neither reader may decode (or a header neither may read): data of
the wrong length, not base64, zlib cut short or too long, a derivation that reaches itself,
a missing base, a missing parameter, bases of the wrong shape, an unknown encoding or op, a
chain of version-2 predictions longer than allowed, and a version or format of another kind.
"""

import base64
import copy
import json
import os
import sys
import zlib

import numpy as np


def stored(shape, encoding, raw: bytes):
    return {"shape": shape, "encoding": encoding, "data": base64.b64encode(raw).decode()}


def main() -> None:
    source, out = sys.argv[1:3]
    trace = json.load(open(source))
    f32 = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-45, -3.4e38, 65504.0, 1.0], "<f4")
    f16 = np.array([0x0001, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x3C00], "<u2")
    int8 = (
        np.array([0.5, 1e-3], "<f4").tobytes()
        + np.array([-128, 127, 0, 1, -1, 5], np.int8).tobytes()
    )
    rows = (
        np.array([-80.5, 3.0], "<f4").tobytes()
        + np.array([0x0000, 0xBC00, 0x8001, 0x3555], "<u2").tobytes()
    )
    trace["tensors"].update(
        {
            "extra.f32": stored([2, 4], "f32", f32.tobytes()),
            "extra.f16": stored([6], "f16", f16.tobytes()),
            "extra.int8": stored([2, 3], "int8_rows", int8),
            "extra.f16_rows": stored([2, 2], "f16_rows", rows),
            "extra.unorm8": stored([3], "unorm8", bytes([0, 255, 128])),
            "extra.empty": stored([0, 4], "int8_rows", b""),
            "extra.scalar": stored([], "f32", np.array([2.5], "<f4").tobytes()),
            "extra.negative_zeros": stored([4], "f32", np.array([-0.0] * 4, "<f4").tobytes()),
            "extra.mean_of_negative_zeros": {
                "shape": [],
                "derive": {"op": "mean", "from": ["extra.negative_zeros"]},
            },
            "extra.scalar_sum": {
                "shape": [],
                "derive": {"op": "sum", "from": ["extra.scalar", "extra.scalar", "extra.scalar"]},
            },
            "extra.row_std": {
                "shape": [2],
                "derive": {"op": "std", "eps": 0.0, "from": ["extra.f32"]},
            },
            "extra.exp_diff": {
                "shape": [2, 4],
                "derive": {"op": "exp_diff", "from": ["extra.f32", "extra.f16_rows_lse"]},
            },
            "extra.f16_rows_lse": stored([2], "f32", np.array([0.5, -np.inf], "<f4").tobytes()),
        }
    )
    trace["tensors"] = dict(sorted(trace["tensors"].items()))
    ablation, patching = trace["meta"]["ablation"], trace["meta"]["patching"]
    ablation["base"]["logprobs"][-1] = "NaN"
    ablation["heads"][0][0]["logprobs"][0] = "-inf"
    ablation["mlp"][-1]["logprobs"][0] = "inf"
    patching["resid"][0][0] = "-inf"
    patching["heads"][-1][-1] = "NaN"
    patching["attrib_resid"] = [["-inf" if (l, p) == (0, 0) else 0.5 * p for p in range(len(row))] for l, row in enumerate(patching["resid"])]
    patching["attrib_heads"] = [[1e-30] * len(row) for row in patching["heads"]]
    layers, heads, k = len(ablation["heads"]), len(ablation["heads"][0]), len(ablation["targets"])
    n = len(trace["meta"]["tokens"])
    trace["meta"]["attribution"] = {
        "targets": ablation["targets"],
        "logit": [1.5 + t for t in range(k)],
        "embed": ["-inf"] + [0.25] * (k - 1),
        "heads": [[(l * heads + i) / 7 for i in range(heads * k)] for l in range(layers)],
        "mlp": [[-0.5] * k for _ in range(layers)],
        "bias": ["NaN"] + [1e-30] * (k - 1),
        "grad_input": [[0.5 - t + p for t in range(k)] for p in range(len(trace["meta"]["tokens"]))],
        "integrated": [["inf"] + [-0.25] * (k - 1)] * len(trace["meta"]["tokens"]),
        "logprob": [-1.5] * k,
        "baseline_logprob": [-3.0] * k,
        "flow": {
            "attn": [[(i * n + j) / (3 * n * n) if j <= i else 0 for i in range(n) for j in range(n)] for _ in range(layers)],
            "residual": [["NaN"] + [0.5] * (n - 1) for _ in range(layers)],
            "mlp": [[1e-30 + l / 10] * n for l in range(layers)],
        },
    }
    write(trace, out)
    if len(sys.argv) > 3:
        for name, change in corruptions().items():
            bad = copy.deepcopy(trace)
            change(bad)
            bad["tensors"] = dict(sorted(bad["tensors"].items()))
            write(bad, os.path.join(sys.argv[3], f"corrupt-{name}.json"))


def write(trace, path: str) -> None:
    with open(path, "w") as f:
        json.dump(trace, f, indent=1)
        f.write("\n")


def corruptions():
    """Name -> how it spoils a trace (each gives the trace a tensor `bad`, or spoils its header)."""
    two = np.array([1.0, 2.0], "<f4").tobytes()
    packed = zlib.compress(two)

    def tensors(**entries):
        return lambda t: t["tensors"].update(entries)

    def predicted(base):
        entry = stored([1], "int8_rows", np.array([1.0], "<f4").tobytes() + bytes([1]))
        return dict(entry, predict={"op": "sum", "from": [base]})

    return {
        "version": lambda t: t.update(version=4),
        "format": lambda t: t.update(format="tracebook-tensors"),
        "length": tensors(bad=stored([3], "f32", two)),
        "base64": tensors(bad={"shape": [2], "encoding": "f32", "data": "AAAA@AAAAAA="}),
        "zlib-short": tensors(bad=dict(stored([2], "f32", packed[:-5]), compression="zlib")),
        "zlib-long": tensors(bad=dict(stored([1], "f32", packed), compression="zlib")),
        "zlib-unknown": tensors(bad=dict(stored([2], "f32", packed), compression="zstd")),
        "cycle": tensors(
            bad={"shape": [2], "derive": {"op": "sum", "from": ["bad.loop"]}},
            **{"bad.loop": {"shape": [2], "derive": {"op": "sum", "from": ["bad"]}}},
        ),
        "missing-base": tensors(bad={"shape": [2], "derive": {"op": "sum", "from": ["nowhere"]}}),
        "no-eps": tensors(bad={"shape": [2], "derive": {"op": "std", "from": ["extra.f32"]}}),
        "arity": tensors(bad={"shape": [2], "derive": {"op": "mean", "from": ["extra.f32"] * 2}}),
        "shape": tensors(bad={"shape": [3], "derive": {"op": "mean", "from": ["extra.f32"]}}),
        "op": tensors(bad={"shape": [2], "derive": {"op": "cube", "from": ["extra.f32"]}}),
        "encoding": tensors(bad={"shape": [2], "encoding": "f8", "data": "AAA="}),
        "both": tensors(bad=dict(stored([2], "f32", two), derive={"op": "sum", "from": ["x"]})),
        "prediction-chain": tensors(
            bad=predicted("bad.1"),
            **{"bad.1": predicted("bad.2"), "bad.2": predicted("bad.3")},
            **{"bad.3": stored([1], "f32", np.array([1.0], "<f4").tobytes())},
        ),
    }


if __name__ == "__main__":
    main()
