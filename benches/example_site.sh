#!/usr/bin/env bash
# The example site's build time, and the cost of its claims: `tracebook build --verbose` of the
# example site as it is, against the same site with every `{{ claim ... }}` removed, and the
# site as it is with empty caches (a machine's first build), run alternately; medians of the
# whole build and of its render stage (results: docs/BENCHMARKS.md, "The example site" and
# "Claims").
#
#   cargo build --release
#   bash benches/example_site.sh [RUNS]
#
# TRACEBOOK=/path/to/tracebook times another build of tracebook (e.g. a copy kept from before a
# change); SITE=/path/to/site another copy of the example site (e.g. with rewritten traces).
# BASELINE_REV=<git revision> also times that revision's tracebook building that revision's
# example site, alternated with the others (its binary is built once into target/baseline-REV;
# e.g. 0452d3b, the last commit before [longform]).
set -euo pipefail

runs=${1:-30}
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${TRACEBOOK:-"$repo/target/release/tracebook"}
site=${SITE:-"$repo"}
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"

variants="with without"
for variant in with without; do
  mkdir -p "$work/$variant"
  cp -r "$site/tracebook.toml" "$site/content" "$site/traces" "$site/models" "$work/$variant/"
  for extra in static templates references.bib; do
    [ -e "$site/$extra" ] && cp -r "$site/$extra" "$work/$variant/"
  done
done
declare -A binary=([with]="$bin" [without]="$bin" [cold]="$bin")
variants="$variants cold"
if [ -n "${BASELINE_REV:-}" ]; then
  rev=$(git -C "$repo" rev-parse --short "$BASELINE_REV")
  mkdir -p "$work/baseline-src" "$work/baseline"
  git -C "$repo" archive "$rev" | tar -x -C "$work/baseline-src"
  echo "building tracebook at $rev (target/baseline-$rev)" >&2
  (cd "$work/baseline-src" && CARGO_TARGET_DIR="$repo/target/baseline-$rev" \
    cargo build --release --quiet --bin tracebook)
  binary[baseline]="$repo/target/baseline-$rev/release/tracebook"
  for part in tracebook.toml content traces models static templates references.bib; do
    [ -e "$work/baseline-src/$part" ] && cp -r "$work/baseline-src/$part" "$work/baseline/"
  done
  variants="$variants baseline"
fi
# A claim is one `{{ claim ... }}` on one line.
sed -i -E 's/\{\{ claim [^}]*\}\}//g' "$work/without/content/"*.md
claims=$(grep -o '{{ claim ' "$work/with/content/"*.md | wc -l)
left=$(grep -o '{{ claim ' "$work/without/content/"*.md | wc -l || true)
[ "$left" -eq 0 ] || { echo "could not strip every claim ($left left)" >&2; exit 1; }

# One build: appends its whole time and its render stage, in ms, from the build's own report
# ("build timings: ... render N ms ..." and "built ... in N ms").
# The variant "cold" builds the "with" site with empty caches (a new XDG_CACHE_HOME each time),
# as a first build on a machine does: it converts the browser model and hashes the weights.
build() {
  local report site=$1 cache=$XDG_CACHE_HOME
  if [ "$1" = cold ]; then
    site=with
    cache=$(mktemp -d -p "$work")
  fi
  report=$(XDG_CACHE_HOME=$cache "${binary[$1]}" --root "$work/$site" build --verbose --out "$work/out-$1" 2>&1)
  [ "$1" = cold ] && rm -rf "$cache"
  sed -n 's/^built .* in \([0-9.]*\) ms.*/\1/p' <<<"$report" >>"$work/$1.total"
  sed -n 's/^build timings:.* render \([0-9.]*\) ms.*/\1/p' <<<"$report" >>"$work/$1.render"
}
for variant in $variants; do build "$variant"; done   # warm the file and model caches
rm -f "$work"/*.total "$work"/*.render
for _ in $(seq "$runs"); do
  for variant in $variants; do build "$variant"; done
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "example site, $claims claims, medians of $runs alternated builds:"
printf '  %-16s %10s %10s\n' "" "build ms" "render ms"
for variant in $variants; do
  label="$variant claims"
  [ "$variant" = baseline ] && label="at $rev"
  [ "$variant" = cold ] && label="empty caches"
  printf '  %-16s %10s %10s\n' "$label" "$(median "$work/$variant.total")" "$(median "$work/$variant.render")"
done
awk -v a="$(median "$work/with.total")" -v b="$(median "$work/without.total")" \
  'BEGIN { printf "  claims cost: %+.1f%% of the build\n", (a - b) / b * 100 }'
if [ -n "${BASELINE_REV:-}" ]; then
  awk -v a="$(median "$work/with.total")" -v b="$(median "$work/baseline.total")" -v rev="$rev" \
    'BEGIN { printf "  this build against %s: %.2fx\n", rev, a / b }'
fi
