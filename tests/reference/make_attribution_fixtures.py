"""Reference values from Hugging Face `transformers` for the prompt option `attribute`
(docs/authoring.md): direct logit attribution written with torch hooks on the model's own
modules, independently of tracebook's code.

For each test model below (`tracebook dev test-model DIR [--arch FAMILY] --set ...`, the same
deterministic weights the Rust test writes), records for each of TARGETS at the last position:
  - its logit;
  - direct logit attribution: the final norm's input x (the stream after the last block) is
    the sum of the embeddings (token, and position for GPT-2), each head's output through its
    slice of the output projection (c_proj / o_proj, bias left out), each projection's bias
    and each MLP's output; the final norm with its scale held at x's is linear, so each part's
    share is  part · (gain ⊙ unembedding row / scale), centred for a LayerNorm, and the
    norm's bias adds  bias · unembedding row  (counted with the projections' biases).
  - input saliency of the target's log-probability at the last position with respect to the
    token embeddings (`inputs_embeds`; GPT-2 adds its positions inside, so they are kept):
    Captum's InputXGradient and IntegratedGradients (all-zero baseline, its defaults: 50
    steps, method "gausslegendre"), each summed over the embedding dimension; and the
    log-probability at the prompt and at the baseline;
  - attribution patching from PROMPT (clean) into CORRUPTED: in the corrupted run, the gradient
    of logit(ANSWER) − logit(WRONG) at the last position with respect to each block's input
    (a pre-hook adds a zero that requires grad) and each output projection's input (each
    head's slice), dotted with clean − corrupted activation; per position of each block input,
    per head; normalised by the clean and corrupted runs' differences;
  - information flow (Ferrando & Voita, 2024): see `flow` below.
`generator/model/tests/attribution.rs` regenerates each folder and compares every number
within 1e-4 (1e-3 for integrated gradients); CI needs no Python.

Usage (in a venv outside the repo: pip install torch transformers tokenizers safetensors captum):
    cargo build --release
    python tests/reference/make_attribution_fixtures.py target/release/tracebook tests/fixtures/attribution
"""

import json
import os
import subprocess
import sys
import tempfile

import captum
import torch
import transformers
from captum.attr import InputXGradient, IntegratedGradients
from tokenizers import Tokenizer
from transformers import AutoModelForCausalLM

PROMPT = "The robots will bring us tea, and then they will sing"
CORRUPTED = "The robots will bring us milk, and then they will dance"
TARGETS = [" the", " and", " to"]
ANSWER, WRONG = " the", " and"

# name -> (test-model arguments, config fields)
MODELS = {
    "gpt2": ([], {}),
    "llama_gqa": (["--arch", "llama"], {}),
    "mistral_window": (["--arch", "mistral"], {"sliding_window": 4}),
    "qwen3": (["--arch", "qwen3"], {}),
}


def modules(model):
    """(embedding modules, output projections, MLPs, final norm, heads, GPT-2?)."""
    if hasattr(model, "transformer"):
        t = model.transformer
        return [t.wte, t.wpe], [b.attn.c_proj for b in t.h], [b.mlp for b in t.h], t.ln_f, model.config.n_head, True
    m = model.model
    return [m.embed_tokens], [b.self_attn.o_proj for b in m.layers], [b.mlp for b in m.layers], m.norm, model.config.num_attention_heads, False


def attribution(model, ids, targets):
    embeds, projs, mlps, norm, heads, gpt2 = modules(model)
    seen = {"embed": [], "z": [], "mlp": []}
    handles = [e.register_forward_hook(lambda m, a, o: seen["embed"].append(o[0, -1].double())) for e in embeds]
    handles += [p.register_forward_pre_hook(lambda m, a: seen["z"].append(a[0][0, -1].double())) for p in projs]
    handles += [m.register_forward_hook(lambda m, a, o: seen["mlp"].append(o[0, -1].double())) for m in mlps]
    handles.append(norm.register_forward_pre_hook(lambda m, a: seen.__setitem__("x", a[0][0, -1].double())))
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0, -1]
    for h in handles:
        h.remove()
    x = seen["x"]
    # Gemma-style models scale the embedding inside the model; none of these does.
    embed = sum(seen["embed"])
    out = {"logit": [], "embed": [], "heads": [], "mlp": [], "bias": []}
    for t in targets:
        read = model.lm_head.weight[t].double()
        if gpt2:
            std = torch.sqrt(x.var(unbiased=False) + norm.eps)
            w = norm.weight.double() * read / std
            w = w - w.mean()
            norm_bias = (norm.bias.double() * read).sum()
        else:
            eps = getattr(norm, "variance_epsilon", getattr(norm, "eps", None))
            rms = torch.sqrt((x * x).mean() + eps)
            w = norm.weight.double() * read / rms
            norm_bias = torch.tensor(0.0, dtype=torch.float64)
        share = lambda part: (part @ w).item()
        per_layer = []
        bias = norm_bias.item()
        for z, proj in zip(seen["z"], projs):
            weight = proj.weight.double()  # Conv1D: [in, out]; Linear: [out, in]
            w_in_out = weight if gpt2 else weight.T
            dh = w_in_out.shape[0] // heads
            per_layer.append([share(z[h * dh:(h + 1) * dh] @ w_in_out[h * dh:(h + 1) * dh]) for h in range(heads)])
            if proj.bias is not None:
                bias += share(proj.bias.double())
        out["logit"].append(logits[t].item())
        out["embed"].append(share(embed))
        out["heads"].append(per_layer)
        out["mlp"].append([share(m) for m in seen["mlp"]])
        out["bias"].append(bias)
        total = out["embed"][-1] + sum(map(sum, per_layer)) + sum(out["mlp"][-1]) + bias
        assert abs(total - logits[t].item()) < 1e-4, (total, logits[t].item())
    return out


