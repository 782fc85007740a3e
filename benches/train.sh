#!/usr/bin/env bash
# Training throughput of `tracebook train` at the shape of the shipped model (4 layers, 4 heads,
# 128 wide, context 128, batch 8 = 1,024 tokens a step): runs STEPS steps (default 20) on CORPUS
# (default: the repo's markdown, repeated to ~1 MB) and prints the run's tokens per second.
# Usage: bash benches/train.sh [CORPUS] [STEPS]     (see docs/BENCHMARKS.md, "Training")
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release --quiet
corpus=${1:-}
if [ -z "$corpus" ]; then
  corpus="$work/corpus.txt"
  for _ in $(seq 12); do cat README.md docs/*.md content/*.md; done > "$corpus"
fi
steps=${2:-20}
target/release/tracebook train --corpus "$corpus" --out "$work/run" \
  --layers 4 --heads 4 --width 128 --context 128 --batch-size 8 \
  --steps "$steps" --warmup 1 --eval-every "$steps" --checkpoint-every "$steps" 2>/dev/null \
  | grep -E "^trained"
