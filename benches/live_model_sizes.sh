#!/usr/bin/env bash
# The browser model's download at each [live] precision for a GPT-2-small-shaped model
# (`tracebook dev test-model --shape small`: 12 layers x 12 heads x 768, random weights; the
# sizes depend on the shape only), and the files it is written in (none over 16 MiB).
# Usage: bash benches/live_model_sizes.sh   (builds target/release/tracebook if needed)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="$repo/target/release/tracebook"
[ -x "$bin" ] || (cd "$repo" && cargo build --release -q --bin tracebook)
work=$(mktemp -d)
export XDG_CACHE_HOME="$work/cache"
trap 'rm -rf "$work"' EXIT
"$bin" dev test-model "$work/model" --shape small >/dev/null
printf '%-10s %14s %8s %16s\n' precision "bytes" files "largest file"
for precision in f16 int8 int4; do
  site="$work/$precision"
  mkdir -p "$site/content"
  printf 'title = "S"\n[model]\nid = "%s"\n[live]\nenabled = true\nprecision = "%s"\n' "$work/model" "$precision" >"$site/tracebook.toml"
  printf '+++\ntitle = "A"\n+++\n\nText.\n' >"$site/content/a.md"
  "$bin" --root "$site" build -q --out "$site/public"
  files=$(ls "$site/public/live/" | grep -c '^model\.safetensors')
  total=$(cat "$site/public/live"/model.safetensors* | wc -c)
  largest=$(stat -c %s "$site/public/live"/model.safetensors* | sort -n | tail -1)
  printf '%-10s %14d %8d %16d\n' "$precision" "$total" "$files" "$largest"
done
printf 'f32 checkpoint: %d bytes\n' "$(stat -c %s "$work/model/model.safetensors")"
