#!/usr/bin/env bash
# [notebook]: tracebook's Python package in Jupyter, for real.
#
#   cargo build --release && (cd tests/browser && npm ci) && bash tests/notebook.sh [SCREENSHOT_DIR]
#
# 1. Builds the wheel from python/ (maturin, from PyPI, drives cargo in this workspace: the
#    compiled part reuses target/), installs it into a fresh venv with nbclient, ipykernel and
#    nbconvert from PyPI.
# 2. python/tests/test_figures.py: figure() draws the first block of every figure kind in the
#    example site's articles, SVG and HTML equal to `tracebook figure`'s byte for byte; trace()
#    writes the file `tracebook trace` writes, and an ablation's tables bit for bit; wrong
#    options are errors with tracebook's messages.
# 3. python/tests/run_notebook.py: executes python/examples/tour.ipynb (in a copy, beside the
#    example site's traces) with nbclient and a real ipykernel: no cell fails, each figure shows
#    as HTML and SVG, the saved files are the figure; exports the executed notebook to HTML
#    (JupyterLab's template, light and dark).
# 4. tests/browser/notebook_page.mjs: that HTML in headless Chromium, and the outputs inserted
#    as JupyterLab and VS Code insert them: figures show, pickers work and move only their own
#    figure, captions are legible in both themes, nothing is fetched.
# PYTHON picks the interpreter (3.11 or later: the tests read TOML with tomllib); TRACEBOOK the
# binary (default target/release/tracebook).
set -euo pipefail
# shellcheck source=support/script.sh
source "$(dirname "$0")/support/script.sh"
shots=${1:-}
if [ ! -d "$repo/tests/browser/node_modules/playwright-core" ]; then
  echo "no playwright-core in tests/browser: run (cd tests/browser && npm ci) first" >&2
  exit 1
fi
export JUPYTER_PLATFORM_DIRS=1

"$python" -m venv "$work/venv"
venv="$work/venv/bin"
built=$(date +%s)
quiet "$venv/pip" wheel --no-deps --wheel-dir "$work/wheel" "$repo/python"
wheel=$(ls "$work"/wheel/*.whl)
echo "built $(basename "$wheel") ($(stat -c %s "$wheel") bytes) in $(($(date +%s) - built)) s"
quiet "$venv/pip" install "$wheel" nbclient ipykernel nbconvert nbformat

mkdir "$work/eq"
(cd "$work" && "$venv/python" "$repo/python/tests/test_figures.py" --tracebook "$bin" --site "$repo" --work "$work/eq")

# The notebook reads ../../traces, as it does in a clone; it runs in a copy, so that what it
# saves is not written into the repository.
mkdir -p "$work/nb/python/examples"
cp "$repo/python/examples/tour.ipynb" "$work/nb/python/examples/"
ln -s "$repo/traces" "$work/nb/traces"
(cd "$work" && "$venv/python" "$repo/python/tests/run_notebook.py" nb/python/examples/tour.ipynb "$work/out" 2>"$work/kernel.log") ||
  { cat "$work/kernel.log" >&2; exit 1; }

if [ -n "$shots" ]; then mkdir -p "$shots"; shots=$(cd "$shots" && pwd); fi
(cd "$repo/tests/browser" && node notebook_page.mjs "$work/out" $shots)
echo "tests/notebook.sh: $(($(date +%s) - start)) s in all (venv, wheel and installs included)"
