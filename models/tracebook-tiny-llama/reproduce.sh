#!/usr/bin/env bash
# Rebuild models/tracebook-tiny-llama from scratch: the corpus of tracebook-tiny-en (two Debian
# packages -> corpus.txt, by ../tracebook-tiny-en/make_corpus.py) -> `tracebook train --arch
# llama` -> config.json, model.safetensors (f16), tokenizer.json, training_log.json.
#
# Needs: Debian bookworm's apt sources (apt-get download runs as any user), python3 (standard
# library only), the Rust toolchain. Training is deterministic for a seed on the same code.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${WORK:-$(mktemp -d)}
echo "working in $work"
cd "$work"

apt-get download wordnet-base=1:3.0-37 cfi-en=3.0-10.2
dpkg-deb -x wordnet-base_*.deb wordnet
dpkg-deb -x cfi-en_*.deb cfi
python3 "$root/models/tracebook-tiny-en/make_corpus.py" wordnet cfi corpus.txt
echo "277b566d3baa9637576177ccd77bef460cd355b97abade143bb6a678bfee8e12  corpus.txt" | sha256sum -c

(cd "$root" && cargo build --release --quiet)
tb="$root/target/release/tracebook"
# Everything as for tracebook-tiny-en but the architecture: the same sizes, batches, steps,
# learning rate and seed.
"$tb" train --corpus corpus.txt --out run --arch llama --kv-heads 2 \
  --layers 4 --heads 4 --width 128 --context 128 --batch-size 8 \
  --steps 1800 --lr 2e-3 --warmup 60 --seed 0 \
  --eval-every 100 --checkpoint-every 100 --dtype f16

cp run/config.json run/model.safetensors run/tokenizer.json run/training_log.json "$here/"
echo "wrote $here"
