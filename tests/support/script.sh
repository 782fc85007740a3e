# The start every test script that runs the tracebook binary shares (sourced, not run): `repo`,
# `bin` (TRACEBOOK, else target/release/tracebook, which must exist), `python` (PYTHON, else
# python3), `start`, and `work`, a temporary folder removed on exit that holds the caches
# (XDG_CACHE_HOME: the built-in model is written there, not into the user's cache); `quiet CMD`
# runs a command showing its output only when it fails.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${TRACEBOOK:-"$repo/target/release/tracebook"}
python=${PYTHON:-python3}
if [ ! -x "$bin" ]; then
  echo "no tracebook binary at $bin: run cargo build --release first (or set TRACEBOOK)" >&2
  exit 1
fi
start=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache" PIP_DISABLE_PIP_VERSION_CHECK=1
quiet() { "$@" >"$work/log" 2>&1 || { cat "$work/log" >&2; return 1; }; }
