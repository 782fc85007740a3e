#!/usr/bin/env bash
# Rebuild models/tracebook-mini-en from scratch: four Debian packages -> corpus.txt ->
# `tracebook train` (a BPE of its own, repeated stretches) -> config.json, model.safetensors
# (f16), tokenizer.json, training_log.json.
#
# Needs: Debian bookworm's apt sources (apt-get download runs as any user), python3 (standard
# library only), the Rust toolchain. Training is deterministic for a seed on the same code, and
# a run stopped at a checkpoint continues with `--resume` (add it to the command below and run
# it again with the same --out; resume.sh does that across sessions).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${WORK:-$(mktemp -d)}
echo "working in $work"
cd "$work"

bash "$here/corpus.sh"

(cd "$root" && cargo build --release --quiet)
tb="$root/target/release/tracebook"
"$tb" train --corpus corpus.txt --out run --vocab 4096 \
  --layers 4 --heads 6 --width 192 --context 128 --batch-size 16 \
  --steps 12000 --lr 2e-3 --warmup 100 --seed 0 --repeat-share 0.2 --random-repeat-share 0.5 \
  --eval-every 200 --checkpoint-every 100 --dtype f16 --snapshot-at 0,100,400 ${RESUME:+--resume}

cp run/config.json run/model.safetensors run/tokenizer.json run/training_log.json "$here/"
echo "wrote $here (snapshots of steps 0, 100 and 400 are in $work/run/snapshots)"
