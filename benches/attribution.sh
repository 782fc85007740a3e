#!/usr/bin/env bash
# Benchmark of [attribution] (docs/BENCHMARKS.md): on the GPT-2-small-shaped random model
# (12 layers × 12 heads, 768 wide), `tracebook trace` of one 16-token prompt
#   1. plain;
#   2. with `attribute` for two targets: direct logit attribution, gradient × input and
#      integrated gradients (50 points of the path, a backward pass per target).
# The attribution's cost is the second line's time less the first. Needs a release build and
# /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/target/release/tracebook
cargo build --release --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
$bin dev test-model --shape small model >/dev/null
text="The robots will bring us a new kind of work, and then they will sing to"
cat > tracebook.toml <<TOML
title = "attribution bench"
[model]
id = "model"
[prompts]
plain = "$text"
attribute = { text = "$text", attribute = { targets = [" the", " us"] } }
TOML
mkdir content
printf '+++\ntitle = "bench"\n+++\nA page.\n' > content/index.md
for round in 1 2; do
  for p in plain attribute; do
    /usr/bin/time -o time.txt -f "round $round, $p: %e s, max RSS %M KB" $bin trace --force --only $p >/dev/null 2>&1
    cat time.txt
  done
done
