#!/usr/bin/env bash
# Rebuild an example model trained by tracebook from scratch: four Debian packages -> corpus.txt
# (models/tracebook-mini-en/corpus.sh) -> `tracebook train` with MODEL/train-args.sh (a BPE of its
# own, repeated stretches) -> MODEL/config.json, model.safetensors (f16), tokenizer.json,
# training_log.json.
#
#   bash models/reproduce.sh MODEL      (WORK=DIR to work there; RESUME=1 to continue a run in it)
#
# Needs: Debian bookworm's apt sources (apt-get download runs as any user), python3 (standard
# library only), the Rust toolchain. Training is deterministic for a seed on the same code, and
# a run stopped at a checkpoint continues with `--resume` (RESUME=1 and the same WORK;
# models/resume.sh does that across sessions).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: reproduce.sh MODEL" >&2; exit 2; }
here=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-$(mktemp -d)}
echo "working in $work"
cd "$work"

[ -f corpus.txt ] || bash "$root/models/tracebook-mini-en/corpus.sh"

(cd "$root" && cargo build --release --quiet)
tb="$root/target/release/tracebook"
# shellcheck source=tracebook-mini-en/train-args.sh
source "$here/train-args.sh"
"$tb" train --corpus corpus.txt --out run "${TRAIN_ARGS[@]}" ${RESUME:+--resume}

cp run/config.json run/model.safetensors run/tokenizer.json run/training_log.json "$here/"
echo "wrote $here (the snapshots of the early steps are in $work/run/snapshots)"
