#!/usr/bin/env bash
# [notebook] The Python package's wheel: its size and build time, with the model code (the
# default: figure() and trace()) and without it (--no-default-features: figure() only).
#
#   bash benches/python_wheel.sh          # builds in target/, reusing what cargo built there
#   bash benches/python_wheel.sh --cold   # in an empty target folder: a first install's time
#
# Each build is `pip wheel --no-deps ./python` in a fresh venv (maturin from PyPI drives cargo);
# prints one line per variant: bytes of the wheel, bytes of the extension inside it, seconds.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PIP_DISABLE_PIP_VERSION_CHECK=1 CARGO_INCREMENTAL=0 CARGO_PROFILE_RELEASE_DEBUG=false
if [ "${1:-}" = --cold ]; then
  export CARGO_TARGET_DIR="$work/target"
fi
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet maturin >/dev/null
for variant in default no-model; do
  args=""
  [ "$variant" = no-model ] && args="--no-default-features"
  start=$(date +%s.%N)
  MATURIN_PEP517_ARGS="$args" "$work/venv/bin/pip" wheel --quiet --no-deps \
    --wheel-dir "$work/$variant" "$repo/python" >"$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  wheel=$(ls "$work/$variant"/*.whl)
  native=$("$python" -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(sum(i.file_size for i in z.infolist() if "_native" in i.filename))' "$wheel")
  printf '%-9s %12d bytes (wheel)  %12d bytes (extension)  %6.1f s  %s\n' \
    "$variant" "$(stat -c %s "$wheel")" "$native" "$seconds" "$(basename "$wheel")"
done
