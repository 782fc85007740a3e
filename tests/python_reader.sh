#!/usr/bin/env bash
# The Python package (python/, module tracebook_trace) equals the Rust reader bit for bit.
#
# Installs python/ with pip into a fresh venv outside the repository (numpy and maturin from
# PyPI; maturin builds the package's compiled part with cargo, which the reader does not use), then
# python/tests/test_equal.py compares every tensor of these traces with `tracebook inspect
# FILE --tensor NAME --json`, and their listings with `tracebook inspect FILE --json`:
#   - the example site's traces (traces/*.json: format version 3, compact; GPT-2 and Llama
#     models, and the encoder-decoder tracebook-tiny-en-fr's translations; the ones with an
#     ablation and a patching in their meta);
#   - traces of a random test model written now at each precision (compact, f16, f32), and a
#     Mistral one with a sliding window (its attention patterns stored: unorm8 in version 3);
#   - version 1 and 2 files (tracebook init's robots trace, the fuzzer's seeds, one with every
#     version-2 prediction op);
#   - an edge trace: NaN, infinities, -0.0, subnormals, scalars, an empty tensor
#     (python/tests/edge_trace.py);
#   - files both readers must refuse: not a trace, another version, and 14 kinds of corrupt
#     tensor (bad lengths, base64, zlib, derivations, predictions; edge_trace.py again).
# Fails, naming the file and tensor, on any difference, or when those traces stop covering
# every version, precision, encoding, compression, derivation, prediction and experiment table,
# and both kinds of model (decoder-only, encoder-decoder).
#
#   cargo build --release && bash tests/python_reader.sh
#
# PYTHON picks the interpreter (default python3, 3.9 or later); TRACEBOOK the binary (default
# target/release/tracebook); SHAPE the test model's size (default tiny; `SHAPE=small` for
# GPT-2-small's, slower).
set -euo pipefail
shape=${SHAPE:-tiny}
# shellcheck source=support/script.sh
source "$(dirname "$0")/support/script.sh"

if ! "$python" -c 'import sys, venv, ensurepip; assert sys.version_info >= (3, 9)' 2>/dev/null; then
  echo "$python is not Python 3.9 or later with venv and ensurepip (Debian: apt-get install python3-venv)" >&2
  exit 1
fi
"$python" -m venv "$work/venv"
# From the repository's folder: maturin builds the package's compiled part (figures, tracer)
# with cargo in this workspace, reusing target/, and writes nothing into python/.
"$work/venv/bin/pip" install --quiet "$repo/python"
venv_python="$work/venv/bin/python"
(cd "$work" && "$venv_python" - <<'PY'
import importlib.metadata as md, tracebook_trace
assert "site-packages" in tracebook_trace.__file__, tracebook_trace.__file__
requires = md.requires("tracebook-trace") or []
assert [r.split(">")[0].split("=")[0].strip() for r in requires] == ["numpy"], requires
print(f"installed tracebook-trace {md.version('tracebook-trace')} (requires {', '.join(requires)}), numpy {md.version('numpy')}")
PY
)

prompt="The robots will bring the boxes to the old house by the river before it gets"
quiet "$bin" dev test-model --shape "$shape" "$work/gpt2"
quiet "$bin" dev test-model --arch mistral --set sliding_window=4 "$work/mistral"
made=()
for precision in compact f16 f32; do
  quiet "$bin" trace --model "$work/gpt2" --precision "$precision" --prompt "$prompt" --out "$work/$shape-$precision.json"
  made+=("$work/$shape-$precision.json")
done
quiet "$bin" trace --model "$work/mistral" --precision compact --prompt "$prompt" --out "$work/mistral-window.json"
mkdir "$work/corrupt"
"$venv_python" "$repo/python/tests/edge_trace.py" "$repo/traces/he_loved.json" "$work/edge.json" "$work/corrupt"
made+=("$work/mistral-window.json" "$work/edge.json")

seeds="$repo/fuzz/seeds/trace"
(cd "$work" && "$venv_python" "$repo/python/tests/test_equal.py" --tracebook "$bin" \
  "$repo"/traces/*.json "${made[@]}" \
  "$repo/generator/cmd/init/robots.json" "$repo/generator/trace/tests/trace_file/regressions/epsilon-1e-307.json" \
  "$seeds/every-encoding.json" "$seeds/cats-small.json" "$seeds/robots-small.json" "$seeds/no-tensors.json" \
  "$seeds/predicted-v2.json" \
  --refuse "$seeds/not-a-trace.json" "$work"/corrupt/*.json)
echo "tests/python_reader.sh: $(($(date +%s) - start)) s in all (venv and install included)"