def saliency(model, ids, targets):
    embeds = model.get_input_embeddings()(torch.tensor([ids])).detach()

    def logprob(inputs_embeds, target):
        logits = model(inputs_embeds=inputs_embeds).logits[:, -1]
        return torch.log_softmax(logits, -1)[:, target]

    out = {"grad_input": [], "integrated": [], "logprob": [], "baseline_logprob": []}
    for t in targets:
        forward = lambda e, t=t: logprob(e, t)
        gi = InputXGradient(forward).attribute(embeds.clone().requires_grad_())
        ig = IntegratedGradients(forward).attribute(embeds, baselines=torch.zeros_like(embeds))
        out["grad_input"].append(gi[0].sum(-1).tolist())
        out["integrated"].append(ig[0].sum(-1).tolist())
        with torch.no_grad():
            out["logprob"].append(forward(embeds).item())
            out["baseline_logprob"].append(forward(torch.zeros_like(embeds)).item())
    return out


def block_pre_hook(block, edit):
    def hook(module, args, kwargs):
        if args:
            return (edit(args[0]),) + tuple(args[1:]), kwargs
        kwargs = dict(kwargs)
        kwargs["hidden_states"] = edit(kwargs["hidden_states"])
        return args, kwargs
    return block.register_forward_pre_hook(hook, with_kwargs=True)


def attribution_patching(model, clean, corrupted, answer, wrong):
    _, projs, _, _, heads, _ = modules(model)
    blocks = list(model.transformer.h) if hasattr(model, "transformer") else list(model.model.layers)

    def run(ids, zero):
        seen = {"resid": {}, "z": {}, "zeros": {}}
        def add(kind, l, x):
            seen[kind][l] = x.detach().clone()
            if not zero:
                return x
            z = torch.zeros_like(x, requires_grad=True)
            seen["zeros"][(kind, l)] = z
            return x + z
        handles = [block_pre_hook(b, lambda x, l=l: add("resid", l, x)) for l, b in enumerate(blocks)]
        handles += [p.register_forward_pre_hook(lambda m, a, l=l: (add("z", l, a[0]),) + tuple(a[1:])) for l, p in enumerate(projs)]
        logits = model(torch.tensor([ids])).logits[0, -1]
        for h in handles:
            h.remove()
        return logits[answer] - logits[wrong], seen

    with torch.no_grad():
        clean_diff, from_clean = run(clean, False)
    diff, seen = run(corrupted, True)
    diff.backward()
    scale = clean_diff.item() - diff.item()
    out = {"resid": [], "heads": []}
    for l in range(len(blocks)):
        g = seen["zeros"][("resid", l)].grad[0]
        delta = (from_clean["resid"][l] - seen["resid"][l])[0]
        out["resid"].append(((delta * g).sum(-1) / scale).tolist())
        g = seen["zeros"][("z", l)].grad[0]
        delta = (from_clean["z"][l] - seen["z"][l])[0]
        dh = delta.shape[-1] // heads
        out["heads"].append([((delta[:, h * dh:(h + 1) * dh] * g[:, h * dh:(h + 1) * dh]).sum() / scale).item() for h in range(heads)])
    return out


def proximity_shares(y, parts):
    """Each part's importance to y, max(0, |y|_1 - |y - part|_1), shared out to sum to 1."""
    norm = y.abs().sum()
    importance = [max((norm - (y - p).abs().sum()).item(), 0.0) for p in parts]
    total = sum(importance)
    return [i / total if total > 0 else 0.0 for i in importance]


