"""Reference optimiser steps for tracebook's trainer, from PyTorch + Hugging Face `transformers`.

Reads the initial weights of a tiny run, written by
    tracebook train --corpus ANY_TEXT --out RUN --layers 2 --heads 2 --width 16 --context 8 \
        --steps 1 --seed 7 --val-share 0 --snapshot-at 0
(RUN/snapshots/step-000000; `train-step.json`), or by the same command with
`--arch llama --heads 4 --kv-heads 2 --width 32` (`train-step-llama.json`), then takes three AdamW steps as tracebook does: mean next-token
cross-entropy over a batch of windows, global gradient-norm clipping, AdamW with betas
(0.9, 0.95), eps 1e-8, decoupled weight decay on tensors of rank >= 2 only. Writes a JSON fixture
with the windows, the learning rates, each step's loss and gradient norm, up to `--samples`
values of every gradient of the first step and of every weight after the last step (values at
indices floor(i * (n - 1) / (m - 1))). The Rust test `generator/model/tests/train.rs` rebuilds
the same initial weights from the seed, checks their sha256, and replays the steps.

Usage (in a venv with torch, transformers, tokenizers, safetensors):
    python tests/reference/make_train_fixture.py RUN/snapshots/step-000000 OUT.json
"""

import argparse
import hashlib
import json

import torch
import transformers
from tokenizers import Tokenizer
from transformers import AutoModelForCausalLM

TEXTS = [
    "The robots will bring us tea in the morning, and the cats will sleep all day long.",
    "I like cats and dogs, but my sister likes birds that sing before the sun comes up.",
    "A small model learns which word comes next by reading the same text again and again.",
]
LEARNING_RATES = [1e-2, 5e-3, 2e-3]
BATCH = 2
WEIGHT_DECAY = 0.1
GRAD_CLIP = 1.0


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def sample(tensor, m):
    flat = tensor.detach().reshape(-1).float().tolist()
    n = len(flat)
    if n <= m:
        return flat
    return [flat[(i * (n - 1)) // (m - 1)] for i in range(m)]


def windows(tokenizer, context):
    """Windows of context + 1 tokens, BATCH per step, from the texts in order."""
    out = []
    for text in TEXTS:
        ids = tokenizer.encode(text).ids
        out.append(ids[: context + 1])
        out.append(ids[-(context + 1):])
    return out


def canonical(name):
    return name.removeprefix("transformer.")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("init_dir")
    parser.add_argument("out")
    parser.add_argument("--samples", type=int, default=64)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(
        args.init_dir, attn_implementation="eager", dtype=torch.float32)
    model.train()
    tokenizer = Tokenizer.from_file(f"{args.init_dir}/tokenizer.json")
    config = model.config
    if config.model_type == "gpt2":
        context = config.n_positions
        architecture = {"layers": config.n_layer, "heads": config.n_head,
                        "width": config.n_embd, "context": context}
    else:
        context = config.max_position_embeddings
        architecture = {"arch": config.model_type, "layers": config.num_hidden_layers,
                        "heads": config.num_attention_heads,
                        "kv_heads": config.num_key_value_heads,
                        "width": config.hidden_size, "context": context}
    all_windows = windows(tokenizer, context)
    named = [(canonical(n), p) for n, p in model.named_parameters()]
    decay = [p for _, p in named if p.dim() >= 2]
    no_decay = [p for _, p in named if p.dim() < 2]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": WEIGHT_DECAY},
         {"params": no_decay, "weight_decay": 0.0}],
        lr=LEARNING_RATES[0], betas=(0.9, 0.95), eps=1e-8)

    steps, first_grads = [], {}
    for i, lr in enumerate(LEARNING_RATES):
        batch = torch.tensor(all_windows[i * BATCH:(i + 1) * BATCH])
        logits = model(batch[:, :-1]).logits
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        if i == 0:
            first_grads = {n: sample(p.grad, args.samples) for n, p in named}
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), GRAD_CLIP)
        for group in optimizer.param_groups:
            group["lr"] = lr
        optimizer.step()
        steps.append({"lr": lr, "loss": loss.item(), "grad_norm": norm.item()})

    fixture = {
        "made_by": f"tests/reference/make_train_fixture.py, transformers {transformers.__version__}, torch {torch.__version__}",
        "init_sha256": sha256(f"{args.init_dir}/model.safetensors"),
        "seed": 7,
        "architecture": architecture,
        "batch": BATCH,
        "weight_decay": WEIGHT_DECAY,
        "grad_clip": GRAD_CLIP,
        "samples": args.samples,
        "windows": all_windows,
        "steps": steps,
        "first_grads": first_grads,
        "final_weights": {n: sample(p, args.samples) for n, p in named},
    }
    with open(args.out, "w") as f:
        json.dump(fixture, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
