"""The four [model] measures of an example model, with Hugging Face `transformers`.

  python benches/model_quality.py [--tracebook BIN] MODEL_DIR [MODEL_DIR ...]
      (a venv with torch, transformers and numpy; --tracebook: also measure with tracebook)

For each model folder (config.json, model.safetensors, tokenizer.json) it prints:

1. held-out loss: the mean next-token loss (nats/token, and nats/character so that models with
   other tokenizers compare) over benches/model/heldout.txt, 50 everyday sentences written for
   this benchmark (none is in any training corpus), each read after a line break ("\\n", the
   corpus's line separator) and scored on every one of its tokens;
2. in-context copying: 20 sequences of 40 random tokens (each a space and letters, drawn with a
   fixed seed from the model's vocabulary so that the text re-tokenizes to the same ids), then
   the same 40 again; the mean loss on the second copy's tokens after its first (the first
   cannot be predicted by copying), and on the first copy's, for comparison;
3. the best head's induction score: on the same sequences, the mean attention from a token's
   second occurrence to the token after its first occurrence, for each head; the largest;
   beside it each head's previous-token score (the mean attention from each token of the
   held-out sentences to the one before it) and induction score, to find the model's heads;
4. greedy continuations: 20 tokens (greedy) after each of the 12 prompts of
   benches/model/prompts.txt; the share of distinct 4-grams among all their 4-grams (pooled
   over the prompts, so that runs that fall into one phrase count against it).

With `--tracebook target/release/tracebook` the same four are measured again from tracebook's
own runs (`tracebook trace --prompt TEXT --out FILE [--generate 20]`, read with python/'s
reader): the loss from `loss.per_token`, the induction score from `blocks.L.attn.pattern`, the
continuation from the trace's greedy `generation`.
"""

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast

HERE = Path(__file__).resolve().parent
COPIES, LENGTH, SEED, NEW_TOKENS = 20, 40, 20261128, 20


def sentences():
    return [l for l in (HERE / "model/heldout.txt").read_text().splitlines() if l.strip()]


def prompts():
    return [l for l in (HERE / "model/prompts.txt").read_text().splitlines() if l.strip()]


def word_tokens(tok):
    """Ids whose text is a space and 2+ ASCII letters, which re-tokenize alone."""
    vocab = tok.get_vocab()
    ids = []
    for piece, i in sorted(vocab.items(), key=lambda kv: kv[1]):
        text = tok.decode([i])
        if text.startswith(" ") and len(text) > 2 and text[1:].isascii() and text[1:].isalpha():
            ids.append(i)
    return ids


def random_sequences(tok):
    """COPIES lists of LENGTH ids whose decoded text encodes back to the same ids, twice."""
    rng = random.Random(SEED)
    pool = word_tokens(tok)
    found = []
    while len(found) < COPIES:
        ids = [rng.choice(pool) for _ in range(LENGTH)]
        text = tok.decode(ids + ids)
        if tok(text)["input_ids"] == ids + ids:
            found.append((text, ids))
    return found


def measure(folder):
    tok = PreTrainedTokenizerFast(tokenizer_file=str(Path(folder) / "tokenizer.json"))
    model = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager")
    model.eval()
    newline = tok("\n")["input_ids"]
    out = {"model": str(folder)}

    # 1. held-out loss
    total, tokens, chars = 0.0, 0, 0
    previous = {}
    with torch.no_grad():
        for s in sentences():
            ids = tok(s)["input_ids"]
            x = torch.tensor([newline + ids])
            run = model(x, output_attentions=True)
            for layer, pattern in enumerate(run.attentions):
                rows = torch.arange(1, x.shape[1])
                score = pattern[0][:, rows, rows - 1].mean(dim=-1)
                for head, v in enumerate(score.tolist()):
                    previous.setdefault((layer, head), []).append(v)
            logits = run.logits[0, len(newline) - 1 : -1]
            loss = torch.nn.functional.cross_entropy(logits, torch.tensor(ids), reduction="sum")
            total, tokens, chars = total + loss.item(), tokens + len(ids), chars + len(s)
    out["heldout_nats_per_token"] = total / tokens
    out["heldout_nats_per_char"] = total / chars
    out["heldout_tokens"] = tokens

    # 2-3. copying and induction
    first, second, best = [], [], {}
    with torch.no_grad():
        for _, ids in random_sequences(tok):
            x = torch.tensor([ids + ids])
            run = model(x, output_attentions=True)
            nll = torch.nn.functional.cross_entropy(run.logits[0, :-1], x[0, 1:], reduction="none")
            first.append(nll[: LENGTH - 1].mean().item())
            second.append(nll[LENGTH:].mean().item())  # predictions of tokens 41..80 but the first
            for layer, pattern in enumerate(run.attentions):
                p = pattern[0]  # [heads, T, T]
                rows = torch.arange(LENGTH + 1, 2 * LENGTH)
                cols = rows - LENGTH + 1
                score = p[:, rows, cols].mean(dim=-1)
                for head, s in enumerate(score.tolist()):
                    best.setdefault((layer, head), []).append(s)
    out["copy_loss_first"] = sum(first) / len(first)
    out["copy_loss_second"] = sum(second) / len(second)
    heads(out, previous, best)

    # 4. greedy continuations
    grams, continuations = [], []
    with torch.no_grad():
        for p in prompts():
            x = torch.tensor([tok(p)["input_ids"]])
            y = model.generate(
                x,
                max_new_tokens=NEW_TOKENS,
                min_new_tokens=NEW_TOKENS,
                do_sample=False,
                pad_token_id=model.config.eos_token_id,
            )
            new = y[0, x.shape[1]:].tolist()
            continuations.append(p + "|" + tok.decode(new))
            grams += [tuple(new[i : i + 4]) for i in range(len(new) - 3)]
    out["distinct_4grams"] = len(set(grams)) / len(grams)
    out["continuations"] = continuations
    return out


