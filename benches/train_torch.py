"""PyTorch's training speed at the shape of a `tracebook train` run, to compare tokens/s.

  python benches/train_torch.py MODEL_DIR CORPUS STEPS [THREADS]

MODEL_DIR is a tracebook checkpoint (config.json and tokenizer.json; the weights are not read:
PyTorch starts from its own random initialisation, which does not change the time a step
takes). The script tokenizes CORPUS with the run's tokenizer, then trains a `transformers`
GPT2LMHeadModel of the same config for STEPS steps of the same shape as tracebook's (batches of
16 windows of `n_positions` tokens at random positions, next-token cross-entropy, gradient norm
clipped at 1, AdamW β (0.9, 0.95), weight decay 0.1, learning rate 2e-3) and prints the tokens
per second over all the steps, as `tracebook train` counts them. benches/train_compare.sh
alternates it with `tracebook train` on the same shape.
"""

import json
import sys
import time
from pathlib import Path

import torch
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

BATCH = 16


def main():
    folder, corpus, steps = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    if len(sys.argv) > 4:
        torch.set_num_threads(int(sys.argv[4]))
    torch.manual_seed(0)
    config = GPT2Config(**json.loads((folder / "config.json").read_text()))
    tok = PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    ids = torch.tensor(tok(corpus.read_text())["input_ids"])
    context = config.n_positions
    model = GPT2LMHeadModel(config)
    model.train()
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    other = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.1}, {"params": other, "weight_decay": 0.0}],
        lr=2e-3,
        betas=(0.9, 0.95),
    )
    gen = torch.Generator().manual_seed(0)
    start = time.perf_counter()
    for _ in range(steps):
        at = torch.randint(0, len(ids) - context - 1, (BATCH,), generator=gen)
        x = torch.stack([ids[a : a + context + 1] for a in at.tolist()])
        logits = model(x[:, :-1]).logits
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1)
        )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    seconds = time.perf_counter() - start
    tokens = steps * BATCH * context
    print(f"pytorch {torch.__version__} threads {torch.get_num_threads()}: "
          f"{tokens / seconds:.0f} tokens/s ({steps} steps, {seconds:.1f} s, loss {loss.item():.3f})")


if __name__ == "__main__":
    main()
