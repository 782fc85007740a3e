#!/usr/bin/env bash
# Builds the browser module of tracebook-live into generator/live/dist/:
#   tracebook_live_bg.wasm   the forward pass, tokenizer and figures, compiled to WebAssembly
#   tracebook_live.js        wasm-bindgen's glue (an ES module: `import init, { Live } from ...`)
#   SOURCES                  the sha256 of every source file the module is built from
#
#   generator/live/build.sh          build (needs rustup's wasm32 target; installs the
#                                    wasm-bindgen CLI of the version in Cargo.lock if missing)
#   generator/live/build.sh --check  exit 1 if dist/ was built from other sources than these
#
# Environment: CARGO_TARGET_DIR (default: target), CARGO_BUILD_JOBS (default: cargo's).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
dist=generator/live/dist
target_dir="${CARGO_TARGET_DIR:-$root/target}"

# Every file the module is compiled from: the five crates (not their tests, examples or
# snapshots, nor dist/ itself), the workspace manifest and lock file.
sources() {
    git ls-files --cached --others --exclude-standard -- \
        Cargo.toml Cargo.lock \
        generator/live generator/model generator/tokenizer generator/trace generator/figures generator/claims |
        grep -Ev '(^|/)(tests|examples|benches|snapshots)/|^generator/live/dist/' |
        LC_ALL=C sort |
        while read -r file; do
            [ -f "$file" ] && sha256sum "$file"
        done
}

if [ "${1:-}" = "--check" ]; then
    if ! diff <(grep -v '^#' "$dist/SOURCES" 2>/dev/null) <(sources) >/dev/null; then
        echo "generator/live/dist/ is out of date: its sources changed since it was built." >&2
        diff <(grep -v '^#' "$dist/SOURCES" 2>/dev/null) <(sources) | grep '^[<>]' | sed 's/^/  /' >&2 || true
        echo "  hint: run generator/live/build.sh and commit generator/live/dist/" >&2
        exit 1
    fi
    echo "generator/live/dist/ is up to date"
    exit 0
fi

rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true

# The CLI must be exactly the version of the wasm-bindgen crate the module links.
version="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)"
bindgen="$HOME/.cargo/bin/wasm-bindgen"
if [ "$("$bindgen" --version 2>/dev/null | awk '{print $2}')" != "$version" ]; then
    echo "installing wasm-bindgen-cli $version" >&2
    # --locked reproduces the CLI's own lock file; a registry mirror that lacks one of those
    # exact versions gets the newest compatible ones instead (the CLI's version is what matters).
    env -u CARGO_TARGET_DIR cargo install wasm-bindgen-cli --version "$version" --locked ||
        env -u CARGO_TARGET_DIR cargo install wasm-bindgen-cli --version "$version"
fi

# SIMD: every current browser has wasm simd128 (Chrome 91, Firefox 89, Safari 16.4), and
# candle's and gemm's kernels use it. The path prefixes are remapped so the module's bytes
# do not depend on where the repository or the cargo registry sit.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128 \
--remap-path-prefix=$root=tracebook --remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}=cargo"
before="$(sources)"
cargo build -p tracebook-live --target wasm32-unknown-unknown --profile wasm --no-default-features
wasm="$target_dir/wasm32-unknown-unknown/wasm/tracebook_live.wasm"

staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT
# No wasm-opt: binaryen's -O3 saves 7% of the raw size but makes the gzipped module larger
# (1.83 -> 1.86 MB), takes minutes, and would tie the bytes to a binaryen version.
"$bindgen" --target web --no-typescript --remove-name-section --remove-producers-section \
    --out-dir "$staging" --out-name tracebook_live "$wasm"
if [ "$(sources)" != "$before" ]; then
    echo "sources changed while the module was built; run generator/live/build.sh again" >&2
    exit 1
fi
{
    echo "# tracebook-live: generator/live/build.sh built dist/ from these files"
    echo "# $(rustc --version), wasm-bindgen $version"
    echo "$before"
} >"$staging/SOURCES"

mkdir -p "$dist"
for file in tracebook_live_bg.wasm tracebook_live.js SOURCES; do
    mv "$staging/$file" "$dist/$file"
done
raw=$(stat -c %s "$dist/tracebook_live_bg.wasm")
gz=$(gzip -9 -c "$dist/tracebook_live_bg.wasm" | wc -c)
echo "wrote $dist: tracebook_live_bg.wasm $raw bytes ($gz gzipped), tracebook_live.js, SOURCES"
