#!/usr/bin/env bash
# The training run of tracebook-mini-en spans several sessions of two cores. Between them its
# latest checkpoint lives in run/ (weights, AdamW's moments, the log, the early snapshots):
#
#   bash models/tracebook-mini-en/resume.sh start   # in the background: nohup ... &
#       makes the corpus and a copy of run/ in $WORK (default /root/tb-model) if missing,
#       builds tracebook, and continues the run with `train --resume` (the settings are the
#       checkpoint's), saving a checkpoint every 500 steps; with no checkpoint anywhere it
#       starts the run (train-args.sh);
#   bash models/tracebook-mini-en/resume.sh save
#       stops the run and copies its latest checkpoint back into run/, to commit.
#
# A resumed run ends where an uninterrupted one does (generator/model/tests/train.rs), as long
# as the trainer's arithmetic is unchanged between sessions. When the run reaches its last step,
# `save` also copies the finished model's files next to this script.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${WORK:-/root/tb-model}
mkdir -p "$work"
cd "$work"
case "${1:-}" in
start)
  [ -f corpus.txt ] || bash "$here/corpus.sh"
  [ -d run ] || [ ! -d "$here/run" ] || cp -r "$here/run" run
  (cd "$root" && cargo build --release --quiet)
  # A copy, so that rebuilding the repository does not replace the running binary.
  cp "$root/target/release/tracebook" ./tracebook-train
  if [ -f run/training_log.json ]; then
    exec ./tracebook-train train --corpus corpus.txt --out run --resume
  fi
  # No checkpoint yet (none committed): the run starts from step 0.
  # shellcheck source=train-args.sh
  source "$here/train-args.sh"
  rm -rf run
  exec ./tracebook-train train --corpus corpus.txt --out run "${TRAIN_ARGS[@]}"
  ;;
save)
  pkill -f "tracebook-train train --corpus corpus.txt --out run" || true
  sleep 2
  rm -rf "$here/run.new"
  cp -r run "$here/run.new"
  rm -rf "$here/run"
  mv "$here/run.new" "$here/run"
  # Prints where the run stands; exits 0 when it has reached its last step.
  if python3 - "$here/run/training_log.json" <<'PY'; then
import json, sys
log = json.load(open(sys.argv[1]))
done, total = log["steps"][-1]["step"], log["settings"]["steps"]
last = [r for r in log["steps"] if r.get("val_loss") is not None][-1]
print(f"saved step {done} of {total}: validation loss {last['val_loss']:.3f}, "
      f"copy loss {last.get('copy_loss', float('nan')):.3f}, {log['steps'][-1]['seconds']:.0f} s")
sys.exit(done != total)
PY
    cp run/config.json run/model.safetensors run/tokenizer.json run/training_log.json "$here/"
    echo "the run is finished: the model's files are in $here"
  fi
  ;;
*)
  echo "usage: resume.sh start|save" >&2
  exit 2
  ;;
esac
