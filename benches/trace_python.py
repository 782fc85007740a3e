"""The Python equivalent of `tracebook trace` for the benchmark: load a GPT-2 folder with
`transformers`, capture every tensor of the trace table for each prompt (the same hooks as
tests/reference/make_fixtures.py) and write one JSON file per prompt with all values.
Usage: python benches/trace_python.py MODEL_DIR OUT_DIR "prompt" ["prompt" ...]"""

import json
import os
import sys

import torch
from tokenizers import Tokenizer
from transformers import GPT2LMHeadModel

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "reference"))
from make_fixtures import capture  # noqa: E402

model_dir, out_dir, prompts = sys.argv[1], sys.argv[2], sys.argv[3:]
torch.set_grad_enabled(False)
model = GPT2LMHeadModel.from_pretrained(model_dir, attn_implementation="eager", dtype=torch.float32).eval()
tokenizer = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
os.makedirs(out_dir, exist_ok=True)
for n, text in enumerate(prompts):
    ids = tokenizer.encode(text).ids
    tensors = capture(model, ids)
    doc = {
        "prompt": text,
        "ids": ids,
        "tensors": {k: {"shape": list(v.shape), "data": v.reshape(-1).tolist()} for k, v in tensors.items()},
    }
    with open(os.path.join(out_dir, f"p{n}.json"), "w") as f:
        json.dump(doc, f)
