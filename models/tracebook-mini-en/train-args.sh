# The training command's arguments, shared by reproduce.sh and resume.sh (sourced, not run).
# Batches of 16 windows, the position table starting as sinusoids, three in ten windows saying one
# random stretch over and over, from step 0: see "Why these choices" in README.md.
TRAIN_ARGS=(--vocab 4096 --layers 4 --heads 6 --width 192 --context 128 --batch-size 16
  --steps 10000 --lr 1e-3 --warmup 200 --seed 0 --repeat-share 0.1 --random-repeat-share 0.2 --cycle-share 0.3
  --position-init sinusoid --eval-every 250 --checkpoint-every 250 --dtype f16
  --snapshot-at 0,400,2000,3000)
