#!/usr/bin/env bash
# [live] sizes and speed (results: docs/BENCHMARKS.md, "Live mode"):
#  1. page weight before the reader opts in, per article of the example site, with [live] on
#     and off (the page, its style sheet and scripts: what a reader downloads before "Try");
#  2. what "Try" downloads: the wasm module (raw and gzipped), the browser model, tokenizer;
#  3. a 16-token traced forward pass natively (`tracebook dev bench-forward`) and in headless
#     Chromium (the module, single-threaded, simd128);
#  4. "Try" → redrawn figures on attention.html: first with an empty cache (download over
#     127.0.0.1), then on a new page load with the model cached, then a second prompt;
#  5. the same download size and forward time for a GPT-2-small-shaped model (int8).
#
#   cargo build --release && (cd tests/browser && npm ci)
#   bash benches/live.sh
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${TRACEBOOK:-"$repo/target/release/tracebook"}
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 1; }
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"

copy_site() {
  mkdir -p "$1"
  cp -r "$repo/tracebook.toml" "$repo/content" "$repo/traces" "$repo/models" "$repo/static" \
    "$repo/templates" "$repo/references.bib" "$1/"
}
copy_site "$work/on"
copy_site "$work/off"
sed -i 's/^enabled = true$/enabled = false/' "$work/off/tracebook.toml"
"$bin" --root "$work/on" build -q --out "$work/on/public"
"$bin" --root "$work/off" build -q --out "$work/off/public"

# Bytes of a page and of the files it loads before any click (its CSS and scripts).
weight() {
  local dir=$1 page=$2 total
  total=$(stat -c %s "$dir/$page")
  for asset in $(grep -oE '(href|src)="[^"]+\.(css|js)"' "$dir/$page" | sed -E 's/.*="([^"]+)"/\1/' | sort -u); do
    [ -f "$dir/$asset" ] && total=$((total + $(stat -c %s "$dir/$asset")))
  done
  echo "$total"
}
echo "== page weight before opting in (bytes: live on / off, difference)"
max=0
for page in $(cd "$work/on/public" && ls *.html); do
  on=$(weight "$work/on/public" "$page")
  off=$(weight "$work/off/public" "$page")
  printf '  %-24s %8d %8d %+6d\n' "$page" "$on" "$off" $((on - off))
  [ "$on" -gt "$max" ] && [ "$page" != print.html ] && max=$on
done
echo "  heaviest article with live on: $max bytes"

echo "== what Try downloads (bytes)"
live="$work/on/public/live"
for f in tracebook_live_bg.wasm tracebook_live.js tracebook-live-worker.js model.safetensors tokenizer.json config.json manifest.json; do
  printf '  %-24s %9d raw %9d gzip -9\n' "$f" "$(stat -c %s "$live/$f")" "$(gzip -9 -c "$live/$f" | wc -c)"
done

echo "== 16-token traced forward, native (tracebook dev bench-forward, medians)"
"$bin" dev bench-forward "$repo/models/tracebook-tiny-en" --tokens 16 --runs 21

(cd "$work/on/public" && exec python3 -m http.server 0 --bind 127.0.0.1 >"$work/server.log" 2>&1) &
server=$!
for _ in $(seq 50); do grep -q "Serving HTTP" "$work/server.log" 2>/dev/null && break; sleep 0.1; done
port=$(grep -oE 'port [0-9]+' "$work/server.log" | head -1 | cut -d' ' -f2)
url="http://127.0.0.1:$port"
echo "== 16-token traced forward in headless Chromium (the module)"
node "$repo/benches/live_browser.mjs" forward "$url/attention.html" 21
echo "== Try -> figures redrawn on attention.html (ms)"
node "$repo/benches/live_browser.mjs" redraw "$url/attention.html" "The cat was too hungry to cross the road"
kill $server; server=

echo "== GPT-2-small-shaped model (random weights, 12 x 12 x 768), int8"
small="$work/small"
mkdir -p "$small/content"
"$bin" dev test-model "$small/model" --shape small >/dev/null
printf 'title = "S"\n[model]\nid = "model"\n[live]\nenabled = true\n' >"$small/tracebook.toml"
printf '+++\ntitle = "A"\n+++\n\nText.\n' >"$small/content/a.md"
"$bin" --root "$small" build -q --out "$small/public"
printf '  %-24s %9d bytes (f32 checkpoint %d)\n' 'model.safetensors*' \
  "$(cat "$small/public/live"/model.safetensors* | wc -c)" "$(stat -c %s "$small/model/model.safetensors")"
"$bin" dev bench-forward "$small/model" --tokens 16 --runs 11
(cd "$small/public" && exec python3 -m http.server 0 --bind 127.0.0.1 >"$work/server2.log" 2>&1) &
server=$!
for _ in $(seq 50); do grep -q "Serving HTTP" "$work/server2.log" 2>/dev/null && break; sleep 0.1; done
port=$(grep -oE 'port [0-9]+' "$work/server2.log" | head -1 | cut -d' ' -f2)
node "$repo/benches/live_browser.mjs" forward "http://127.0.0.1:$port/index.html" 5
