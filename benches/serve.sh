#!/usr/bin/env bash
# `tracebook serve`: from saving an article to the new text being served. Starts `serve` on a
# copy of the example site, appends a unique line to content/attention.md ROUNDS times, 0.3 s
# apart, and polls the served attention.html every 5 ms until the line is there (results:
# docs/BENCHMARKS.md, "serve").
#
#   cargo build --release
#   bash benches/serve.sh [ROUNDS]
set -euo pipefail

rounds=${1:-10}
repo=$(cd "$(dirname "$0")/.." && pwd)
bin="$repo/target/release/tracebook"
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 1; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 1; }
work=$(mktemp -d)
site="$work/site"
mkdir -p "$site"
cp -r "$repo/tracebook.toml" "$repo/references.bib" "$repo/content" "$repo/traces" "$repo/models" "$site/"
for dir in static templates; do
  [ -d "$repo/$dir" ] && cp -r "$repo/$dir" "$site/"
done
export XDG_CACHE_HOME="$work/cache"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" --root "$site" serve --port "$port" >"$work/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
url="http://127.0.0.1:$port/attention.html"
for _ in $(seq 600); do curl -sf "$url" >/dev/null && break; sleep 0.05; done

now_ms() { date +%s%3N; }
: >"$work/took.txt"
for round in $(seq "$rounds"); do
  marker="benchmark-line-$round-$RANDOM"
  printf '\n%s\n' "$marker" >>"$site/content/attention.md"
  saved=$(now_ms)
  until curl -sf "$url" | grep -q "$marker"; do
    sleep 0.005
    if (( $(now_ms) - saved > 30000 )); then echo "round $round: not served in 30 s" >&2; exit 1; fi
  done
  echo $(( $(now_ms) - saved )) >>"$work/took.txt"
  sleep 0.3
done
sort -n "$work/took.txt" | awk -v n="$rounds" '{a[NR]=$1} END {
  m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2
  printf "save to served page, %d edits: median %s ms, max %s ms\n", n, m, a[NR] }'
