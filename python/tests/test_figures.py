"""tracebook_trace.figure() and trace() equal the command line byte for byte.

    python test_figures.py --tracebook BIN --site ROOT --work DIR

- figure(): for the first ```figure block of every kind in ROOT's articles (content/**/*.md),
  `tracebook figure BLOCK --svg --html --root ROOT` against `figure(kind, traces, site=ROOT,
  **body)` with ROOT's traces by name; the SVG and the HTML fragment must be the same bytes.
  Kinds of the site's own (figures/NAME.svg) are among them, and need `site=`. Every kind `tracebook figures` lists must be met in ROOT, or named in
  NOT_IN_SITE with the reason.
- figure(): a wrong option raises ValueError with tracebook's message (the option, line and
  column, "did you mean").
- trace(): the trace of a prompt with an ablation equals `tracebook trace --model
  tracebook-mini-en --prompt ... --out F`; a wrong option and a retired model are errors.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys
import tomllib

import tracebook_trace as tb

# Kinds the example site has no block of (none today): each with why.
NOT_IN_SITE: dict = {}

FENCE = re.compile(r"^```figure[ \t]+([a-z0-9-]+)[^\n]*\n(.*?)^```", re.M | re.S)


def kinds(bin_: str, site: str) -> list:
    """Every kind `tracebook figures` lists for the site: the built-in ones and its own."""
    out = subprocess.run([bin_, "--root", site, "figures"], check=True, capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines()[2:] if line.startswith("  ") and line.strip()]


def blocks(site: str) -> dict:
    """The first block of each kind in the site's articles: kind -> (file, body)."""
    found = {}
    for path in sorted(glob.glob(os.path.join(site, "content", "**", "*.md"), recursive=True)):
        text = open(path, encoding="utf-8").read()
        for m in FENCE.finditer(text):
            found.setdefault(m.group(1), (path, m.group(2)))
    return found


def site_traces(site: str) -> dict:
    """Every trace of the site, by prompt name: a figure may read others than those it names
    (a position vector from the site's longest prompt, so that it prints one value site-wide),
    so figure() gets what `tracebook figure` reads."""
    paths = sorted(glob.glob(os.path.join(site, "traces", "*.json")))
    return {os.path.basename(p)[: -len(".json")]: tb.load(p) for p in paths}


def check_figures(bin_: str, site: str, work: str) -> None:
    listed = kinds(bin_, site)
    assert len(listed) >= 30, f"`tracebook figures` lists only {listed}"
    found = blocks(site)
    missing = [k for k in listed if k not in found and k not in NOT_IN_SITE]
    assert not missing, f"no block of these kinds in {site}: {missing} (add one, or to NOT_IN_SITE)"
    compared = 0
    traces = site_traces(site)
    for kind in listed:
        if kind not in found:
            continue
        path, text = found[kind]
        body = tomllib.loads(text)
        block = os.path.join(work, f"{kind}.md")
        with open(block, "w", encoding="utf-8") as f:
            f.write(f"```figure {kind}\n{text}```\n")
        svg, html = os.path.join(work, f"{kind}.svg"), os.path.join(work, f"{kind}.html")
        subprocess.run([bin_, "--root", site, "figure", block, "--svg", svg, "--html", html],
                       check=True, capture_output=True)
        fig = tb.figure(kind, traces, number=1, site=site, **body)
        for mine, theirs, what in ((fig.svg, svg, "SVG"), (fig.html, html, "HTML")):
            expected = open(theirs, encoding="utf-8", newline="").read()
            assert mine == expected, (
                f"{kind} ({path}): figure()'s {what} differs from `tracebook figure`'s "
                f"({len(mine)} against {len(expected)} bytes; first difference at "
                f"{next((i for i, (a, b) in enumerate(zip(mine, expected)) if a != b), min(len(mine), len(expected)))})"
            )
        saved = os.path.join(work, f"{kind}.saved.svg")
        fig.save(saved)
        assert open(saved, encoding="utf-8", newline="").read() == fig.svg
        compared += 1
    own = [k for k in listed if os.path.isfile(os.path.join(site, "figures", k + ".svg"))]
    assert own, f"{site} has no kind of its own to draw (figures/NAME.svg)"
    try:
        tb.figure(own[0], traces, **tomllib.loads(found[own[0]][1]))
    except ValueError as e:
        assert own[0] in str(e), str(e)
    else:
        raise AssertionError(f"{own[0]}, a kind of {site}'s own, was drawn without site=")
    print(f"figure(): {compared} kinds drawn ({len(own)} of the site's own), SVG and HTML equal to "
          "`tracebook figure`'s byte for byte")

    t = tb.load(os.path.join(site, "traces", "animal.json"))
    try:
        tb.figure("attention", t, layr=1)
    except ValueError as e:
        message = str(e)
        assert "unknown option `layr`" in message and "did you mean `layer`?" in message, message
        assert "<figure options>:2:1" in message, message
    else:
        raise AssertionError("a misspelt option drew a figure")
    try:
        tb.figure("no-such-kind", t)
    except ValueError as e:
        assert "no-such-kind" in str(e), str(e)
    else:
        raise AssertionError("an unknown kind drew a figure")


