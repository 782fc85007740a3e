"""Median time of one forward pass of a causal LM (GPT-2 or the Llama family) in PyTorch
`transformers` (eager attention, f32), for comparison with `tracebook dev bench-forward`. Usage: python benches/forward_torch.py MODEL_DIR [TOKENS] [RUNS]"""

import statistics
import sys
import time

import torch
from transformers import AutoModelForCausalLM

model_dir = sys.argv[1]
tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 16
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 20
torch.set_grad_enabled(False)
model = AutoModelForCausalLM.from_pretrained(model_dir, attn_implementation="eager", dtype=torch.float32).eval()
ids = torch.arange(1000, 1000 + tokens).unsqueeze(0)
times = []
for _ in range(runs + 2):
    start = time.perf_counter()
    model(ids)
    times.append((time.perf_counter() - start) * 1e3)
times = sorted(times[2:])
print(f"{tokens} tokens, median of {runs}: torch forward {statistics.median(times):.1f} ms "
      f"(torch {torch.__version__}, {torch.get_num_threads()} threads)")
