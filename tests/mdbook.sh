#!/usr/bin/env bash
# `tracebook mdbook` with the real mdBook: tests/books/basic (three chapters: figures, inline
# values, a claim, a citation, code that holds `{{`) built by `mdbook build` with the example
# site's traces, its HTML checked; then the same book with a broken chapter must stop
# `mdbook build` with the chapter's file:line:col.
#
#   cargo build --release && bash tests/mdbook.sh
#
# MDBOOK names an mdbook binary; without it, mdBook 0.5.4 is installed into target/tools with
# `cargo install --locked` (without its serve, watch and search features: about a minute),
# where tests/browser/mdbook.test.mjs finds it too. TRACEBOOK names the tracebook binary
# (default target/release/tracebook).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${TRACEBOOK:-"$repo/target/release/tracebook"}
if [ ! -x "$bin" ]; then
  echo "no tracebook binary at $bin: run cargo build --release first (or set TRACEBOOK)" >&2
  exit 1
fi
mdbook=${MDBOOK:-"$repo/target/tools/bin/mdbook"}
if [ ! -x "$mdbook" ]; then
  cargo install --locked --quiet mdbook --version 0.5.4 --no-default-features --root "$repo/target/tools"
fi
"$mdbook" --version
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# mdBook runs `tracebook mdbook` (book.toml's command) from PATH.
export PATH="$(dirname "$bin"):$PATH"

book() {
  cp -r "$repo/tests/books/basic" "$1"
  mkdir -p "$1/traces"
  cp "$repo/traces/animal.json" "$repo/traces/cats.json" "$1/traces/"
}

book "$work/good"
"$mdbook" build "$work/good" 2>"$work/log" || { cat "$work/log" >&2; exit 1; }
python3 - "$work/good/book" <<'PY'
import re, sys
from pathlib import Path
out = Path(sys.argv[1])
def page(name):
    return (out / name).read_text()
attention, intro, nxt = page("attention.html"), page("intro.html"), page("next-token.html")
# mdBook's own page around tracebook's content: its sidebar, its heading anchors.
assert 'class="sidebar' in attention and 'id="every-head"' in attention, "mdBook's page"
assert attention.count("<tracebook-figure>") == 2 and nxt.count("<tracebook-figure>") == 1
assert attention.count('<template shadowrootmode="open">') == 2
assert attention.count('<script data-tb-fragment="all">') == 1, "one script per chapter"
assert 'data-tb-of="value animal blocks.3.attn.scores[2,8,1]">0.2405</span>' in attention
assert '<abbr class="tb-claim"' in attention, "the claim's marker"
assert 'href="#ref-vaswani2017"' in attention and "Attention Is All You Need" in attention
assert 'data-tb-of="count animal">13</span>' in intro
assert "{{ value animal blocks.0.ln_1.out[0,0] }}" in intro, "code keeps its braces"
assert "<tracebook-figure>" not in intro and "data-tb-fragment" not in intro
# Every figure is whole: the markdown around it read none of it as text or code.
for name, html in (("attention", attention), ("next-token", nxt)):
    for figure in re.findall(r"<tracebook-figure>(.*?)</tracebook-figure>", html, re.S):
        assert "<p>" not in figure and "<pre>" not in figure, f"{name}: markdown inside a figure"
        assert figure.count("<svg") >= 1, f"{name}: a figure without its drawing"
print(f"mdbook: {len(list(out.glob('*.html')))} pages; 3 figures, values, a claim and a citation in place")
PY

book "$work/broken"
sed -i 's/head = 2/head = 9/' "$work/broken/src/attention.md"
if "$mdbook" build "$work/broken" >"$work/log" 2>&1; then
  echo "mdbook built a book whose chapter names head 9 of 4" >&2
  exit 1
fi
grep -q "src/attention.md:8:1: error: head = 9 is out of range" "$work/log" || { cat "$work/log" >&2; exit 1; }
echo "mdbook: a broken chapter stops the build at src/attention.md:8:1"
