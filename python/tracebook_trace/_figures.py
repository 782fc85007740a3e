"""`figure()` and `trace()`: tracebook's figures and tracer, in-process, for notebooks.

Both call the Rust code the command line runs (the `_native` extension built by maturin from
python/src/lib.rs): `figure("attention", t, layer=1)` is the figure
`tracebook figure $'attention\\nprompt = "trace"\\nlayer = 1'` draws, byte for byte, and
`trace("The cat sat", generate=4)` the trace `tracebook trace --prompt ... --out ...` writes.
"""

from __future__ import annotations

import json
import os
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

from ._trace import Trace, load, loads

try:
    from . import _native
except ImportError as e:  # a source checkout used without installing it
    _native = None
    _NATIVE_ERROR = e

TraceLike = Union[Trace, str, "os.PathLike[str]"]
Traces = Union[TraceLike, Mapping[str, TraceLike], Sequence[TraceLike]]

#: The name a lone trace goes by in a figure's options (`prompt = "trace"`).
DEFAULT_NAME = "trace"


def _need_native() -> Any:
    if _native is None:
        raise ImportError(
            "tracebook_trace's figures and tracer are its compiled part, which this copy lacks "
            f"({_NATIVE_ERROR})\n  hint: install the package (pip install ./python from a clone "
            "of tracebook), which builds it; reading traces needs only NumPy"
        )
    return _native


class Figure:
    """A figure drawn by tracebook: `svg` (the standalone SVG, caption and credit drawn under
    the figure) and `html` (the fragment `tracebook figure --html` writes: the figure and its
    controls in a shadow root, with the script that makes them work; nothing shared with the
    page around it). Jupyter shows the HTML; `save()` writes either."""

    def __init__(self, kind: str, svg: str, html: str) -> None:
        self.kind = kind
        self.svg = svg
        self.html = html

    def _repr_html_(self) -> str:
        return self.html

    def _repr_svg_(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return f"<tracebook Figure {self.kind!r}: {len(self.svg):,} bytes of SVG, {len(self.html):,} of HTML>"

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write the figure to `path`: the SVG for a name ending `.svg`, the HTML fragment for
        `.html` or `.htm`; the same bytes as `tracebook figure --svg` / `--html`."""
        name = os.fspath(path)
        lower = name.lower()
        if lower.endswith(".svg"):
            text = self.svg
        elif lower.endswith((".html", ".htm")):
            text = self.html
        else:
            raise ValueError(f"{name}: save as .svg (the figure) or .html (the figure with its controls)")
        with open(name, "w", encoding="utf-8", newline="") as f:
            f.write(text)


def _as_trace(value: TraceLike) -> Trace:
    if isinstance(value, Trace):
        return value
    if isinstance(value, (str, os.PathLike)):
        return load(value)
    raise TypeError(f"a trace is a Trace (tracebook_trace.load, trace()) or a path, not {type(value).__name__}")


def _named(traces: Traces) -> List[Tuple[str, Trace]]:
    if isinstance(traces, Mapping):
        return [(str(name), _as_trace(t)) for name, t in traces.items()]
    if isinstance(traces, (Trace, str, os.PathLike)):
        return [(DEFAULT_NAME, _as_trace(traces))]
    listed = list(traces)
    return [(f"{DEFAULT_NAME}{i + 1}", _as_trace(t)) for i, t in enumerate(listed)]


def _text(trace: Trace) -> str:
    return trace._text if trace._text is not None else json.dumps(trace._document)


_drawn = 0


def figure(
    kind: str,
    traces: Traces,
    *,
    number: Optional[int] = None,
    site: Optional[Union[str, "os.PathLike[str]"]] = None,
    **options: Any,
) -> Figure:
    """Draw a figure of kind `kind` (any kind `tracebook figure` draws) from `traces`:

    - one trace (a `Trace`, or a path to a trace file): it is called "trace", and `prompt`
      defaults to it;
    - a dict of them by name (lowercase letters, digits, `-` and `_`), for kinds that name
      several (`figure("compare", {"cats": a, "dogs": b}, prompt="cats", other="dogs")`);
      `prompt` defaults to the first;
    - a list of them, called "trace1", "trace2", ...

    `options` are the figure block's TOML keys (`layer=1`, `head=2`, `caption="..."`, lists as
    lists). `number` is the figure's number ("Figure N.", the anchor `figure-N`); by default
    figures are numbered in the order they are drawn, 1, 2, 3..., as matplotlib numbers its
    figures. `site` (a tracebook site's folder) draws as that site does: its theme, its
    templates, and its own figure kinds (`figures/NAME.svg`). Raises ValueError with
    tracebook's message when an option is wrong."""
    global _drawn
    native = _need_native()
    named = _named(traces)
    if not named:
        raise ValueError("figure() needs at least one trace")
    if "prompt" not in options and "prompts" not in options:
        options = {"prompt": named[0][0], **options}
    svg, html = native.figure(
        kind,
        [(name, _text(t)) for name, t in named],
        json.dumps(options),
        int(number) if number is not None else _drawn + 1,
        os.fspath(site) if site is not None else None,
    )
    if number is None:
        _drawn += 1
    return Figure(kind, svg, html)


def trace(
    prompt: str,
    model: str = "tracebook-mini-en",
    *,
    precision: str = "compact",
    top_k: int = 20,
    offline: bool = False,
    **options: Any,
) -> Trace:
    """Run `model` on `prompt` and return its trace, as `tracebook trace` writes it.

    `model` is tracebook's built-in model (the default: offline, GPT-2's architecture with a
    vocabulary of its own), a model folder (config.json, model.safetensors, tokenizer.json), or
    a Hugging Face hub id (read from the cache, or downloaded unless `offline`). `options` are
    a prompt's options in tracebook.toml: `generate=8`, `temperature=0.8`, `seed=1`,
    `ablate={"targets": [" sat"]}`, `patch={...}`, `attribute={...}` (docs/authoring.md).
    `precision` is "compact", "f16" or "f32"; `top_k` the next-token candidates kept."""
    native = _need_native()
    if not getattr(native, "HAS_TRACE", False):
        raise RuntimeError(
            "this build of tracebook_trace draws figures only: it was built without the model "
            "code\n  hint: reinstall without --no-default-features (pip install ./python), or "
            "trace with the command line: tracebook trace --prompt TEXT --out FILE"
        )
    text = native.trace(prompt, model, json.dumps(options), precision, int(top_k), bool(offline))
    return loads(text, origin=f"<trace of {prompt!r}>")
