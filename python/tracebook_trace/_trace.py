"""`Trace`: one trace file, its meta, its tokens and every tensor it holds, decoded lazily."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import IO, Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _codec, _ops, _suggest, _tables

F32 = np.float32

#: The `format` every trace file has.
FORMAT = "tracebook-trace"
#: The format versions this package reads (docs/trace-format.md, "Versioning").
VERSIONS = (1, 2, 3)
#: How many levels of bases a version-2 prediction may go through (a base may be predicted,
#: a base of a base not), as the Rust reader allows.
MAX_PREDICTION_DEPTH = 2

_REGENERATE = (
    "run `tracebook trace` to regenerate it "
    "(`tracebook trace --prompt TEXT --out FILE` for an ad-hoc trace)"
)


class TraceError(ValueError):
    """The file is not a trace this package reads, or one of its tensors is corrupt."""


class UnknownTensorError(TraceError, KeyError):
    """No tensor of that name; `suggestion` is the nearest name the trace has, if any is
    close (the same one `tracebook inspect` suggests)."""

    def __init__(self, origin: str, name: str, suggestion: Optional[str]) -> None:
        self.name = name
        self.suggestion = suggestion
        near = f"; did you mean `{suggestion}`?" if suggestion else ""
        super().__init__(
            f"{origin}: no tensor {json.dumps(name)}{near}\n  hint: Trace.names() lists its tensors"
        )

    def __str__(self) -> str:  # KeyError would print the message quoted
        return str(self.args[0])


@dataclass(frozen=True)
class Token:
    """A prompt token: its vocabulary `id`, its `text`, and its byte span `start`..`end`
    (end exclusive) in the prompt's UTF-8 text."""

    id: int
    text: str
    start: int
    end: int


PathOrFile = Union[str, "os.PathLike[str]", IO[str], IO[bytes]]


