"""Pilot of in-context copying in PyTorch, for comparison with `tracebook train` (docs/BENCHMARKS.md,
[model], fourth session): does a 2-layer model of the pilots' shape (4 heads, width 128, context 64,
batches of 16, AdamW lr 1e-3, weight decay 0.1, warmup 100, cosine to 1e-4, clip 1.0) learn to copy
random tokens within 1,500 steps?

    python pilot_copying.py gpt2|llama twice|many [VOCAB]

`twice`: a window says a stretch of 8-32 random tokens twice, then more random tokens (copy loss on
the second saying); `many`: a stretch of 4-16 random tokens said over and over until the window is
full (copy loss on every token after the first saying). Prints the copy loss every 100 steps
against a uniform guess. Needs torch and transformers (a venv outside the repo); CI never runs it.
"""
import math, sys, time
import torch
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

arch, kind = sys.argv[1], sys.argv[2]
V = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
T, B, STEPS = 64, 16, 1500
torch.manual_seed(0)
torch.set_num_threads(1)
if arch == "gpt2":
    model = GPT2LMHeadModel(GPT2Config(vocab_size=V, n_positions=T, n_embd=128, n_layer=2, n_head=4,
                                       resid_pdrop=0, embd_pdrop=0, attn_pdrop=0))
else:
    model = LlamaForCausalLM(LlamaConfig(vocab_size=V, max_position_embeddings=T, hidden_size=128,
                                         intermediate_size=344, num_hidden_layers=2, num_attention_heads=4,
                                         num_key_value_heads=4, tie_word_embeddings=True))
decay = [p for p in model.parameters() if p.dim() >= 2]
rest = [p for p in model.parameters() if p.dim() < 2]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                        lr=1e-3, betas=(0.9, 0.95))
g = torch.Generator().manual_seed(1)


def window():
    """A window of T + 1 tokens and the mask of the positions whose next token is a copy."""
    m = torch.zeros(T, dtype=torch.bool)
    if kind == "twice":
        n = 8 + int(torch.randint(0, 25, (1,), generator=g))
        s = torch.randint(0, V - 1, (n,), generator=g)
        w = torch.cat([s, s, torch.randint(0, V - 1, (T + 1 - 2 * n,), generator=g)])
        m[n:2 * n - 1] = True
    else:
        n = 4 + int(torch.randint(0, 13, (1,), generator=g))
        s = torch.randint(0, V - 1, (n,), generator=g)
        w = s.repeat(T // n + 2)[: T + 1]
        m[n:] = True
    return w, m


def batch():
    pairs = [window() for _ in range(B)]
    return torch.stack([p[0] for p in pairs]), torch.stack([p[1] for p in pairs])


t0 = time.time()
for step in range(1, STEPS + 1):
    lr = 1e-3 * step / 100 if step <= 100 else 1e-4 + 0.45e-3 * (1 + math.cos(math.pi * (step - 100) / (STEPS - 100)))
    for group in opt.param_groups:
        group["lr"] = lr
    x, _ = batch()
    logits = model(x[:, :-1]).logits
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, V), x[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 100 == 0:
        with torch.no_grad():
            x, m = batch()
            lp = torch.log_softmax(model(x[:, :-1]).logits, -1).gather(-1, x[:, 1:, None])[..., 0]
            print(f"step {step} ({step * B * T} tokens): loss {loss.item():.3f}, copy {-lp[m].mean().item():.3f} "
                  f"(uniform {math.log(V - 1):.3f}), {time.time() - t0:.0f} s", flush=True)
