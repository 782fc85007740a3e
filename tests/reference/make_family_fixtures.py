"""Reference values from Hugging Face `transformers` for the Llama family (llama, mistral, qwen2,
qwen3, gemma): one fixture per family and per variant of its config.

For each variant below, runs `tracebook dev test-model DIR --arch FAMILY --set FIELD=VALUE ...
--dtype D --shards N` (the same deterministic weights the Rust test writes), loads the folder
with AutoModelForCausalLM in float32 with eager attention, and records every tensor of the trace
table (docs/trace-format.md) through hooks on the model's own modules; the rotation uses the
model's own `apply_rotary_pos_emb` and `position_embeddings`. The fixture keeps the variant's
arguments, so `generator/model/tests/families.rs` regenerates the same folder, checks its
weights' sha256 and compares every sampled value within 1e-4; CI needs no Python.

Usage (in a venv outside the repo: pip install torch transformers tokenizers safetensors):
    cargo build --release
    python tests/reference/make_family_fixtures.py target/release/tracebook tests/fixtures/families
"""

import importlib
import os
import sys

import torch
from transformers import AutoModelForCausalLM

sys.path.insert(0, os.path.dirname(__file__))
from make_variant_fixtures import SAMPLES, write_fixtures  # noqa: E402

# Long enough (13 tokens) that a sliding window of 4 hides most of each row.
PROMPT = "The robots will bring us tea, and then they will sing."

LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
          "high_freq_factor": 4.0, "original_max_position_embeddings": 64}

# name -> (architecture, config fields, stored dtype, shards)
VARIANTS = {
    "llama": ("llama", {}, "f32", 1),
    "llama_tied": ("llama", {"tie_word_embeddings": True}, "f32", 1),
    "llama_mha": ("llama", {"num_key_value_heads": 4}, "f32", 1),
    "llama_mqa": ("llama", {"num_key_value_heads": 1}, "f32", 1),
    "llama_head_dim_24": ("llama", {"head_dim": 24}, "f32", 1),
    "llama_biases": ("llama", {"attention_bias": True, "mlp_bias": True}, "f32", 1),
    "llama_theta": ("llama", {"rope_theta": 500000.0}, "f32", 1),
    "llama3_rope_scaling": ("llama", {"rope_scaling": LLAMA3}, "f32", 1),
    "llama3_rope_parameters": ("llama", {"rope_parameters": dict(LLAMA3, rope_theta=500000.0)}, "f32", 1),
    "llama_gelu": ("llama", {"hidden_act": "gelu_pytorch_tanh"}, "f32", 1),
    "llama_eps": ("llama", {"rms_norm_eps": 0.01}, "f32", 1),
    "llama_bf16": ("llama", {}, "bf16", 1),
    "llama_sharded": ("llama", {}, "f32", 3),
    "mistral": ("mistral", {"sliding_window": 4}, "f32", 1),
    "mistral_no_window": ("mistral", {"sliding_window": None}, "f32", 1),
    "qwen2": ("qwen2", {}, "f32", 1),
    "qwen2_sliding": ("qwen2", {"use_sliding_window": True, "sliding_window": 4,
                                "max_window_layers": 1}, "f32", 1),
    "qwen3": ("qwen3", {}, "f32", 1),
    "qwen3_tied": ("qwen3", {"tie_word_embeddings": True}, "f32", 1),
    "gemma": ("gemma", {}, "f32", 1),
    "gemma_mqa": ("gemma", {"num_key_value_heads": 1}, "f32", 1),
}


