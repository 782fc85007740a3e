#!/usr/bin/env bash
# [ship] The shell steps of the Pages workflow `tracebook init` writes, run on this machine:
# "Install tracebook" cold (nothing cached: it compiles the build-only tracebook) and warm (the
# cache restored the binary), then "Build the site". crates.io cannot hold this unreleased
# version, so the cold run's `cargo install tracebook --version V --locked
# --no-default-features` is answered by a `cargo` that installs the same package from this
# repository (`--path`, into an empty target folder, crates already downloaded).
# Usage: benches/workflow_steps.sh [--warm-only]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
tracebook="$repo/target/release/tracebook"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tracebook" init "$work/site" >/dev/null
workflow="$work/site/.github/workflows/pages.yml"
version=$(sed -n 's/^  TRACEBOOK_VERSION: "\(.*\)"$/\1/p' "$workflow")
# The install step's script: the block under its `run: |`, unindented.
awk '/- name: Install tracebook$/ {f=1; next} f && /run: \|/ {r=1; next}
     r && /^      - name:/ {exit} r {sub(/^          /, ""); print}' "$workflow" >"$work/install.sh"
mkdir -p "$work/home/.cargo/bin" "$work/stubs"
real_cargo=$(command -v cargo)
# The step runs in a home of its own; the toolchain stays where it is.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
rustup_home="${RUSTUP_HOME:-$HOME/.rustup}"
cat >"$work/stubs/cargo" <<STUB
#!/bin/sh
# install tracebook --version V --locked --no-default-features -> the same, from the repository
CARGO_TARGET_DIR="$work/target" exec "$real_cargo" install --quiet --offline --locked \
  --no-default-features --path "$repo" --root "\$HOME/.cargo"
STUB
chmod +x "$work/stubs/cargo"
step() {
  HOME="$work/home" PATH="$work/stubs:$work/home/.cargo/bin:/usr/bin:/bin" \
    CARGO_HOME="$cargo_home" RUSTUP_HOME="$rustup_home" \
    TRACEBOOK_VERSION="$version" TRACEBOOK_RELEASES="" bash -e "$work/install.sh"
}
if [ "${1:-}" = --warm-only ]; then
  cp "$tracebook" "$work/home/.cargo/bin/tracebook"
else
  start=$(date +%s.%N)
  step >/dev/null
  echo "install step, cold (compiles tracebook $version, build-only): $(echo "$(date +%s.%N) - $start" | bc) s ($(nproc) cores)"
fi
start=$(date +%s.%N)
step | head -1
echo "install step, warm (the cached binary): $(echo "$(date +%s.%N) - $start" | bc) s"
cd "$work/site"
start=$(date +%s.%N)
"$work/home/.cargo/bin/tracebook" build --quiet --base-url "https://example.github.io/site/"
echo "build step (the new site): $(echo "$(date +%s.%N) - $start" | bc) s"
