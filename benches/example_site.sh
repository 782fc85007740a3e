#!/usr/bin/env bash
# The example site's build time, and the cost of its claims: `tracebook build --verbose` of the
# example site as it is, against the same site with every `{{ claim ... }}` removed, run
# alternately; medians of the whole build and of its render stage (results:
# docs/BENCHMARKS.md, "The example site" and "Claims").
#
#   cargo build --release
#   bash benches/example_site.sh [RUNS]
#
# TRACEBOOK=/path/to/tracebook times another build of tracebook (e.g. a copy kept from before a
# change); SITE=/path/to/site another copy of the example site (e.g. with rewritten traces).
set -euo pipefail

runs=${1:-30}
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${TRACEBOOK:-"$repo/target/release/tracebook"}
site=${SITE:-"$repo"}
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"

for variant in with without; do
  mkdir -p "$work/$variant"
  cp -r "$site/tracebook.toml" "$site/content" "$site/traces" "$site/models" "$work/$variant/"
  for extra in static templates references.bib; do
    [ -e "$site/$extra" ] && cp -r "$site/$extra" "$work/$variant/"
  done
done
# A claim is one `{{ claim ... }}` on one line.
sed -i -E 's/\{\{ claim [^}]*\}\}//g' "$work/without/content/"*.md
claims=$(grep -o '{{ claim ' "$work/with/content/"*.md | wc -l)
left=$(grep -o '{{ claim ' "$work/without/content/"*.md | wc -l || true)
[ "$left" -eq 0 ] || { echo "could not strip every claim ($left left)" >&2; exit 1; }

# One build: appends its whole time and its render stage, in ms, from the build's own report
# ("build timings: ... render N ms ..." and "built ... in N ms").
build() {
  local report
  report=$("$bin" --root "$work/$1" build --verbose --out "$work/out-$1" 2>&1)
  sed -n 's/^built .* in \([0-9.]*\) ms.*/\1/p' <<<"$report" >>"$work/$1.total"
  sed -n 's/^build timings:.* render \([0-9.]*\) ms.*/\1/p' <<<"$report" >>"$work/$1.render"
}
build with && build without   # warm the file cache
rm -f "$work"/*.total "$work"/*.render
for _ in $(seq "$runs"); do
  build with
  build without
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "example site, $claims claims, medians of $runs alternated builds:"
printf '  %-16s %10s %10s\n' "" "build ms" "render ms"
for variant in with without; do
  printf '  %-16s %10s %10s\n' "$variant claims" "$(median "$work/$variant.total")" "$(median "$work/$variant.render")"
done
awk -v a="$(median "$work/with.total")" -v b="$(median "$work/without.total")" \
  'BEGIN { printf "  claims cost: %+.1f%% of the build\n", (a - b) / b * 100 }'
