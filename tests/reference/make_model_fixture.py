"""Logits of a checkpoint as Hugging Face `transformers` computes them, to prove that a model
`tracebook train` wrote loads in Python exactly as in tracebook.

Loads MODEL_DIR with AutoModelForCausalLM.from_pretrained (eager attention, f32; GPT-2 or Llama) and its
tokenizer.json, runs each prompt, and writes a JSON fixture with the weights' sha256, the token
ids, the 20 likeliest next tokens at every position with their logits, and `--samples` logits of
the last position at indices floor(i * (n - 1) / (m - 1)). The Rust test
`generator/model/tests/train.rs` runs tracebook's forward on the same folder and compares within
1e-4.

Usage (in a venv with torch, transformers, tokenizers, safetensors):
    python tests/reference/make_model_fixture.py models/tracebook-tiny-en OUT.json "prompt" ...
"""

import argparse
import hashlib
import json

import torch
import transformers
from tokenizers import Tokenizer
from transformers import AutoModelForCausalLM


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def sample(values, m):
    n = len(values)
    if n <= m:
        return values
    return [values[(i * (n - 1)) // (m - 1)] for i in range(m)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model_dir")
    parser.add_argument("out")
    parser.add_argument("prompts", nargs="+")
    parser.add_argument("--samples", type=int, default=256)
    args = parser.parse_args()

    torch.set_grad_enabled(False)
    model = AutoModelForCausalLM.from_pretrained(
        args.model_dir, attn_implementation="eager", dtype=torch.float32).eval()
    tokenizer = Tokenizer.from_file(f"{args.model_dir}/tokenizer.json")
    prompts = []
    for text in args.prompts:
        ids = tokenizer.encode(text).ids
        logits = model(torch.tensor([ids])).logits[0]
        top = torch.topk(logits, 20, dim=-1)
        prompts.append({
            "text": text,
            "ids": ids,
            "top_ids": top.indices.tolist(),
            "top_logits": top.values.tolist(),
            "last_logits": sample(logits[-1].tolist(), args.samples),
        })
    fixture = {
        "made_by": f"tests/reference/make_model_fixture.py, transformers {transformers.__version__}, torch {torch.__version__}",
        "weights_sha256": sha256(f"{args.model_dir}/model.safetensors"),
        "samples": args.samples,
        "prompts": prompts,
    }
    with open(args.out, "w") as f:
        json.dump(fixture, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
