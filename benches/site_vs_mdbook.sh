#!/usr/bin/env bash
# Times `tracebook build` of the example site against `mdbook build` of the same articles'
# markdown with the front matter and figure blocks removed (results: docs/BENCHMARKS.md).
#
#   cargo build --release && cargo install mdbook --locked   # once
#   bash benches/site_vs_mdbook.sh [RUNS]
#
# Uses the committed traces/ when there are any; otherwise makes them first with the random
# test model (`tracebook dev test-model` + `tracebook trace`), outside the timed runs.
set -euo pipefail

runs=${1:-20}
repo=$(cd "$(dirname "$0")/.." && pwd)
bin="$repo/target/release/tracebook"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

command -v mdbook >/dev/null || { echo "mdbook not found: cargo install mdbook --locked" >&2; exit 1; }
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 1; }

site="$work/site"
mkdir -p "$site"
cp -r "$repo/tracebook.toml" "$repo/references.bib" "$repo/content" "$repo/traces" "$site/"
[ -d "$repo/static" ] && cp -r "$repo/static" "$site/"
[ -d "$repo/templates" ] && cp -r "$repo/templates" "$site/"
export XDG_CACHE_HOME="$work/cache"
if ! ls "$site"/traces/*.json >/dev/null 2>&1; then
  model_id=$(sed -n 's/^id *= *"\(.*\)"/\1/p' "$site/tracebook.toml" | head -1)
  "$bin" dev test-model "$site/$model_id" >/dev/null
  "$bin" --root "$site" trace >/dev/null
fi

# The same articles as an mdBook: front matter and ```figure blocks removed.
book="$work/book"
mkdir -p "$book/src"
printf '[book]\ntitle = "bench"\n\n[output.html]\n' > "$book/book.toml"
echo "# Summary" > "$book/src/SUMMARY.md"
for md in "$site"/content/*.md; do
  name=$(basename "$md")
  awk 'BEGIN { fm = 0; fig = 0 }
       NR == 1 && /^\+\+\+$/ { fm = 1; next }
       fm == 1 { if ($0 == "+++") fm = 0; next }
       /^```figure/ { fig = 1; next }
       fig == 1 { if ($0 ~ /^```/) fig = 0; next }
       { print }' "$md" > "$book/src/$name"
  echo "- [$name]($name)" >> "$book/src/SUMMARY.md"
done

# Median wall time of $runs runs of a command, in milliseconds.
median_ms() {
  local times=()
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

"$bin" --root "$site" build --out "$work/public" >/dev/null   # warm the sha256 cache
mdbook build "$book" -d "$work/book-out" >/dev/null 2>&1
tb=$(median_ms "$bin" --root "$site" build --out "$work/public")
mb=$(median_ms mdbook build "$book" -d "$work/book-out")
pages=$(ls "$site"/content/*.md | wc -l)
echo "articles: $pages, runs: $runs (medians)"
echo "tracebook build: ${tb} ms"
echo "mdbook build:    ${mb} ms"
