#!/usr/bin/env bash
# Benchmark of [interventions] (docs/BENCHMARKS.md): on the GPT-2-small-shaped random model
# (12 layers × 12 heads, 768 wide), `tracebook trace` of one 16-token prompt
#   1. plain;
#   2. with `ablate` (all 144 heads and 12 MLPs, one at a time, mean and zero);
#   3. with `patch` (12 layers × 16 positions of the residual stream and 144 heads).
# The interventions' cost is each line's time less the plain one. Needs a release build and
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
title = "interventions bench"
[model]
id = "model"
[prompts]
plain = "$text"
zero = { text = "$text", ablate = { targets = [" the", " us"], mode = "zero" } }
mean = { text = "$text", ablate = { targets = [" the", " us"], mode = "mean" } }
patch = { text = "$text", patch = { corrupted = "The robots will bring us a new kind of tea, and then they will sing to", answer = " the", wrong = " us" } }
TOML
mkdir content
printf '+++\ntitle = "bench"\n+++\nA page.\n' > content/index.md
for round in 1 2; do
  for p in plain zero mean patch; do
    /usr/bin/time -o time.txt -f "round $round, $p: %e s, max RSS %M KB" $bin trace --force --only $p >/dev/null 2>&1
    cat time.txt
  done
done