def heads(out, previous, induction):
    """The best induction head, and every head's two scores ("layer.head": [previous, induction])."""
    mean = lambda v: sum(v) / len(v)  # noqa: E731
    scores = {k: mean(v) for k, v in induction.items()}
    (layer, head), score = max(scores.items(), key=lambda kv: kv[1])
    out["induction_best"] = {"layer": layer, "head": head, "score": score}
    prev = {k: mean(v) for k, v in previous.items()}
    (layer, head), score = max(prev.items(), key=lambda kv: kv[1])
    out["previous_token_best"] = {"layer": layer, "head": head, "score": score}
    out["heads"] = {f"{l}.{h}": [round(prev[(l, h)], 3), round(scores[(l, h)], 3)]
                    for (l, h) in sorted(scores)}


def traced(tb, folder, text, out, generate=0):
    """tracebook's run of `text`, read with the repository's Python reader."""
    sys.path.insert(0, str(HERE.parent / "python"))
    import tracebook_trace

    command = [tb, "trace", "--model", str(folder), "--prompt", text, "--out", str(out),
               "--precision", "f32"]
    if generate:
        command += ["--generate", str(generate)]
    subprocess.run(command, check=True, capture_output=True)
    return tracebook_trace.load(out)


def measure_tracebook(tb, folder):
    tok = PreTrainedTokenizerFast(tokenizer_file=str(Path(folder) / "tokenizer.json"))
    out = {"model": str(folder), "by": "tracebook"}
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "t.json"
        total, tokens, chars = 0.0, 0, 0
        previous = {}
        for s in sentences():
            t = traced(tb, folder, "\n" + s, file)
            layer = 0
            while f"blocks.{layer}.attn.pattern" in t.names():
                p = t.tensor(f"blocks.{layer}.attn.pattern")
                for head in range(p.shape[0]):
                    v = sum(p[head, i, i - 1] for i in range(1, p.shape[1])) / (p.shape[1] - 1)
                    previous.setdefault((layer, head), []).append(float(v))
                layer += 1
            losses = t.tensor("loss.per_token")
            total, tokens, chars = total + float(losses.sum()), tokens + len(losses), chars + len(s)
        out["heldout_nats_per_token"] = total / tokens
        out["heldout_nats_per_char"] = total / chars
        out["heldout_tokens"] = tokens
        first, second, best = [], [], {}
        for text, ids in random_sequences(tok):
            t = traced(tb, folder, text, file)
            assert [k.id for k in t.tokens] == ids + ids, "the text re-tokenizes as in transformers"
            nll = t.tensor("loss.per_token")
            first.append(float(nll[: LENGTH - 1].mean()))
            second.append(float(nll[LENGTH:].mean()))
            layer = 0
            while f"blocks.{layer}.attn.pattern" in t.names():
                p = t.tensor(f"blocks.{layer}.attn.pattern")
                for head in range(p.shape[0]):
                    s = sum(p[head, LENGTH + j, j + 1] for j in range(1, LENGTH)) / (LENGTH - 1)
                    best.setdefault((layer, head), []).append(float(s))
                layer += 1
        out["copy_loss_first"] = sum(first) / len(first)
        out["copy_loss_second"] = sum(second) / len(second)
        heads(out, previous, best)
        grams, continuations = [], []
        for p in prompts():
            t = traced(tb, folder, p, file, generate=NEW_TOKENS)
            new = [step["id"] for step in t.meta["generation"]]
            continuations.append(p + "|" + "".join(step["text"] for step in t.meta["generation"]))
            grams += [tuple(new[i : i + 4]) for i in range(len(new) - 3)]
        out["distinct_4grams"] = len(set(grams)) / len(grams)
        out["continuations"] = continuations
    return out


def main():
    args = sys.argv[1:]
    tb = None
    if args[:1] == ["--tracebook"]:
        tb, args = args[1], args[2:]
    for folder in args:
        print(json.dumps(measure(folder), indent=1, ensure_ascii=False))
        if tb:
            print(json.dumps(measure_tracebook(tb, folder), indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
