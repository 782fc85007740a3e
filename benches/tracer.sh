#!/usr/bin/env bash
# Benchmarks of the [tracer] targets on the GPT-2-small-shaped random model (see docs/BENCHMARKS.md):
#   1. one traced forward of a 16-token prompt, candle vs PyTorch transformers;
#   2. the whole `tracebook trace` process for 10 prompts of ~12 tokens vs the Python equivalent,
#      with peak memory (max RSS) against the weights file size;
#   3. bytes per stored value of a compact trace of a 16-token prompt.
# Needs: a release build, /usr/bin/time, and PY pointing at a Python with torch + transformers.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python3}
"$PY" -c 'import torch, transformers' 2>/dev/null || {
  echo "PY=$PY has no torch + transformers: make a venv (python3 -m venv v && v/bin/pip install torch transformers) and run PY=v/bin/python bash benches/tracer.sh" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=target/release/tracebook
cargo build --release --quiet
$bin dev test-model --shape small "$work/model" >/dev/null
weights=$(stat -c %s "$work/model/model.safetensors")

echo "== 1. one forward pass, 16 tokens (two threads, then one; alternated to share the machine's load)"
for round in 1 2; do
  $bin dev bench-forward "$work/model" --tokens 16 --runs 20
  $PY benches/forward_torch.py "$work/model" 16 20 2>/dev/null
  RAYON_NUM_THREADS=1 $bin dev bench-forward "$work/model" --tokens 16 --runs 20
  OMP_NUM_THREADS=1 $PY benches/forward_torch.py "$work/model" 16 20 2>/dev/null
done

echo "== 2. whole process, 10 prompts"
prompts=(
  "The robots will bring us a new kind of work"
  "I like cats and dogs, but mostly I like cats"
  "Data visualization empowers users to see patterns"
  "The animal didn't cross the street because it was"
  "Thinking Machines were the first to build a brain"
  "The capital of France is Paris, and the capital"
  "Once upon a time there was a little robot who"
  "Every morning the baker opens the shop at six"
  "Rust makes systems programming safe and fast"
  "A transformer turns a prompt into the next token"
)
mkdir -p "$work/site/content"
{
  printf 'title = "bench"\n[model]\nid = "%s"\n[prompts]\n' "$work/model"
  for i in "${!prompts[@]}"; do printf 'p%d = "%s"\n' "$i" "${prompts[$i]}"; done
} > "$work/site/tracebook.toml"
/usr/bin/time -f "tracebook trace: %e s wall, max RSS %M KB" $bin --root "$work/site" trace --offline >/dev/null
/usr/bin/time -f "python equivalent: %e s wall, max RSS %M KB" $PY benches/trace_python.py "$work/model" "$work/py" "${prompts[@]}" 2>&1 | grep -v "Loading weights"
echo "weights file: $((weights / 1024)) KB"
du -sh "$work/site/traces" "$work/py" | sed 's/^/output: /'

echo "== 3. compact size, 16-token prompt"
text="The quick brown fox jumps over the lazy dog while the robots will bring us tea"
$bin trace --model "$work/model" --prompt "$text" --out "$work/t16.json" >/dev/null 2>&1
$bin inspect "$work/t16.json" --json | $PY -c '
import json, sys, os, math
listing = json.load(sys.stdin)
values = sum(math.prod(t["shape"]) for t in listing["tensors"])
size = os.path.getsize(sys.argv[1])
tokens, tensors = listing["tokens"], len(listing["tensors"])
print(f"{tokens} tokens, {tensors} tensors, {values} values, {size} bytes: {size / values:.3f} bytes per value")
' "$work/t16.json"
