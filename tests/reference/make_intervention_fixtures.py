"""Reference values from Hugging Face `transformers` for ablation and activation patching
(docs/interventions.md): the same hooks tracebook applies, written as torch hooks on the
model's own modules.

For each test model below (`tracebook dev test-model DIR [--arch FAMILY] --set ...`, the same
deterministic weights the Rust test writes), records:
  - the plain run's next-token log-probabilities of TARGETS and its top 5;
  - for each mode (zero, mean), layer and head: that head's output (the input of the output
    projection, c_proj / o_proj, in that head's slice) replaced by zero or by its mean over
    the positions; for each layer: the MLP's output replaced the same way;
  - activation patching from PROMPT (clean) into CORRUPTED: the logit difference
    ANSWER − WRONG at the last position of each run, with the clean stream entering block l
    at position p copied in (a pre-hook on the block), and with head h's clean output copied in.
`generator/model/tests/interventions.rs` regenerates each folder and compares every number
within 1e-4; CI needs no Python.

Usage (in a venv outside the repo: pip install torch transformers tokenizers safetensors):
    cargo build --release
    python tests/reference/make_intervention_fixtures.py target/release/tracebook tests/fixtures/interventions
"""

import json
import os
import subprocess
import sys
import tempfile

import torch
import transformers
from tokenizers import Tokenizer
from transformers import AutoModelForCausalLM

PROMPT = "The robots will bring us tea, and then they will sing"
CORRUPTED = "The robots will bring us milk, and then they will dance"
TARGETS = [" the", " and", " to"]
ANSWER, WRONG = " the", " and"
TOP = 5

# name -> (test-model arguments, config fields)
MODELS = {
    "gpt2": ([], {}),
    "llama_gqa": (["--arch", "llama"], {}),
    "mistral_window": (["--arch", "mistral"], {"sliding_window": 4}),
    "qwen3": (["--arch", "qwen3"], {}),
}


def parts(model):
    """(blocks, attention output projections, MLPs, heads) of a GPT-2 or Llama-family model."""
    if hasattr(model, "transformer"):
        blocks = list(model.transformer.h)
        return blocks, [b.attn.c_proj for b in blocks], [b.mlp for b in blocks], model.config.n_head
    blocks = list(model.model.layers)
    return blocks, [b.self_attn.o_proj for b in blocks], [b.mlp for b in blocks], model.config.num_attention_heads


def block_pre_hook(block, edit):
    """Call edit(hidden_states [1, T, d]) -> new hidden states, however the block receives them."""
    def hook(module, args, kwargs):
        if args:
            return (edit(args[0]),) + tuple(args[1:]), kwargs
        kwargs = dict(kwargs)
        kwargs["hidden_states"] = edit(kwargs["hidden_states"])
        return args, kwargs
    return block.register_forward_pre_hook(hook, with_kwargs=True)


def run(model, ids, hooks=()):
    """Next-token logits at the last position with the hooks (registered by each function) on."""
    handles = [h() for h in hooks]
    try:
        with torch.no_grad():
            return model(torch.tensor([ids])).logits[0, -1]
    finally:
        for h in handles:
            h.remove()


def replaced(x, mode):
    return torch.zeros_like(x) if mode == "zero" else x.mean(dim=-2, keepdim=True).expand_as(x)


def head_edit(proj, head, dh, value):
    """A pre-hook on the output projection: head's slice of its input through value(slice)."""
    def hook(module, args):
        x = args[0].clone()
        s = slice(head * dh, (head + 1) * dh)
        x[..., s] = value(x[..., s])
        return (x,) + tuple(args[1:])
    return lambda: proj.register_forward_pre_hook(hook)


def outcome(logits, targets):
    logp = torch.log_softmax(logits.double(), -1)
    top = torch.topk(logits, TOP)
    return {
        "logprobs": [logp[t].item() for t in targets],
        "top_ids": top.indices.tolist(),
        "top_probs": [logp[i].exp().item() for i in top.indices],
    }


