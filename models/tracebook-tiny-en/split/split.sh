#!/usr/bin/env bash
# Splits model.safetensors into the two halves the crates embed (crates.io takes at most 10 MB
# per crate, and the f32 weights compress to 13.4 MB): split/part-1.bin in tracebook-tiny-en,
# split/part-2/part-2.bin in tracebook-tiny-en-part-2. Run after the weights change; the
# crate's test fails until the halves join into model.safetensors again.
set -euo pipefail
cd "$(dirname "$0")/.."
size=$(stat -c %s model.safetensors)
half=$(( (size + 1) / 2 ))
head -c "$half" model.safetensors >split/part-1.bin
tail -c +"$((half + 1))" model.safetensors >split/part-2/part-2.bin
echo "split model.safetensors ($size bytes) into $half + $((size - half))"
