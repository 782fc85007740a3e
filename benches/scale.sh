#!/usr/bin/env bash
# [models] Tracing at GPT-2's four sizes (random weights, `dev test-model --shape`): for a 16-token
# and a 256-token prompt, the whole `tracebook trace` process's wall time, its peak memory (max
# RSS) against the weights file, and the trace's size. Results go in docs/BENCHMARKS.md.
# [families] Also llama-1b: Llama-3.2-1B's shape (16 layers, width 2048, 32 query heads sharing
# 8 key/value heads of 64, MLP 8192, 128,256-token vocabulary, tied embeddings, RoPE θ 500,000
# with its llama3 scaling), random weights stored as f32; llama-1b-bf16 the same stored as bf16,
# as the hub ships it.
# Usage: benches/scale.sh [SHAPE...]   (default: small medium large xl; xl needs ~13 GB of disk,
#        llama-1b ~5 GB)
#        PY=/path/to/python benches/scale.sh ...   also times one 16-token forward pass per shape,
#        tracebook's (`dev bench-forward`) against PyTorch's (benches/forward_torch.py, a Python
#        with torch and transformers), medians of 5 after 2 warm-ups
# Needs: a release build and /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
shapes=("${@:-small medium large xl}")
read -r -a shapes <<<"${shapes[*]}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$PWD/target/release/tracebook
cargo build --release --quiet
short="The robots will bring us a new kind of work, and we will learn to"
# 256 tokens: the same 16-token sentence sixteen times (cost does not depend on content).
long=$(for _ in $(seq 16); do printf '%s ' "$short"; done)
printf '| shape | layers × heads × width | weights | tokens | wall time | peak RSS | RSS / weights | trace |\n'
printf '|---|---|---|---|---|---|---|---|\n'
llama_1b=(--arch llama --set hidden_size=2048 --set intermediate_size=8192
  --set num_hidden_layers=16 --set num_attention_heads=32 --set num_key_value_heads=8
  --set head_dim=64 --set vocab_size=128256 --set max_position_embeddings=131072
  --set tie_word_embeddings=true --set rms_norm_eps=1e-5 --set rope_theta=500000
  --set 'rope_scaling={"rope_type":"llama3","factor":32.0,"low_freq_factor":1.0,"high_freq_factor":4.0,"original_max_position_embeddings":8192}')
for shape in "${shapes[@]}"; do
  model="$work/$shape"
  case "$shape" in
    llama-1b) $bin dev test-model "${llama_1b[@]}" "$model" >/dev/null ;;
    llama-1b-bf16) $bin dev test-model "${llama_1b[@]}" --dtype bf16 "$model" >/dev/null ;;
    *) $bin dev test-model --shape "$shape" "$model" >/dev/null ;;
  esac
  weights=$(stat -c %s "$model/model.safetensors")
  dims=$(python3 -c "import json;c=json.load(open('$model/config.json'));g=lambda *k: next(c[x] for x in k if x in c);kv=c.get('num_key_value_heads');print(f\"{g('n_layer','num_hidden_layers')} × {g('n_head','num_attention_heads')}{f' ({kv} kv)' if kv else ''} × {g('n_embd','hidden_size')}\")")
  for prompt in "$short" "$long"; do
    out="$work/t.json"
    /usr/bin/time -f '%e %M' -o "$work/time" \
      $bin trace --model "$model" --prompt "$prompt" --out "$out" >/dev/null 2>"$work/err" \
      || { cat "$work/err"; exit 1; }
    read -r secs kb <"$work/time"
    tokens=$(python3 -c "import json;print(len(json.load(open('$out'))['meta']['tokens']))")
    size=$(stat -c %s "$out")
    python3 - "$shape" "$dims" "$weights" "$tokens" "$secs" "$kb" "$size" <<'PY'
import sys
shape, dims, weights, tokens, secs, kb, size = sys.argv[1:]
w, rss, t = int(weights), int(kb) * 1024, int(size)
mb = lambda b: f"{b / 1e6:,.0f} MB" if b >= 1e7 else f"{b / 1e6:.1f} MB"
print(f"| {shape} | {dims} | {mb(w)} | {tokens} | {float(secs):.1f} s | {mb(rss)} | {rss / w:.2f} | {mb(t)} |")
PY
    rm -f "$out"
  done
  if [ -n "${PY:-}" ]; then
    echo "forward, 16 tokens, $shape: tracebook $($bin dev bench-forward "$model" --tokens 16 --runs 5 2>&1 | tr '\n' ' ')"
    echo "forward, 16 tokens, $shape: $("$PY" benches/forward_torch.py "$model" 16 5 2>&1 | grep -v Loading | tail -1)"
  fi
  rm -rf "$model"
done