class Trace:
    """A parsed trace: `meta`, `tokens`, `version`, `precision`, and its tensors by name.

    Tensors are decoded when first asked for and kept (derived tensors need their bases, so a
    trace decodes each tensor at most once); `tensor()` hands out copies.
    """

    def __init__(self, document: Mapping[str, Any], origin: str = "<trace>") -> None:
        """Check a parsed trace document (`json.load` of a trace file). `origin` names the
        file in errors. Raises `TraceError` for anything but a trace of versions 1 to 3."""
        self.origin = origin
        self._document = document
        # The file's own text, when it was read from one (`loads`): handed unchanged to the
        # figures' Rust code, which reads it as `tracebook figure` reads the file.
        self._text: Optional[str] = None
        if not isinstance(document, Mapping):
            raise TraceError(f"{origin}: not a tracebook trace: the file is not a JSON object")
        fmt = document.get("format")
        if fmt != FORMAT:
            raise TraceError(
                f'{origin}: not a tracebook trace: its "format" is {json.dumps(fmt)}, '
                f'not "{FORMAT}"'
            )
        version = document.get("version")
        if isinstance(version, bool) or not isinstance(version, int) or version not in VERSIONS:
            raise TraceError(
                f"{origin}: trace format version {json.dumps(version)}; this reader reads "
                f"versions {VERSIONS[0]} to {VERSIONS[-1]}\n  hint: {_REGENERATE}"
            )
        meta, tensors = document.get("meta"), document.get("tensors")
        if not isinstance(meta, dict) or not isinstance(tensors, dict):
            raise TraceError(f'{origin}: a trace needs the objects "meta" and "tensors"')
        self.version: int = version
        self.meta: Dict[str, Any] = meta
        self._entries: Dict[str, Dict[str, Any]] = {}
        for name in sorted(tensors):
            self._entries[name] = self._checked(name, tensors[name])
        self._table_values: Optional[Dict[str, np.ndarray]] = None
        self._cache: Dict[str, np.ndarray] = {}

    # What the run was.

    @property
    def precision(self) -> str:
        """`meta.options.precision`: `"compact"`, `"f16"` or `"f32"`."""
        return str(self.meta["options"]["precision"])

    @property
    def tokens(self) -> List[Token]:
        """The prompt's tokens, in order."""
        return [
            Token(int(t["id"]), t["text"], int(t["start"]), int(t["end"]))
            for t in self.meta["tokens"]
        ]

    @property
    def token_texts(self) -> Dict[int, str]:
        """The text of every token id the trace mentions (`meta.token_texts`), by id."""
        return {int(k): v for k, v in self.meta.get("token_texts", {}).items()}

    # Tensors.

    def names(self) -> List[str]:
        """Every tensor name, as `tracebook inspect` lists them: the stored and derived
        tensors sorted, then the experiments' tables the meta holds (`ablation.*`,
        `patching.*`), sorted."""
        return list(self._entries) + sorted(self._tables())

    def __contains__(self, name: object) -> bool:
        return name in self._entries or name in self._tables()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._entries) + len(self._tables())

    def tensor(self, name: str) -> np.ndarray:
        """The tensor's values: a new float32 array of its shape, bit for bit what the Rust
        reader (`tracebook inspect --tensor NAME --json`) gives. Raises `UnknownTensorError`
        (a `KeyError`) for a name the trace has not, naming the closest one, and
        `TraceError` for a corrupt tensor."""
        if name not in self._entries:
            tables = self._tables()
            if name in tables:
                return tables[name].copy()
            raise self._unknown(name)
        return self._values(name).copy()

    def shape(self, name: str) -> Tuple[int, ...]:
        """The tensor's shape, without decoding it."""
        if name in self._entries:
            return tuple(self._entries[name]["shape"])
        if name in self._tables():
            return self._tables()[name].shape
        raise self._unknown(name)

    def encoding(self, name: str) -> Optional[str]:
        """How the tensor is stored (`"f32"`, `"f16"`, `"f16_rows"`, `"unorm8"`,
        `"int8_rows"`); None for a derived tensor or an experiment's table."""
        self.shape(name)
        return self._entries.get(name, {}).get("encoding")

    def derivation(self, name: str) -> Optional[Dict[str, Any]]:
        """The `derive` of a derived tensor (`{"op": ..., "from": [...], ...}`), else None."""
        self.shape(name)
        return self._entries.get(name, {}).get("derive")

    def is_table(self, name: str) -> bool:
        """Whether `name` is one of the experiments' tables, read from the meta."""
        return name not in self._entries and name in self._tables()

    def clear_cache(self) -> None:
        """Forget every decoded tensor (they are decoded again when next asked for)."""
        self._cache.clear()

    def __repr__(self) -> str:
        return (
            f"<tracebook_trace.Trace {self.origin}: version {self.version}, {self.precision}, "
            f"{len(self.meta.get('tokens', []))} tokens, {len(self)} tensors>"
        )

    # Inside.

    def _corrupt(self, name: str, problem: str) -> TraceError:
        return TraceError(
            f"{self.origin}: tensor {json.dumps(name)} is corrupt: {problem}\n  hint: {_REGENERATE}"
        )

    def _unknown(self, name: str) -> UnknownTensorError:
        return UnknownTensorError(self.origin, name, _suggest.closest(name, self.names()))

    def _checked(self, name: str, entry: Any) -> Dict[str, Any]:
        """A tensor entry, checked as far as can be without decoding it."""
        if not isinstance(entry, dict):
            raise self._corrupt(name, "its entry is not an object")
        shape = entry.get("shape")
        if not isinstance(shape, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
        ):
            raise self._corrupt(name, 'its "shape" is not a list of sizes')
        try:
            if "derive" in entry:
                if any(k in entry for k in ("encoding", "data", "predict", "compression")):
                    raise ValueError(
                        'it is derived, so it has no "encoding", "data", "predict" or "compression"'
                    )
                if not isinstance(entry["derive"], dict):
                    raise ValueError('its "derive" is not an object')
                _ops.check_derivation(entry["derive"])
            elif isinstance(entry.get("encoding"), str) and isinstance(entry.get("data"), str):
                if entry["encoding"] not in _codec.ENCODINGS:
                    raise ValueError(
                        f"its encoding {entry['encoding']!r} is not one of {', '.join(_codec.ENCODINGS)}"
                    )
                if entry.get("compression", "zlib") not in _codec.COMPRESSIONS:
                    raise ValueError(f"its compression {entry['compression']!r} is not zlib")
                if "predict" in entry:
                    if not isinstance(entry["predict"], dict):
                        raise ValueError('its "predict" is not an object')
                    _ops.check_prediction(entry["predict"])
            else:
                raise ValueError('it has neither "derive" nor both "encoding" and "data"')
        except ValueError as e:
            raise self._corrupt(name, str(e)) from None
        return entry

    def _tables(self) -> Dict[str, np.ndarray]:
        if self._table_values is None:
            try:
                made = _tables.tables(self.meta)
            except (ValueError, KeyError, TypeError, IndexError) as e:
                raise TraceError(
                    f"{self.origin}: its meta's experiments are corrupt: {e}"
                ) from None
            for values in made.values():
                values.flags.writeable = False
            self._table_values = {name: made[name] for name in sorted(made)}
        return self._table_values

    def _bases(self, name: str) -> Sequence[str]:
        entry = self._entries[name]
        spec = entry.get("derive", entry.get("predict"))
        return () if spec is None else [str(base) for base in spec["from"]]

    def _values(self, name: str) -> np.ndarray:
        """The decoded tensor (kept, read-only), its bases decoded first: depth first without
        recursion, so that a residual stream derived through a hundred blocks decodes."""
        if name in self._cache:
            return self._cache[name]
        active, done = set(), set()
        stack = [name]
        while stack:
            n = stack[-1]
            if n in self._cache or n in done:
                stack.pop()
            elif n not in active:
                active.add(n)
                for base in self._bases(n):
                    if base not in self._entries:
                        raise self._corrupt(n, f"its base {json.dumps(base)} is not in the trace")
                    if base in active:
                        raise self._corrupt(n, "its derivation depends on itself through its bases")
                    if base not in self._cache and base not in done:
                        stack.append(base)
            else:
                stack.pop()
                active.discard(n)
                done.add(n)
                values = self._compute(n)
                values.flags.writeable = False
                self._cache[n] = values
        return self._cache[name]

    def _compute(self, name: str) -> np.ndarray:
        """One tensor from its entry and its decoded bases (already in the cache)."""
        entry = self._entries[name]
        shape = tuple(entry["shape"])
        bases = [self._cache[b] for b in self._bases(name)]
        if "predict" in entry:
            self._check_prediction_depth(name)
        try:
            if "derive" in entry:
                return _ops.derive(entry["derive"], shape, bases)
            values = _codec.decode(entry).reshape(shape)
            if "predict" not in entry:
                return values
            with np.errstate(all="ignore"):
                predicted: np.ndarray = values + _ops.predict(entry["predict"], shape, bases)
            return predicted
        except ValueError as e:
            raise self._corrupt(name, str(e)) from None

    def _check_prediction_depth(self, name: str) -> None:
        """Refuse a chain of predictions longer than the format allows (as the Rust reader
        does, whatever the file says): a base may be predicted, a base of a base not."""

        def predicted(n: str) -> bool:
            return "predict" in self._entries.get(n, {})

        for base in self._entries[name]["predict"]["from"]:
            for deeper in (
                self._entries[base].get("predict", {}).get("from", []) if predicted(base) else []
            ):
                if predicted(deeper):
                    raise self._corrupt(
                        deeper,
                        f"it is predicted, but is a base {MAX_PREDICTION_DEPTH} levels down a chain "
                        f"of predictions (at most {MAX_PREDICTION_DEPTH} levels are allowed)",
                    )


def loads(text: Union[str, bytes], origin: str = "<trace>") -> Trace:
    """A trace from the text of a trace file. `origin` names it in errors."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise TraceError(f"{origin}: not a tracebook trace: not UTF-8 text ({e})") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        raise TraceError(
            f"{origin}: not a tracebook trace: not JSON (line {e.lineno}, column {e.colno}: {e.msg})"
        ) from None
    trace = Trace(document, origin)
    trace._text = text
    return trace


def load(source: PathOrFile) -> Trace:
    """Read a trace: a path (`str` or `os.PathLike`) or an open file (text or binary).

    t = tracebook_trace.load("traces/robots.json")
    t.tensor("blocks.0.attn.pattern").shape   # (heads, tokens, tokens)
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, "rb") as f:
            return loads(f.read(), origin=path)
    return loads(source.read(), origin=str(getattr(source, "name", "<trace>")))