def heads(x, n):
    """[1, T, n * dh] -> [n, T, dh]"""
    _, t, w = x.shape
    return x[0].reshape(t, n, w // n).transpose(0, 1)


def capture(model, ids):
    """Every tensor of the trace table for one forward pass over ids, by trace name."""
    cfg = model.config
    modeling = importlib.import_module(type(model).__module__)
    h, kv = cfg.num_attention_heads, cfg.num_key_value_heads
    got, hooks = {}, []

    def fwd(module, fn):
        hooks.append(module.register_forward_hook(lambda m, args, out: fn(args, out)))

    def pre(module, fn):
        hooks.append(module.register_forward_pre_hook(
            lambda m, args, kwargs: fn(args[0] if args else kwargs["hidden_states"], kwargs),
            with_kwargs=True))

    def first(out):
        return out[0] if isinstance(out, tuple) else out

    def rmsnorm(module, name):
        eps = getattr(module, "variance_epsilon", getattr(module, "eps", None))
        pre(module, lambda x, kw: got.__setitem__(
            f"{name}.rms", torch.sqrt(x[0].pow(2).mean(-1) + eps)))
        fwd(module, lambda args, out: got.__setitem__(f"{name}.normalized", out[0]))

    m = model.model
    fwd(m.embed_tokens, lambda args, out: got.__setitem__("embed", out[0]))
    for l, layer in enumerate(m.layers):
        b = f"blocks.{l}"
        attn = layer.self_attn
        pre(layer, lambda x, kw, b=b: got.__setitem__(f"{b}.resid_pre", x[0]))
        fwd(layer, lambda args, out, b=b: got.__setitem__(f"{b}.resid_post", first(out)[0]))
        rmsnorm(layer.input_layernorm, f"{b}.ln1")
        rmsnorm(layer.post_attention_layernorm, f"{b}.ln2")
        fwd(attn.q_proj, lambda a, out, b=b: got.__setitem__(f"{b}.attn.q_unrotated", heads(out, h)))
        fwd(attn.k_proj, lambda a, out, b=b: got.__setitem__(f"{b}.attn.k_unrotated", heads(out, kv)))
        fwd(attn.v_proj, lambda a, out, b=b: got.__setitem__(f"{b}.attn.v", heads(out, kv)))
        if hasattr(attn, "q_norm"):
            # [1, T, n, dh] -> [n, T, dh]
            fwd(attn.q_norm, lambda a, out, b=b: got.__setitem__(
                f"{b}.attn.q_unrotated", out[0].transpose(0, 1)))
            fwd(attn.k_norm, lambda a, out, b=b: got.__setitem__(
                f"{b}.attn.k_unrotated", out[0].transpose(0, 1)))
        pre(attn, lambda x, kw, b=b: got.__setitem__(f"{b}.rope", kw["position_embeddings"]))
        pre(attn.o_proj, lambda x, kw, b=b: got.__setitem__(f"{b}.attn.z", heads(x, h)))
        fwd(attn, lambda args, out, b=b: got.__setitem__(f"{b}.attn_out", first(out)[0]))
        pre(layer.post_attention_layernorm, lambda x, kw, b=b: got.__setitem__(f"{b}.resid_mid", x[0]))
        mlp = layer.mlp
        fwd(mlp.gate_proj, lambda a, out, b=b: got.__setitem__(f"{b}.mlp.gate", out[0]))
        fwd(mlp.up_proj, lambda a, out, b=b: got.__setitem__(f"{b}.mlp.up", out[0]))
        fwd(mlp.act_fn, lambda a, out, b=b: got.__setitem__(f"{b}.mlp.act", out[0]))
        pre(mlp.down_proj, lambda x, kw, b=b: got.__setitem__(f"{b}.mlp.post", x[0]))
        fwd(mlp, lambda args, out, b=b: got.__setitem__(f"{b}.mlp_out", out[0]))
    fwd(m.norm, lambda args, out: got.__setitem__("ln_final.normalized", out[0]))

    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True)
    for hook in hooks:
        hook.remove()

    for l, pattern in enumerate(out.attentions):
        b = f"blocks.{l}"
        cos, sin = got.pop(f"{b}.rope")
        q, k = modeling.apply_rotary_pos_emb(
            got[f"{b}.attn.q_unrotated"][None], got[f"{b}.attn.k_unrotated"][None], cos, sin)
        got[f"{b}.attn.q"], got[f"{b}.attn.k"] = q[0], k[0]
        # The scores as eager attention computes them, before the mask: each query head
        # against the key/value head it shares.
        keys = modeling.repeat_kv(k, h // kv)[0]
        got[f"{b}.attn.scores"] = q[0] @ keys.transpose(-1, -2) * model.model.layers[l].self_attn.scaling
        got[f"{b}.attn.pattern"] = pattern[0]
    logits = out.logits[0]
    got["logits.last"] = logits[-1]
    got["logits.topk_ids"] = torch.topk(logits, 20, dim=-1).indices.float()
    return got


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    variants = {
        name: (["--arch", arch], {"arch": arch}, fields, dtype, shards)
        for name, (arch, fields, dtype, shards) in VARIANTS.items()
    }
    write_fixtures(
        binary, out_dir, variants, "make_family_fixtures.py",
        lambda d: AutoModelForCausalLM.from_pretrained(d, attn_implementation="eager", dtype=torch.float32).eval(),
        capture, PROMPT, only=set(sys.argv[3:]))


if __name__ == "__main__":
    main()
