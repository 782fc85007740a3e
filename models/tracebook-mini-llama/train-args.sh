# The training command's arguments, shared by reproduce.sh and models/resume.sh (sourced, not
# run): tracebook-mini-en's recipe (models/tracebook-mini-en/train-args.sh: the same corpus,
# vocabulary size, sizes, batches, steps, learning rate, data mix and seed) with Llama's
# architecture (RoPE, so no position table to start as sinusoids; RMSNorm; a gated MLP; six
# query heads sharing two key/value heads).
TRAIN_ARGS=(--arch llama --kv-heads 2 --vocab 4096 --layers 4 --heads 6 --width 192 --context 128
  --batch-size 16 --steps 10000 --lr 1e-3 --warmup 200 --seed 0 --repeat-share 0.1
  --random-repeat-share 0.2 --cycle-share 0.3 --eval-every 250 --checkpoint-every 250
  --dtype f16)
# No --snapshot-at: the GPT-2 model's snapshots show how copying forms; this twin's checkpoint
# travels between sessions as small as it can.