def ablations(model, ids, targets):
    blocks, projs, mlps, heads = parts(model)
    dh = projs[0].in_features // heads if hasattr(projs[0], "in_features") else projs[0].weight.shape[0] // heads
    out = {"base": outcome(run(model, ids), targets)}
    for mode in ("zero", "mean"):
        per_head = [[outcome(run(model, ids, [head_edit(projs[l], h, dh, lambda x: replaced(x, mode))]), targets)
                     for h in range(heads)] for l in range(len(blocks))]
        per_mlp = []
        for l in range(len(blocks)):
            hook = lambda l=l: mlps[l].register_forward_hook(lambda m, a, o: replaced(o, mode))
            per_mlp.append(outcome(run(model, ids, [hook]), targets))
        out[mode] = {"heads": per_head, "mlp": per_mlp}
    return out


def patching(model, clean, corrupted, answer, wrong):
    blocks, projs, _, heads = parts(model)
    dh = projs[0].weight.shape[0] // heads if not hasattr(projs[0], "in_features") else projs[0].in_features // heads
    # The clean run's block inputs and output-projection inputs.
    resid, z, handles = {}, {}, []
    for l, (block, proj) in enumerate(zip(blocks, projs)):
        handles.append(block_pre_hook(block, lambda x, l=l: resid.__setitem__(l, x.clone()) or x))
        handles.append(proj.register_forward_pre_hook(lambda m, a, l=l: z.__setitem__(l, a[0].clone())))
    diff = lambda logits: (logits[answer] - logits[wrong]).item()
    clean_diff = diff(run(model, clean))
    for h in handles:
        h.remove()
    out = {"clean": clean_diff, "corrupted": diff(run(model, corrupted)), "resid": [], "heads": []}
    for l in range(len(blocks)):
        row = []
        for p in range(len(clean)):
            def edit(x, l=l, p=p):
                x = x.clone()
                x[:, p] = resid[l][:, p]
                return x
            row.append(diff(run(model, corrupted, [lambda l=l, edit=edit: block_pre_hook(blocks[l], edit)])))
        out["resid"].append(row)
        out["heads"].append([
            diff(run(model, corrupted, [head_edit(projs[l], h, dh, lambda x, l=l, h=h: z[l][..., h * dh:(h + 1) * dh])]))
            for h in range(heads)])
    return out


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    torch.set_grad_enabled(False)
    for name, (args, fields) in MODELS.items():
        with tempfile.TemporaryDirectory() as model_dir:
            command = [binary, "dev", "test-model", model_dir, *args]
            for field, value in fields.items():
                command += ["--set", f"{field}={json.dumps(value)}"]
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            model = AutoModelForCausalLM.from_pretrained(
                model_dir, attn_implementation="eager", dtype=torch.float32).eval()
            tokenizer = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
            ids = tokenizer.encode(PROMPT).ids
            corrupted = tokenizer.encode(CORRUPTED).ids
            assert len(ids) == len(corrupted), (len(ids), len(corrupted))
            token = lambda t: tokenizer.encode(t).ids[0]
            targets = [token(t) for t in TARGETS]
            fixture = {
                "made_by": f"tests/reference/make_intervention_fixtures.py, transformers {transformers.__version__}, torch {torch.__version__}",
                "args": args,
                "config": fields,
                "text": PROMPT,
                "corrupted": CORRUPTED,
                "ids": ids,
                "corrupted_ids": corrupted,
                "targets": targets,
                "answer": token(ANSWER),
                "wrong": token(WRONG),
                "ablation": ablations(model, ids, targets),
                "patching": patching(model, ids, corrupted, token(ANSWER), token(WRONG)),
            }
        with open(os.path.join(out_dir, f"{name}.json"), "w") as f:
            json.dump(fixture, f, separators=(",", ":"))
            f.write("\n")
        print(f"{name}: {len(ids)} tokens")


if __name__ == "__main__":
    main()
