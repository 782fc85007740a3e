"""Reference values from Hugging Face `transformers` for the encoder-decoders (marian, bart):
one fixture per variant of their configs.

For each variant below, runs `tracebook dev test-model DIR --arch KIND --set FIELD=VALUE ...`
(the same deterministic weights the Rust test writes), loads the folder with MarianMTModel or
BartForConditionalGeneration in float32 with eager attention, runs the encoder on SOURCE and
the decoder, teacher-forced, on TARGET, and records every tensor tracebook names
(generator/model/src/seq2seq: `encoder.*`, `decoder.*`, `logits`) through the model's own
outputs (attentions, hidden states, logits) and forward hooks on its modules. The fixture keeps
the variant's arguments, so `generator/model/tests/seq2seq.rs` regenerates the same folder,
checks its weights' sha256 and compares every sampled value within 1e-4; CI needs no Python.

Usage (in a venv outside the repo: pip install torch transformers safetensors):
    cargo build --release
    python tests/reference/make_seq2seq_fixtures.py target/release/tracebook tests/fixtures/seq2seq
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile

import torch
import transformers
from transformers import BartForConditionalGeneration, MarianMTModel

sys.path.insert(0, os.path.dirname(__file__))
from make_family_fixtures import heads  # noqa: E402
from make_fixtures import sample  # noqa: E402

SAMPLES = 96
# Token ids of the tiny models' vocabulary of 96 (no tokenizer: ids are what the forward reads).
SOURCE = [5, 17, 42, 8, 63, 21, 9, 77, 30, 0]
# The decoder's start token (95, also the pad token), then the target so far.
TARGET = [95, 12, 30, 7, 55, 3, 88]

# name -> (kind, config fields)
VARIANTS = {
    "marian": ("marian", {}),
    "marian_untied": ("marian", {"tie_word_embeddings": False}),
    "marian_unscaled": ("marian", {"scale_embedding": False, "activation_function": "gelu"}),
    "marian_heads": ("marian", {"encoder_attention_heads": 8, "decoder_attention_heads": 2,
                                "encoder_ffn_dim": 96, "decoder_layers": 3}),
    "bart": ("bart", {}),
    "bart_scaled": ("bart", {"scale_embedding": True, "activation_function": "relu"}),
    "bart_untied": ("bart", {"tie_word_embeddings": False}),
}


def capture(model, source, target):
    """Every tensor tracebook names, for one encoder pass and one teacher-forced decoder pass."""
    cfg = model.config
    stacks = model.model
    got, hooks = {}, []

    def out(module, name, fn=lambda y: y[0]):
        hooks.append(module.register_forward_hook(
            lambda m, args, y: got.__setitem__(name, fn(y[0] if isinstance(y, tuple) else y))))

    for stack_name, stack, n_heads in (("encoder", stacks.encoder, cfg.encoder_attention_heads),
                                       ("decoder", stacks.decoder, cfg.decoder_attention_heads)):
        scale = getattr(stack, "embed_scale", None)
        if scale is None:  # BART: the scaled embedding module multiplies itself
            out(stack.embed_tokens, f"{stack_name}.embed")
        else:
            out(stack.embed_tokens, f"{stack_name}.embed", lambda y, s=scale: y[0] * s)
        out(stack.embed_positions, f"{stack_name}.pos_embed",
            lambda y: y[0] if y.dim() == 3 else y)
        if hasattr(stack, "layernorm_embedding"):
            out(stack.layernorm_embedding, f"{stack_name}.ln_embed.normalized")
        for l, layer in enumerate(stack.layers):
            b = f"{stack_name}.blocks.{l}"
            attentions = [("attn" if stack_name == "encoder" else "self_attn", layer.self_attn)]
            if stack_name == "decoder":
                attentions.append(("cross_attn", layer.encoder_attn))
            for short, attn in attentions:
                for p in "qkv":
                    out(getattr(attn, f"{p}_proj"), f"{b}.{short}.{p}",
                        lambda y, n=n_heads: heads(y.unsqueeze(0) if y.dim() == 2 else y, n))
                out(attn.out_proj, f"{b}.{short}_out" if short != "attn" else f"{b}.attn_out")
            out(layer.self_attn_layer_norm, f"{b}.ln1.normalized")
            if stack_name == "decoder":
                out(layer.encoder_attn_layer_norm, f"{b}.ln_cross.normalized")
            out(layer.fc1, f"{b}.mlp.pre")
            out(layer.fc2, f"{b}.mlp_out")
            out(layer.final_layer_norm, f"{b}.ln2.normalized")

    try:
        result = model(
            input_ids=torch.tensor([source]),
            decoder_input_ids=torch.tensor([target]),
            output_attentions=True,
            output_hidden_states=True,
        )
    finally:
        for h in hooks:
            h.remove()
    for l, pattern in enumerate(result.encoder_attentions):
        got[f"encoder.blocks.{l}.attn.pattern"] = pattern[0]
    for l, pattern in enumerate(result.decoder_attentions):
        got[f"decoder.blocks.{l}.self_attn.pattern"] = pattern[0]
    for l, pattern in enumerate(result.cross_attentions):
        got[f"decoder.blocks.{l}.cross_attn.pattern"] = pattern[0]
    got["logits"] = result.logits[0]
    return got


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    torch.set_grad_enabled(False)
    for name, (kind, fields) in VARIANTS.items():
        with tempfile.TemporaryDirectory() as model_dir:
            command = [binary, "dev", "test-model", model_dir, "--arch", kind]
            for field, value in fields.items():
                command += ["--set", f"{field}={json.dumps(value)}"]
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            cls = MarianMTModel if kind == "marian" else BartForConditionalGeneration
            model = cls.from_pretrained(model_dir, attn_implementation="eager",
                                        dtype=torch.float32).eval()
            got = capture(model, SOURCE, TARGET)
            with open(os.path.join(model_dir, "model.safetensors"), "rb") as f:
                sha = hashlib.sha256(f.read()).hexdigest()
        fixture = {
            "made_by": f"tests/reference/make_seq2seq_fixtures.py, transformers {transformers.__version__}, torch {torch.__version__}",
            "arch": kind,
            "config": fields,
            "weights_sha256": sha,
            "samples": SAMPLES,
            "source": SOURCE,
            "target": TARGET,
            "tensors": {
                n: {"shape": list(t.shape), "values": sample(t, SAMPLES)}
                for n, t in sorted(got.items())
            },
        }
        with open(os.path.join(out_dir, f"{name}.json"), "w") as f:
            json.dump(fixture, f, separators=(",", ":"))
            f.write("\n")
        print(f"{name}: {len(fixture['tensors'])} tensors")


if __name__ == "__main__":
    main()
