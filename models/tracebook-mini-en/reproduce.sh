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
# shellcheck source=train-args.sh
source "$here/train-args.sh"
"$tb" train --corpus corpus.txt --out run "${TRAIN_ARGS[@]}" ${RESUME:+--resume}

cp run/config.json run/model.safetensors run/tokenizer.json run/training_log.json "$here/"
echo "wrote $here (snapshots of steps 0, 400 and 2,000 are in $work/run/snapshots)"
