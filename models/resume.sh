#!/usr/bin/env bash
# A training run of an example model spans several sessions of two cores. Between them its latest
# checkpoint lives in MODEL/run/ (weights, AdamW's moments, the log, the early snapshots), and
# MODEL/train-args.sh holds the arguments it started with (TRAIN_ARGS, sourced):
#
#   bash models/resume.sh MODEL start   # in the background: nohup ... &
#       makes the corpus (models/tracebook-mini-en/corpus.sh) and a copy of run/ in $WORK
#       (default /root/tb-model/NAME) if missing, builds tracebook, and continues the run with
#       `train --resume` (the settings are the checkpoint's), saving a checkpoint as the
#       arguments say; with no checkpoint anywhere it starts the run (train-args.sh);
#   bash models/resume.sh MODEL save
#       stops the run and copies its latest checkpoint back into MODEL/run/, to commit.
#
# A resumed run ends where an uninterrupted one does (generator/model/tests/train.rs), as long
# as the trainer's arithmetic is unchanged between sessions. When the run reaches its last step,
# `save` also copies the finished model's files into MODEL.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: resume.sh MODEL start|save" >&2; exit 2; }
here=$(cd "$1" && pwd)
name=$(basename "$here")
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-/root/tb-model/$name}
mkdir -p "$work"
cd "$work"
case "$2" in
start)
  [ -f corpus.txt ] || bash "$root/models/tracebook-mini-en/corpus.sh"
  [ -d run ] || [ ! -d "$here/run" ] || cp -r "$here/run" run
  (cd "$root" && cargo build --release --quiet)
  # A copy, so that rebuilding the repository does not replace the running binary.
  cp "$root/target/release/tracebook" ./tracebook-train
  echo $$ >train.pid # exec keeps the process id
  if [ -f run/training_log.json ]; then
    exec ./tracebook-train train --corpus corpus.txt --out run --resume
  fi
  # No checkpoint yet (none committed): the run starts from step 0.
  # shellcheck source=tracebook-mini-en/train-args.sh
  source "$here/train-args.sh"
  rm -rf run
  exec ./tracebook-train train --corpus corpus.txt --out run "${TRAIN_ARGS[@]}"
  ;;
save)
  if [ -f train.pid ]; then
    kill "$(cat train.pid)" 2>/dev/null || true
    rm -f train.pid
  fi
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
  echo "usage: resume.sh MODEL start|save" >&2
  exit 2
  ;;
esac
