"""Reference values from Hugging Face `transformers` for every config field and storage format
tracebook computes exactly: one fixture per variant of the tiny test model.

For each variant below, runs `tracebook dev test-model DIR --set FIELD=VALUE ... --dtype D
--shards N` (the same deterministic weights the Rust test writes), loads the folder with
GPT2LMHeadModel in float32 (eager attention) and records every tensor of the trace table with
make_fixtures.capture. The fixture keeps the variant's arguments, so the Rust test
`generator/model/tests/variants.rs` regenerates the same folder, checks its weights' sha256 and
compares every sampled value within 1e-4; CI needs no Python.

Usage (in a venv outside the repo: pip install torch transformers tokenizers safetensors):
    cargo build --release
    python tests/reference/make_variant_fixtures.py target/release/tracebook tests/fixtures/variants
"""

import json
import os
import subprocess
import sys
import tempfile

import torch
import transformers
from tokenizers import Tokenizer
from transformers import GPT2LMHeadModel

sys.path.insert(0, os.path.dirname(__file__))
from make_fixtures import capture, sample  # noqa: E402

PROMPT = "The robots will bring us tea, and then"
SAMPLES = 96

# name -> (config fields, stored dtype, shards)
VARIANTS = {
    "gelu": ({"activation_function": "gelu"}, "f32", 1),
    "gelu_python": ({"activation_function": "gelu_python"}, "f32", 1),
    "gelu_pytorch_tanh": ({"activation_function": "gelu_pytorch_tanh"}, "f32", 1),
    "gelu_fast": ({"activation_function": "gelu_fast"}, "f32", 1),
    "gelu_accurate": ({"activation_function": "gelu_accurate"}, "f32", 1),
    "gelu_10": ({"activation_function": "gelu_10"}, "f32", 1),
    "quick_gelu": ({"activation_function": "quick_gelu"}, "f32", 1),
    "relu": ({"activation_function": "relu"}, "f32", 1),
    "relu2": ({"activation_function": "relu2"}, "f32", 1),
    "relu6": ({"activation_function": "relu6"}, "f32", 1),
    "leaky_relu": ({"activation_function": "leaky_relu"}, "f32", 1),
    "silu": ({"activation_function": "silu"}, "f32", 1),
    "swish": ({"activation_function": "swish"}, "f32", 1),
    "sigmoid": ({"activation_function": "sigmoid"}, "f32", 1),
    "tanh": ({"activation_function": "tanh"}, "f32", 1),
    "mish": ({"activation_function": "mish"}, "f32", 1),
    "laplace": ({"activation_function": "laplace"}, "f32", 1),
    "linear": ({"activation_function": "linear"}, "f32", 1),
    "gelu_python_tanh": ({"activation_function": "gelu_python_tanh"}, "f32", 1),
    "hardswish": ({"activation_function": "hardswish"}, "f32", 1),
    "sqrtsoftplus": ({"activation_function": "sqrtsoftplus"}, "f32", 1),
    "unscaled_attention": ({"scale_attn_weights": False}, "f32", 1),
    "inverse_layer_scaling": ({"scale_attn_by_inverse_layer_idx": True}, "f32", 1),
    "reorder_and_upcast": ({"reorder_and_upcast_attn": True, "scale_attn_by_inverse_layer_idx": True}, "f32", 1),
    "n_inner_96": ({"n_inner": 96}, "f32", 1),
    "epsilon_1e-2": ({"layer_norm_epsilon": 0.01}, "f32", 1),
    "untied_lm_head": ({"tie_word_embeddings": False}, "f32", 1),
    "f16": ({}, "f16", 1),
    "bf16": ({}, "bf16", 1),
    "sharded": ({}, "f32", 3),
}


def write_fixtures(binary, out_dir, variants, script, load, capture, prompt, only=()):
    """One fixture per variant into out_dir: each variant is (test-model arguments beyond the
    folder, the fixture keys that say which model it is, config fields, dtype, shards); load
    reads the folder as transformers does and capture records its tensors for the ids."""
    os.makedirs(out_dir, exist_ok=True)
    torch.set_grad_enabled(False)
    for name, (args, which, fields, dtype, shards) in variants.items():
        if only and name not in only:
            continue
        with tempfile.TemporaryDirectory() as model_dir:
            command = [binary, "dev", "test-model", model_dir, *args,
                       "--dtype", dtype, "--shards", str(shards)]
            for field, value in fields.items():
                command += ["--set", f"{field}={json.dumps(value)}"]
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            model = load(model_dir)
            tokenizer = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
            ids = tokenizer.encode(prompt).ids
            got = capture(model, ids)
            weights = sorted(f for f in os.listdir(model_dir) if f.endswith(".safetensors"))
            fixture = {
                "made_by": f"tests/reference/{script}, transformers {transformers.__version__}, torch {torch.__version__}",
                **which,
                "config": fields,
                "dtype": dtype,
                "shards": shards,
                "weight_files": weights,
                "samples": SAMPLES,
                "text": prompt,
                "ids": ids,
                "tensors": {
                    n: {"shape": list(t.shape), "values": sample(t, SAMPLES)}
                    for n, t in sorted(got.items())
                },
            }
        with open(os.path.join(out_dir, f"{name}.json"), "w") as f:
            json.dump(fixture, f, separators=(",", ":"))
            f.write("\n")
        print(f"{name}: {len(fixture['tensors'])} tensors")


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    variants = {name: ([], {}, *rest) for name, rest in VARIANTS.items()}
    write_fixtures(
        binary, out_dir, variants, "make_variant_fixtures.py",
        lambda d: GPT2LMHeadModel.from_pretrained(d, attn_implementation="eager", dtype=torch.float32).eval(),
        capture, PROMPT)


if __name__ == "__main__":
    main()
