"""Reference values for tracebook's GPT-2 forward, from Hugging Face `transformers` (eager attention).

Reads a model folder written by `tracebook dev test-model DIR [--shape small]`, runs
GPT2LMHeadModel on each prompt with hooks on every module, and writes a JSON fixture with the
token ids and, for every tensor of the trace table (AUTHORING.md), its shape and up to
`--samples` values taken at indices floor(i * (n - 1) / (m - 1)) for i in 0..m (all values when
n <= m). The Rust test `generator/model/tests/faithful.rs` regenerates the same model, checks its
sha256 against the fixture and compares every sampled value within 1e-4.

Usage (in a venv outside the repo: pip install torch transformers tokenizers safetensors):
    python tests/reference/make_fixtures.py MODEL_DIR OUT.json --samples 1024 "prompt one" "prompt two"
"""

import argparse
import hashlib
import json

import torch
import transformers
from tokenizers import Tokenizer
from transformers import GPT2LMHeadModel


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def heads(x, n_head):
    """[1, T, d] -> [H, T, dh]"""
    _, t, d = x.shape
    return x[0].reshape(t, n_head, d // n_head).transpose(0, 1)


def capture(model, ids):
    cfg = model.config
    h = cfg.n_head
    got = {}
    hooks = []

    def fwd(module, fn):
        hooks.append(module.register_forward_hook(lambda m, args, out: fn(args, out)))

    def pre(module, fn):
        hooks.append(module.register_forward_pre_hook(lambda m, args: fn(args)))

    def layernorm(module, name):
        def stats(args):
            x = args[0][0]
            mean = x.mean(-1)
            var = ((x - mean[:, None]) ** 2).mean(-1)
            got[f"{name}.mean"] = mean
            got[f"{name}.std"] = torch.sqrt(var + module.eps)

        pre(module, stats)
        fwd(module, lambda args, out: got.__setitem__(f"{name}.normalized", out[0]))

    tr = model.transformer
    fwd(tr.wte, lambda args, out: got.__setitem__("embed", out[0]))
    fwd(tr.wpe, lambda args, out: got.__setitem__("pos_embed", out[0]))
    for l, block in enumerate(tr.h):
        b = f"blocks.{l}"
        pre(block, lambda args, b=b: got.__setitem__(f"{b}.resid_pre", args[0][0]))
        fwd(block, lambda args, out, b=b: got.__setitem__(
            f"{b}.resid_post", (out[0] if isinstance(out, tuple) else out)[0]))
        layernorm(block.ln_1, f"{b}.ln1")
        layernorm(block.ln_2, f"{b}.ln2")

        def qkv(args, out, b=b):
            q, k, v = out.split(cfg.n_embd, dim=2)
            got[f"{b}.attn.q"], got[f"{b}.attn.k"], got[f"{b}.attn.v"] = (
                heads(q, h), heads(k, h), heads(v, h))

        fwd(block.attn.c_attn, qkv)
        pre(block.attn.c_proj, lambda args, b=b: got.__setitem__(f"{b}.attn.z", heads(args[0], h)))
        fwd(block.attn, lambda args, out, b=b: got.__setitem__(f"{b}.attn_out", out[0][0]))
        pre(block.ln_2, lambda args, b=b: got.__setitem__(f"{b}.resid_mid", args[0][0]))
        fwd(block.mlp.c_fc, lambda args, out, b=b: got.__setitem__(f"{b}.mlp.pre", out[0]))
        fwd(block.mlp.act, lambda args, out, b=b: got.__setitem__(f"{b}.mlp.post", out[0]))
        fwd(block.mlp, lambda args, out, b=b: got.__setitem__(f"{b}.mlp_out", out[0]))
    fwd(tr.ln_f, lambda args, out: got.__setitem__("ln_final.normalized", out[0]))

    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True)
    for hook in hooks:
        hook.remove()

    dh = cfg.n_embd // h
    for l, pattern in enumerate(out.attentions):
        b = f"blocks.{l}"
        # The scores as eager attention computes them, before the causal mask.
        scaling = dh ** -0.5 if cfg.scale_attn_weights else 1.0
        if cfg.scale_attn_by_inverse_layer_idx:
            scaling /= float(l + 1)
        got[f"{b}.attn.scores"] = got[f"{b}.attn.q"] @ got[f"{b}.attn.k"].transpose(-1, -2) * scaling
        got[f"{b}.attn.pattern"] = pattern[0]
    logits = out.logits[0]
    got["logits.last"] = logits[-1]
    got["logits.topk_ids"] = torch.topk(logits, 20, dim=-1).indices.float()
    return got


def sample(tensor, m):
    flat = tensor.detach().reshape(-1).float().tolist()
    n = len(flat)
    if n <= m:
        return flat
    return [flat[(i * (n - 1)) // (m - 1)] for i in range(m)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model_dir")
    parser.add_argument("out")
    parser.add_argument("prompts", nargs="+")
    parser.add_argument("--samples", type=int, default=1024)
    args = parser.parse_args()

    torch.set_grad_enabled(False)
    model = GPT2LMHeadModel.from_pretrained(
        args.model_dir, attn_implementation="eager", dtype=torch.float32).eval()
    tokenizer = Tokenizer.from_file(f"{args.model_dir}/tokenizer.json")
    fixture = {
        "made_by": f"tests/reference/make_fixtures.py, transformers {transformers.__version__}, torch {torch.__version__}",
        "weights_sha256": sha256(f"{args.model_dir}/model.safetensors"),
        "samples": args.samples,
        "prompts": [],
    }
    for text in args.prompts:
        ids = tokenizer.encode(text).ids
        got = capture(model, ids)
        tensors = {
            name: {"shape": list(t.shape), "values": sample(t, args.samples)}
            for name, t in sorted(got.items())
        }
        fixture["prompts"].append({"text": text, "ids": ids, "tensors": tensors})
    with open(args.out, "w") as f:
        json.dump(fixture, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
