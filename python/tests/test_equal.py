"""tracebook_trace against the Rust reader: every tensor of every trace given, bit for bit.

    python test_equal.py --tracebook target/release/tracebook FILE... [--refuse FILE...]

For each trace it compares the listing (`tracebook inspect FILE --json`: names in order,
shapes, encodings, derivations, which are experiments' tables) with `Trace.names()`,
`shape()`, `encoding()`, `derivation()`, `is_table()`; then every tensor's values
(`tracebook inspect FILE --tensor NAME --json`) with `Trace.tensor(NAME)`, bit for bit. The
Rust side prints non-finite values as null (JSON has no NaN): there the Python value must be
non-finite too. It also checks that a mistyped name gets the suggestion `tracebook inspect`
gives, and that both readers refuse the tensor `bad` of each `--refuse` file (or the file).

Exits non-zero on any difference, naming the file, the tensor and the first values that
differ; and when the traces given do not cover every format version, precision, encoding,
compression, derivation op, version-2 prediction op and experiment table (so that the test
cannot silently shrink).
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List

import numpy as np

import tracebook_trace
from tracebook_trace import _codec, _ops, _tables

MUST_COVER = {
    "version": {"1", "2", "3"},
    "model": {"decoder-only", "encoder-decoder"},
    "precision": {"compact", "f16", "f32"},
    "encoding": set(_codec.ENCODINGS),
    "stored as": {"zlib", "plain"},
    "derive": set(_ops.DERIVE),
    "predict": set(_ops.PREDICT),
    "table": set(_tables.TABLES),
}


def inspect(binary: str, *args: str) -> Any:
    done = subprocess.run([binary, "inspect", *args, "--json"], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"tracebook inspect {' '.join(args)} failed:\n{done.stderr}")
    return json.loads(done.stdout)


def rust_values(data: List[Any], shape: List[int]) -> tuple[np.ndarray, np.ndarray]:
    """The Rust reader's values as float32 (each printed as the f64 of an f32, so exact), and
    where it printed null (a NaN or an infinity)."""
    null = np.array([v is None for v in data], bool)
    values = np.array([np.nan if v is None else v for v in data], np.float64).astype(np.float32)
    return values.reshape(shape), null.reshape(shape)


def compare_tensor(path: str, name: str, ours: np.ndarray, rust: Dict[str, Any]) -> List[str]:
    theirs, null = rust_values(rust["data"], rust["shape"])
    if ours.dtype != np.float32:
        return [f"{path} {name}: dtype {ours.dtype}, not float32"]
    if list(ours.shape) != list(rust["shape"]):
        return [f"{path} {name}: shape {list(ours.shape)} here, {rust['shape']} in Rust"]
    a, b = ours.reshape(-1), theirs.reshape(-1)
    differ = (a.view(np.uint32) != b.view(np.uint32)) & ~null.reshape(-1)
    differ |= null.reshape(-1) & np.isfinite(a)
    if not differ.any():
        return []
    bad = np.flatnonzero(differ)
    bits = a.view(np.uint32), b.view(np.uint32)
    show = ", ".join(
        f"[{i}] {float(a[i]):.9g} (0x{bits[0][i]:08x}) vs {float(b[i]):.9g} (0x{bits[1][i]:08x})"
        for i in bad[:3]
    )
    return [f"{path} {name}: {len(bad)} of {a.size} values differ from Rust's, first {show}"]


def check_trace(
    binary: str, path: str, coverage: Dict[str, collections.Counter], jobs: int
) -> tuple[int, List[str]]:
    problems: List[str] = []
    listing = inspect(binary, path)
    t = tracebook_trace.load(path)
    with open(path, "rb") as f:  # an open file reads as the path does
        if tracebook_trace.load(f).names() != t.names():
            problems.append(f"{path}: load(open file) lists other names than load(path)")
    coverage["version"][str(t.version)] += 1
    coverage["precision"][t.precision] += 1
    coverage["model"]["encoder-decoder" if "translation" in t.meta else "decoder-only"] += 1
    listed = [entry["name"] for entry in listing["tensors"]]
    if t.names() != listed:
        missing, extra = sorted(set(listed) - set(t.names())), sorted(set(t.names()) - set(listed))
        problems.append(
            f"{path}: names() differ from the listing (missing {missing}, extra {extra}, or the order)"
        )
    if len(t.tokens) != listing["tokens"] or t.precision != listing["precision"]:
        problems.append(
            f"{path}: {len(t.tokens)} tokens, {t.precision} here; {listing['tokens']}, {listing['precision']} in Rust"
        )
    for entry in listing["tensors"]:
        name = entry["name"]
        if name not in t:
            continue
        if (
            list(t.shape(name)) != entry["shape"]
            or t.encoding(name) != entry["encoding"]
            or t.is_table(name) != entry["experiment"]
        ):
            problems.append(
                f"{path} {name}: shape, encoding or table flag differ from the listing's {entry}"
            )
        ours_d, rust_d = t.derivation(name), entry["derive"]
        if (ours_d is None) != (rust_d is None) or (
            ours_d is not None and (ours_d["op"], ours_d["from"]) != (rust_d["op"], rust_d["from"])
        ):
            problems.append(f"{path} {name}: derivation {ours_d} here, {rust_d} in Rust")
        raw = t._entries.get(name, {})
        if t.is_table(name):
            coverage["table"][name] += 1
        elif ours_d is not None:
            coverage["derive"][ours_d["op"]] += 1
        else:
            coverage["encoding"][raw["encoding"]] += 1
            coverage["stored as"]["zlib" if raw.get("compression") == "zlib" else "plain"] += 1
            if "predict" in raw:
                coverage["predict"][raw["predict"]["op"]] += 1
    names = [n for n in listed if n in t]
    with ThreadPoolExecutor(jobs) as pool:
        rust = list(pool.map(lambda n: inspect(binary, path, "--tensor", n), names))
    for name, theirs in zip(names, rust):
        problems += compare_tensor(path, name, t.tensor(name), theirs)
    if names:  # a typo gets the suggestion Rust gives
        typo = names[0][:-1] + "#"
        err = subprocess.run(
            [binary, "inspect", path, "--tensor", typo], capture_output=True, text=True
        ).stderr
        rust_hint = re.search(r"did you mean `([^`]*)`", err)
        try:
            t.tensor(typo)
            problems.append(f"{path}: tensor({typo!r}) did not raise")
        except KeyError as e:
            ours_hint = getattr(e, "suggestion", None)
            if ours_hint != (rust_hint and rust_hint.group(1)):
                problems.append(
                    f"{path}: {typo!r} suggests {ours_hint!r} here, {rust_hint and rust_hint.group(1)!r} in Rust"
                )
    return len(names), problems


def check_refusal(binary: str, path: str) -> List[str]:
    """Both readers refuse to read tensor `bad` of `path` (or the whole file): Rust with an
    error, Python with a `TraceError` that is not "no such tensor"."""
    rust = subprocess.run([binary, "inspect", path, "--tensor", "bad"], capture_output=True)
    try:
        tracebook_trace.load(path).tensor("bad")
        python = "read it"
    except tracebook_trace.UnknownTensorError as e:
        python = f"found no tensor: {e}"
    except tracebook_trace.TraceError:
        python = ""
    except Exception as e:  # noqa: BLE001 (any other exception is a bug to report)
        python = f"raised {type(e).__name__}: {e}"
    problems = []
    if rust.returncode == 0:
        problems.append(
            f"{path}: the Rust reader read tensor `bad`; the test expects a corrupt one"
        )
    if python:
        problems.append(f"{path}: tensor `bad` should raise TraceError, but Python {python}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tracebook", required=True, help="the tracebook binary")
    parser.add_argument("--jobs", type=int, default=2, help="inspect processes at once")
    parser.add_argument(
        "--refuse",
        nargs="*",
        default=[],
        help="files whose tensor `bad` (or whose header) both readers must refuse",
    )
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    started = time.monotonic()
    coverage: Dict[str, collections.Counter] = {key: collections.Counter() for key in MUST_COVER}
    problems: List[str] = []
    checked = 0
    for path in args.files:
        count, found = check_trace(args.tracebook, path, coverage, args.jobs)
        checked += count
        problems += found
        print(
            f"  {path}: {count} tensors{', ' + str(len(found)) + ' problems' if found else ''}",
            flush=True,
        )
    for path in args.refuse:
        problems += check_refusal(args.tracebook, path)
    for key, wanted in MUST_COVER.items():
        missing = wanted - set(coverage[key])
        if missing:
            problems.append(f"coverage: no {key} {sorted(missing)} among the traces checked")
    print(
        "covered: "
        + "; ".join(f"{key} {dict(sorted(coverage[key].items()))}" for key in MUST_COVER)
    )
    if problems:
        print(f"FAIL: {len(problems)} problems", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print(
        f"tracebook_trace equals the Rust reader bit for bit on {checked} tensors of "
        f"{len(args.files)} traces, and both refuse the {len(args.refuse)} corrupt files "
        f"({time.monotonic() - started:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
