#!/usr/bin/env bash
# [firstrun] Cold `cargo install` time of the full tracebook and of the build-only one
# (`--no-default-features`: no candle, no model code), as a Pages workflow pays it on its first
# run. Each install starts from an empty target folder; crates are already downloaded (the
# workflow caches ~/.cargo/registry), so this measures compiling only.
# Usage: benches/install_time.sh [build-only|full ...]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fetch --locked >/dev/null
variants=("${@:-build-only full}")
read -r -a variants <<<"${variants[*]}"
for variant in "${variants[@]}"; do
  flags=()
  [ "$variant" = build-only ] && flags=(--no-default-features)
  work=$(mktemp -d)
  start=$(date +%s)
  CARGO_TARGET_DIR="$work/target" cargo install --quiet --locked --offline --path . \
    --root "$work/root" "${flags[@]}"
  end=$(date +%s)
  size=$(stat -c %s "$work/root/bin/tracebook")
  echo "$variant: $((end - start)) s cold install, binary $((size / 1000000)) MB ($(nproc) cores)"
  rm -rf "$work"
done
