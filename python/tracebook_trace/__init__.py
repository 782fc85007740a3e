"""Read tracebook traces in Python: every format version (1 to 3) and every encoding.

A trace is what one transformer run on one prompt computed, as `tracebook trace` writes it
(docs/trace-format.md). This package decodes every tensor bit for bit as tracebook's Rust
reader does (`tracebook inspect FILE --tensor NAME --json`), with NumPy as its only
dependency:

    import tracebook_trace

    t = tracebook_trace.load("traces/robots.json")
    t.version, t.precision          # 3, 'compact'
    [tok.text for tok in t.tokens]  # ['The', ' robots', ' will', ' bring']
    t.meta["model"]["id"]           # the meta object of the file, as parsed
    t.names()                       # every tensor name, as `tracebook inspect` lists them
    t.tensor("blocks.0.attn.pattern")  # float32 array, shape (heads, tokens, tokens)
    t.tensor("ablation.heads.prob")    # an experiment's table, where the meta has one

Built with its compiled part (pip install ./python), it also draws every figure kind with the
Rust code tracebook's site uses, and traces prompts in-process:

    fig = tracebook_trace.figure("attention", t, layer=1)   # shows in Jupyter
    fig.save("attention.svg")                               # or .html, with its controls
    t2 = tracebook_trace.trace("The cat sat on the mat. The cat", generate=3)
"""

from ._figures import Figure, figure, trace
from ._ops import exp64
from ._tables import TABLES
from ._trace import (
    FORMAT,
    VERSIONS,
    Token,
    Trace,
    TraceError,
    UnknownTensorError,
    load,
    loads,
)

__version__ = "0.1.0"

__all__ = [
    "FORMAT",
    "Figure",
    "TABLES",
    "VERSIONS",
    "Token",
    "Trace",
    "TraceError",
    "UnknownTensorError",
    "exp64",
    "figure",
    "load",
    "loads",
    "trace",
]
