#!/usr/bin/env bash
# Checks docs/read_trace.py, the Python reader docs/trace-format.md gives, bit for bit against
# the Rust decoder (`tracebook inspect --json`) on every tensor of the example site's traces
# and of a 16-token GPT-2-small-shape trace at each precision. Needs python3 with numpy.
#
#   cargo build --release
#   bash benches/python_reader.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${TRACEBOOK:-"$repo/target/release/tracebook"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"
"$bin" dev test-model --shape small "$work/small" >/dev/null
files=("$repo"/traces/*.json)
for precision in compact f16 f32; do
  "$bin" trace --model "$work/small" --precision "$precision" --out "$work/small-$precision.json" \
    --prompt "The robots will bring the boxes to the old house by the river before it gets" >/dev/null 2>&1
  files+=("$work/small-$precision.json")
done
PYTHONPATH="$repo/docs" python3 - "$bin" "${files[@]}" <<'PY'
import json, subprocess, sys
import numpy as np
import read_trace

bin_, files = sys.argv[1], sys.argv[2:]
checked = 0
for path in files:
    trace = json.load(open(path))
    for name in sorted(trace["tensors"]):
        ours = read_trace.read_tensor(trace, name)
        out = subprocess.run([bin_, "inspect", path, "--tensor", name, "--json"],
                             capture_output=True, text=True, check=True).stdout
        rust = json.loads(out)
        theirs = np.array(rust["data"], dtype=np.float64).astype(np.float32).reshape(rust["shape"])
        if ours.shape != theirs.shape or not np.array_equal(ours.view(np.uint32), theirs.view(np.uint32)):
            bad = np.flatnonzero(ours.reshape(-1).view(np.uint32) != theirs.reshape(-1).view(np.uint32))
            sys.exit(f"{path} {name}: {len(bad)} values differ, first at {bad[:1]}: "
                     f"{ours.reshape(-1)[bad[:1]]} vs {theirs.reshape(-1)[bad[:1]]}")
        checked += 1
print(f"docs/read_trace.py equals the Rust decoder bit for bit on {checked} tensors of {len(files)} traces")
PY
