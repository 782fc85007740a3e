"""A translation model's greedy translations and logits as Hugging Face `transformers` computes
them, to prove that a model `tracebook train --pairs` wrote loads in Python exactly as in
tracebook.

Loads MODEL_DIR with MarianMTModel.from_pretrained (eager attention, f32) and its
tokenizer.json; for each source text (its ids, then `</s>`) writes the greedy translation of
`generate` (num_beams=1, no sampling, at most 40 new tokens), and, for the decoder's
teacher-forced pass over it, the 10 likeliest ids and their logits at every position and
`--samples` logits of the last position at indices floor(i * (n - 1) / (m - 1)). The Rust test
`generator/model/tests/seq2seq.rs` translates the same texts with tracebook and compares.

Usage (in a venv with torch, transformers, tokenizers, safetensors):
    python tests/reference/make_translation_fixture.py models/tracebook-tiny-en-fr OUT.json "text" ...
"""

import argparse
import hashlib
import json
import os
import sys

import torch
import transformers
from tokenizers import Tokenizer
from transformers import MarianMTModel

sys.path.insert(0, os.path.dirname(__file__))
from make_fixtures import sample  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model_dir")
    parser.add_argument("out")
    parser.add_argument("texts", nargs="+")
    parser.add_argument("--samples", type=int, default=256)
    args = parser.parse_args()

    torch.set_grad_enabled(False)
    model = MarianMTModel.from_pretrained(
        args.model_dir, attn_implementation="eager", dtype=torch.float32).eval()
    tokenizer = Tokenizer.from_file(f"{args.model_dir}/tokenizer.json")
    eos = model.config.eos_token_id
    texts = []
    for text in args.texts:
        source = tokenizer.encode(text).ids + [eos]
        out = model.generate(torch.tensor([source]), num_beams=1, do_sample=False,
                             max_new_tokens=40)[0].tolist()
        written = out[1:]
        logits = model(input_ids=torch.tensor([source]),
                       decoder_input_ids=torch.tensor([out[:-1] if written[-1] == eos else out])).logits[0]
        top = torch.topk(logits, 10, dim=-1)
        texts.append({
            "text": text,
            "source": source,
            "written": written,
            "translation": tokenizer.decode(written, skip_special_tokens=True),
            "top_ids": top.indices.tolist(),
            "top_logits": top.values.tolist(),
            "last_logits": sample(logits[-1], args.samples),
        })
    with open(f"{args.model_dir}/model.safetensors", "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    fixture = {
        "made_by": f"tests/reference/make_translation_fixture.py, transformers {transformers.__version__}, torch {torch.__version__}",
        "weights_sha256": sha,
        "samples": args.samples,
        "texts": texts,
    }
    with open(args.out, "w") as f:
        json.dump(fixture, f, separators=(",", ":"))
        f.write("\n")
    for t in texts:
        print(f"{t['text']!r} -> {t['translation']!r}")


if __name__ == "__main__":
    main()
