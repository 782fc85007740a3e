"""Stored tensors: base64, zlib, and the five encodings of docs/trace-format.md."""

from __future__ import annotations

import base64
import binascii
import zlib
from typing import Any, Mapping, Sequence

import numpy as np

F32 = np.float32

#: The encodings a stored tensor may have (their byte layouts: `byte_len`, `decode`).
ENCODINGS = ("f32", "f16", "f16_rows", "unorm8", "int8_rows")

#: The compressions a stored tensor may have (version 2 and later).
COMPRESSIONS = ("zlib",)


def value_count(shape: Sequence[int]) -> int:
    """The number of values of a tensor of `shape` (1 for a scalar)."""
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


def rows_and_cols(shape: Sequence[int]) -> tuple[int, int]:
    """A row is the last dimension: a scalar is one row of one value, a 1-D tensor one row."""
    if not shape:
        return 1, 1
    return int(np.prod(shape[:-1], dtype=np.int64)), int(shape[-1])


def byte_len(encoding: str, shape: Sequence[int]) -> int:
    """How many bytes `encoding` takes for a tensor of `shape` (before compression)."""
    n = value_count(shape)
    rows, _ = rows_and_cols(shape)
    return {
        "f32": 4 * n,
        "f16": 2 * n,
        "f16_rows": 4 * rows + 2 * n,
        "unorm8": n,
        "int8_rows": 4 * rows + n,
    }[encoding]


def encoded_bytes(entry: Mapping[str, Any]) -> bytes:
    """A stored entry's encoded bytes: base64-decoded, inflated when compressed, and checked
    to be exactly as many as its encoding takes. Raises `ValueError` saying what is wrong."""
    try:
        raw = base64.b64decode(entry["data"], validate=True)
    except (binascii.Error, ValueError) as e:
        raise ValueError(f"its data is not valid base64 ({e})") from None
    expected = byte_len(entry["encoding"], entry["shape"])
    compression = entry.get("compression")
    if compression == "zlib":
        inflater = zlib.decompressobj()
        try:
            raw = inflater.decompress(raw, expected + 1)
        except zlib.error as e:
            raise ValueError(f"its zlib data does not inflate ({e})") from None
        if len(raw) > expected:
            raise ValueError(
                f"its zlib data inflates to more than the {expected} bytes its shape and "
                "encoding need"
            )
        if not inflater.eof:
            raise ValueError("its zlib data is cut short")
    elif compression is not None:
        raise ValueError(f"its compression {compression!r} is not one of {', '.join(COMPRESSIONS)}")
    if len(raw) != expected:
        raise ValueError(
            f"its {entry['encoding']} data holds {len(raw)} bytes, but shape {list(entry['shape'])} "
            f"takes {expected}"
        )
    return raw


def decode(entry: Mapping[str, Any]) -> np.ndarray:
    """The flat float32 values a stored tensor entry's data decodes to (before any version-2
    prediction is added)."""
    encoding = entry["encoding"]
    raw = encoded_bytes(entry)
    rows, cols = rows_and_cols(entry["shape"])
    if encoding == "f32":
        return np.frombuffer(raw, "<f4").astype(F32)
    if encoding == "f16":
        return np.frombuffer(raw, "<f2").astype(F32)
    if encoding == "f16_rows":
        offsets = np.frombuffer(raw[: 4 * rows], "<f4").astype(F32)
        h = np.frombuffer(raw[4 * rows :], "<f2").astype(F32)
        with np.errstate(all="ignore"):
            return (h.reshape(rows, cols) + offsets[:, None]).reshape(-1)
    if encoding == "unorm8":
        return np.frombuffer(raw, np.uint8).astype(F32) / F32(255)
    if encoding == "int8_rows":
        scales = np.frombuffer(raw[: 4 * rows], "<f4").astype(F32)
        q = np.frombuffer(raw[4 * rows :], np.int8).astype(F32)
        with np.errstate(all="ignore"):
            return (q.reshape(rows, cols) * scales[:, None]).reshape(-1)
    raise ValueError(f"its encoding {encoding!r} is not one of {', '.join(ENCODINGS)}")