def flow(model, ids):
    """Information flow (Ferrando & Voita, 2024), from the modules' own tensors: per block and
    position i, the attention sublayer's result pre[i] + attn_out[i] split into the residual
    pre[i] and, per earlier position j, sum_h attention[h, i, j] * v_h[j] W_O^h (v from the
    value projection, W_O^h the head's rows of the output projection); the MLP sublayer's result
    mid[i] + mlp_out[i] into mid[i] and mlp_out[i]; each part's share by proximity."""
    _, projs, mlps, _, heads, gpt2 = modules(model)
    blocks = list(model.transformer.h) if gpt2 else list(model.model.layers)
    attns = [b.attn for b in blocks] if gpt2 else [b.self_attn for b in blocks]
    seen = {"pre": {}, "attn": {}, "mlp": {}, "v": {}}
    keep = lambda kind, l, x: seen[kind].__setitem__(l, x[0].double())
    handles = [block_pre_hook(b, lambda x, l=l: keep("pre", l, x) or x) for l, b in enumerate(blocks)]
    handles += [a.register_forward_hook(lambda m, i, o, l=l: keep("attn", l, o[0])) for l, a in enumerate(attns)]
    handles += [m.register_forward_hook(lambda m, i, o, l=l: keep("mlp", l, o)) for l, m in enumerate(mlps)]
    d = model.config.hidden_size
    if gpt2:
        handles += [a.c_attn.register_forward_hook(lambda m, i, o, l=l: keep("v", l, o[..., 2 * d:])) for l, a in enumerate(attns)]
    else:
        handles += [a.v_proj.register_forward_hook(lambda m, i, o, l=l: keep("v", l, o)) for l, a in enumerate(attns)]
    with torch.no_grad():
        weights = model(torch.tensor([ids]), output_attentions=True).attentions
    for h in handles:
        h.remove()
    out = {"attn": [], "residual": [], "mlp": []}
    t = len(ids)
    for l, proj in enumerate(projs):
        pattern = weights[l][0].double()  # [H, T, T]
        w = proj.weight.double() if gpt2 else proj.weight.double().T  # [in, out]
        dh = w.shape[0] // heads
        v = seen["v"][l]
        kv = v.shape[-1] // dh
        v = v.reshape(t, kv, dh)
        writes = torch.stack([v[:, h // (heads // kv)] @ w[h * dh:(h + 1) * dh] for h in range(heads)])  # [H, T, D]
        pre, attn_out, mlp_out = seen["pre"][l], seen["attn"][l], seen["mlp"][l]
        bias = proj.bias.double() if proj.bias is not None else 0.0
        rows, kept, mlp_share = [], [], []
        for i in range(t):
            moved = [(pattern[:, i, j, None] * writes[:, j]).sum(0) for j in range(i + 1)]
            y = pre[i] + attn_out[i]
            assert (pre[i] + sum(moved) + bias - y).abs().max() < 1e-4
            shares = proximity_shares(y, [pre[i]] + moved)
            kept.append(shares[0])
            rows.append(shares[1:])
            mlp_share.append(proximity_shares(y + mlp_out[i], [y, mlp_out[i]])[1])
        out["attn"].append(rows)
        out["residual"].append(kept)
        out["mlp"].append(mlp_share)
    return out


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
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
            targets = [tokenizer.encode(t).ids[0] for t in TARGETS]
            fixture = {
                "made_by": f"tests/reference/make_attribution_fixtures.py, transformers {transformers.__version__}, torch {torch.__version__}, captum {captum.__version__}",
                "args": args,
                "config": fields,
                "text": PROMPT,
                "ids": ids,
                "targets": targets,
                "dla": attribution(model, ids, targets),
                "saliency": saliency(model, ids, targets),
                "flow": flow(model, ids),
                "corrupted_ids": tokenizer.encode(CORRUPTED).ids,
                "answer": tokenizer.encode(ANSWER).ids[0],
                "wrong": tokenizer.encode(WRONG).ids[0],
                "attribution_patching": attribution_patching(
                    model, ids, tokenizer.encode(CORRUPTED).ids,
                    tokenizer.encode(ANSWER).ids[0], tokenizer.encode(WRONG).ids[0]),
            }
        with open(os.path.join(out_dir, f"{name}.json"), "w") as f:
            json.dump(fixture, f, separators=(",", ":"))
            f.write("\n")
        print(f"{name}: {len(ids)} tokens")


if __name__ == "__main__":
    main()
