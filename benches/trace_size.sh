#!/usr/bin/env bash
# Trace size and decoding speed (results: docs/BENCHMARKS.md, "Compact trace size"; the format:
# docs/trace-format.md).
#
# 1. Size: a 16-token prompt traced on the GPT-2-small shape (`dev test-model --shape small`,
#    pseudo-random weights) at each precision; bytes of the whole file per stored value, and
#    the bytes of each tensor kind per stored value of the whole trace.
# 2. Decoding: the example site built with its traces as they are against the same site with
#    traces rewritten by this tracebook (`trace --force --offline`), alternated; medians of the
#    whole build, its traces stage (reading files) and its render stage (figures decode tensors).
#    BASELINE_REV=<git revision> takes the first site's traces from that revision instead (e.g.
#    4719827, the last commit with format-version-1 traces).
#
#   cargo build --release
#   bash benches/trace_size.sh [RUNS]
set -euo pipefail

runs=${1:-30}
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${TRACEBOOK:-"$repo/target/release/tracebook"}
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"
# Run a tracebook command, showing its output only when it fails.
quiet() { "$@" >"$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }; }

quiet "$bin" dev test-model --shape small "$work/small"
prompt="The robots will bring the boxes to the old house by the river before it gets"
echo "GPT-2-small shape, 16-token prompt:"
for precision in compact f16 f32; do
  quiet "$bin" trace --model "$work/small" --precision "$precision" --prompt "$prompt" \
    --out "$work/$precision.json"
  python3 - "$work/$precision.json" "$precision" <<'EOF'
import collections, json, math, os, sys
path, precision = sys.argv[1], sys.argv[2]
trace = json.load(open(path))
values = sum(math.prod(t["shape"]) for t in trace["tensors"].values())
size = os.path.getsize(path)
print(f"  {precision:8s} {size:>10,} bytes, {values:,} values: {size / values:.3f} bytes per value")
if precision == "compact":
    kinds = collections.Counter()
    for name, t in trace["tensors"].items():
        hook = name.split(".", 2)[2] if name.startswith("blocks.") else name
        if "derive" in t:
            how = "derived: " + t["derive"]["op"]
        else:
            how = t["encoding"] + ("+" + t["predict"]["op"] if "predict" in t else "")
        kinds[f"{hook} ({how})"] += len(t.get("data", ""))
    for kind, data in kinds.most_common():
        print(f"      {kind:40s} {data / values:.4f}")
EOF
done

echo
echo "example site, medians of $runs alternated builds (ms):"
for variant in before after; do
  mkdir -p "$work/$variant"
  for part in tracebook.toml content traces models static templates references.bib; do
    [ -e "$repo/$part" ] && cp -r "$repo/$part" "$work/$variant/"
  done
done
if [ -n "${BASELINE_REV:-}" ]; then
  rm -rf "$work/before/traces"
  git -C "$repo" archive "$BASELINE_REV" traces | tar -x -C "$work/before"
fi
quiet "$bin" --root "$work/after" trace --force --offline
build() {
  local report
  report=$("$bin" --root "$work/$1" build --verbose --out "$work/out-$1" 2>&1) ||
    { echo "$report" >&2; exit 1; }
  sed -n 's/^built .* in \([0-9.]*\) ms.*/\1/p' <<<"$report" >>"$work/$1.build"
  sed -n 's/^build timings:.* traces \([0-9.]*\) ms.*/\1/p' <<<"$report" >>"$work/$1.traces"
  sed -n 's/^build timings:.* render \([0-9.]*\) ms.*/\1/p' <<<"$report" >>"$work/$1.render"
}
build before && build after   # warm the file cache
rm -f "$work"/*.build "$work"/*.traces "$work"/*.render
for _ in $(seq "$runs"); do
  build before
  build after
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
printf '  %-28s %8s %8s %8s %12s\n' "" build traces render "trace bytes"
for variant in before after; do
  label="traces rewritten"
  [ "$variant" = before ] && label="traces of ${BASELINE_REV:-the working tree}"
  printf '  %-28s %8s %8s %8s %12s\n' "$label" "$(median "$work/$variant.build")" \
    "$(median "$work/$variant.traces")" "$(median "$work/$variant.render")" \
    "$(cat "$work/$variant"/traces/*.json | wc -c)"
done
