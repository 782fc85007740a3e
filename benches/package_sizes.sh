#!/usr/bin/env bash
# [ship] Every crate of the workspace packages for crates.io, and each .crate is under
# crates.io's 10 MB limit. `cargo package --workspace` packages them in dependency order;
# --no-verify skips compiling each from its package (`--verify` to do that too: minutes).
# Usage: benches/package_sizes.sh [--verify]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=$((10 * 1024 * 1024))
rm -f target/package/*.crate
flags=(--no-verify)
[ "${1:-}" = --verify ] && flags=()
cargo package --workspace --allow-dirty --quiet "${flags[@]}" 2>&1 |
  grep -v "^warning: manifest has no documentation" | grep -v "^warning: ignoring test" |
  grep -v "^  = note: see https://doc.rust-lang.org/cargo/reference/manifest.html" |
  grep -v "^  |$" || true
status=0
for crate in target/package/*.crate; do
  size=$(stat -c %s "$crate")
  printf '%10d bytes  %s\n' "$size" "$(basename "$crate")"
  if [ "$size" -ge "$limit" ]; then
    echo "error: $(basename "$crate") is over crates.io's 10 MB limit" >&2
    status=1
  fi
done
count=$(ls target/package/*.crate | wc -l)
members=$(cargo metadata --no-deps --format-version 1 | grep -o '"manifest_path":"[^"]*"' | wc -l)
if [ "$count" -ne "$members" ]; then
  echo "error: $count .crate files for $members workspace members" >&2
  status=1
fi
exit $status
