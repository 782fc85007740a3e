#!/usr/bin/env bash
# [models] Tracing at GPT-2's four sizes (random weights, `dev test-model --shape`): for a 16-token
# and a 256-token prompt, the whole `tracebook trace` process's wall time, its peak memory (max
# RSS) against the weights file, and the trace's size. Results go in docs/BENCHMARKS.md.
# Usage: benches/scale.sh [SHAPE...]   (default: small medium large xl; xl needs ~13 GB of disk)
# Needs: a release build and /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
shapes=("${@:-small medium large xl}")
read -r -a shapes <<<"${shapes[*]}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$PWD/target/release/tracebook
cargo build --release --quiet
short="The robots will bring us a new kind of work, and we will learn to"
# 256 tokens: the same 16-token sentence sixteen times (cost does not depend on content).
long=$(for _ in $(seq 16); do printf '%s ' "$short"; done)
printf '| shape | layers × heads × width | weights | tokens | wall time | peak RSS | RSS / weights | trace |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for shape in "${shapes[@]}"; do
  model="$work/$shape"
  $bin dev test-model --shape "$shape" "$model" >/dev/null
  weights=$(stat -c %s "$model/model.safetensors")
  dims=$(python3 -c "import json;c=json.load(open('$model/config.json'));print(f\"{c['n_layer']} × {c['n_head']} × {c['n_embd']}\")")
  for prompt in "$short" "$long"; do
    out="$work/t.json"
    /usr/bin/time -f '%e %M' -o "$work/time" \
      $bin trace --model "$model" --prompt "$prompt" --out "$out" >/dev/null 2>"$work/err" \
      || { cat "$work/err"; exit 1; }
    read -r secs kb <"$work/time"
    tokens=$(python3 -c "import json;print(len(json.load(open('$out'))['meta']['tokens']))")
    size=$(stat -c %s "$out")
    python3 - "$shape" "$dims" "$weights" "$tokens" "$secs" "$kb" "$size" <<'PY'
import sys
shape, dims, weights, tokens, secs, kb, size = sys.argv[1:]
w, rss, t = int(weights), int(kb) * 1024, int(size)
mb = lambda b: f"{b / 1e6:,.0f} MB" if b >= 1e7 else f"{b / 1e6:.1f} MB"
print(f"| {shape} | {dims} | {mb(w)} | {tokens} | {float(secs):.1f} s | {mb(rss)} | {rss / w:.2f} | {mb(t)} |")
PY
    rm -f "$out"
  done
  rm -rf "$model"
done
