#!/usr/bin/env bash
# tokens/s of `tracebook train` against PyTorch (benches/train_torch.py) at the example model's
# shape (GPT-2 architecture, 4 layers, 6 heads, width 192, context 128, a 4,096-token BPE,
# batches of 16 windows), alternated ROUNDS times (default 2) so that both see the same load.
# Usage: PYTHON=/path/to/venv/bin/python bash benches/train_compare.sh CORPUS [STEPS] [ROUNDS]
# (the venv has torch and transformers; see docs/BENCHMARKS.md, "Training speed against PyTorch")
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=$1 steps=${2:-20} rounds=${3:-2} python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release --quiet
for round in $(seq "$rounds"); do
  rm -rf "$work/run"
  target/release/tracebook train --corpus "$corpus" --out "$work/run" --vocab 4096 \
    --layers 4 --heads 6 --width 192 --context 128 --batch-size 16 \
    --steps "$steps" --warmup 1 --eval-every "$steps" --checkpoint-every "$steps" 2>/dev/null \
    | grep -E "^trained" | sed "s/^/round $round tracebook: /"
  "$python" benches/train_torch.py "$work/run" "$corpus" "$steps" | sed "s/^/round $round /"
done