def check_trace(bin_: str, work: str) -> None:
    prompt = "The old man sat down and lost"
    ablate = {"targets": ["guess(1)", " her"], "mode": "mean"}
    mine = tb.trace(prompt, ablate=ablate, generate=2)
    out = os.path.join(work, "cli.json")
    config = os.path.join(work, "site")
    os.makedirs(os.path.join(config, "content"), exist_ok=True)
    subprocess.run([bin_, "trace", "--model", "tracebook-mini-en", "--prompt", prompt,
                    "--generate", "2", "--out", out], check=True, capture_output=True)
    cli = tb.load(out)
    # The command line's ad-hoc trace takes no ablation: compare the run itself, then the
    # ablation's tables against a site's trace of the same prompt.
    assert [t.text for t in mine.tokens] == [t.text for t in cli.tokens]
    plain = tb.trace(prompt, generate=2)
    assert plain._text == open(out, encoding="utf-8").read(), "trace() differs from `tracebook trace`"
    with open(os.path.join(config, "tracebook.toml"), "w", encoding="utf-8") as f:
        f.write('title = "t"\n[model]\nid = "tracebook-mini-en"\n[prompts]\n'
                f'man = {{ text = "{prompt}", generate = 2, ablate = {{ targets = ["guess(1)", " her"], mode = "mean" }} }}\n')
    with open(os.path.join(config, "content", "index.md"), "w", encoding="utf-8") as f:
        f.write('+++\ntitle = "t"\n+++\nText.\n')
    subprocess.run([bin_, "--root", config, "trace"], check=True, capture_output=True)
    site_trace = tb.load(os.path.join(config, "traces", "man.json"))
    for name in ("ablation.prob", "ablation.heads.prob", "ablation.mlp.prob", "logits.last"):
        a, b = mine.tensor(name), site_trace.tensor(name)
        assert a.shape == b.shape and a.tobytes() == b.tobytes(), f"trace(): {name} differs from `tracebook trace`'s"
    print(f"trace(): equal to `tracebook trace` (the file byte for byte; with an ablation, its tables bit for bit)")
    for bad, expect in (({"generat": 2}, "unknown field `generat`"),):
        try:
            tb.trace(prompt, **bad)
        except ValueError as e:
            assert expect in str(e), str(e)
        else:
            raise AssertionError(f"trace() took {bad}")
    try:
        tb.trace(prompt, model="tracebook-tiny-en")
    except ValueError as e:
        assert "no longer built into tracebook" in str(e), str(e)
    else:
        raise AssertionError("the retired model traced")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tracebook", required=True)
    ap.add_argument("--site", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    assert "site-packages" in tb.__file__, tb.__file__
    check_figures(args.tracebook, args.site, args.work)
    check_trace(args.tracebook, args.work)


if __name__ == "__main__":
    sys.exit(main())
