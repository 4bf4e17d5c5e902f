#!/usr/bin/env python3
"""Time PyTorch training steps of a models/ transformer on one GPU: the PyTorch side of
bench/gpu_bench.py, run by it in a process of its own per measurement.

    torch_train.py --family gpt2 --config 124m --batch B --seq T --steps N --warmup W
                   --data TOKENS.bin [--mode eager|compile] [--attention model|sdpa]
                   [--seed S] [--lr X] [--device cuda|cpu] --out RESULT.json

The model is models/<family>.py at the config and seed given (the weights hetrun's
package gets from bench/gpu/write_weights.py with the same seed), parameters in float32
(the master weights), the forward and the loss under torch.autocast(bfloat16), AdamW
(lr X, betas 0.9/0.999, eps 1e-8, no weight decay: `hetc compile`'s defaults) with
fused=True where the build has it, else foreach. Step s reads the batch of the hetc data
contract: sample j starts at token ((s*B + j)*T) mod (N - T - 1). Every step ends with
loss.item(), which waits for the GPU, as hetrun's steps end by reading the loss; the
time of a step is taken around it after torch.cuda.synchronize(). --mode compile wraps
the model in torch.compile (default options), so the first step includes compiling.
--attention sdpa swaps the model's explicit masked-softmax attention for
F.scaled_dot_product_attention(is_causal=True) (same function, fused kernels).

Exit codes: 0 measured; 3 CUDA unavailable; 4 torch.compile unavailable; 1 other
errors. The result JSON is written in every case, with `status` and `message`.
--device cpu runs on the CPU in float32 (no autocast) to check the script where there
is no GPU; its times mean nothing.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "models"))

EXIT_NO_CUDA = 3
EXIT_NO_COMPILE = 4


def write(path, result):
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


def use_sdpa(module):
    """Replace CausalSelfAttention.forward of models/gpt2.py by SDPA (same math)."""
    import torch.nn.functional as F

    def forward(self, x):
        B, T, C = x.size()
        hd = C // self.n_head
        q, k, v = self.c_attn(x).split(self.d_model, dim=2)
        q = q.view(B, T, self.n_head, hd).transpose(1, 2)
        k = k.view(B, T, self.n_head, hd).transpose(1, 2)
        v = v.view(B, T, self.n_head, hd).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

    module.CausalSelfAttention.forward = forward


def make_optimizer(torch, params, lr, cuda):
    kwargs = dict(lr=lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)
    if cuda:
        try:
            return torch.optim.AdamW(params, fused=True, **kwargs), "fused"
        except (TypeError, RuntimeError):
            pass
    try:
        return torch.optim.AdamW(params, foreach=True, **kwargs), "foreach"
    except TypeError:
        return torch.optim.AdamW(params, **kwargs), "default"


def batch_indices(torch, n_tokens, steps, batch, seq, device):
    """[steps, B, T + 1] token positions of each step's samples (inputs and labels)."""
    period = n_tokens - seq - 1
    starts = [[((s * batch + j) * seq) % period for j in range(batch)] for s in range(steps)]
    starts = torch.tensor(starts, dtype=torch.long, device=device)
    return starts[:, :, None] + torch.arange(seq + 1, device=device)[None, None, :]


def run(args, result):
    import numpy as np
    import torch
    import torch.nn.functional as F

    result["torch"] = torch.__version__
    cuda = args.device == "cuda"
    if cuda and not torch.cuda.is_available():
        result.update(status="skipped", message=f"CUDA is unavailable to torch "
                      f"{torch.__version__} (torch.cuda.is_available() is False)")
        return EXIT_NO_CUDA
    if args.mode == "compile" and not hasattr(torch, "compile"):
        result.update(status="skipped", message=f"torch {torch.__version__} has no "
                      f"torch.compile (needs torch >= 2.0)")
        return EXIT_NO_COMPILE
    device = torch.device(args.device)
    if cuda:
        result["gpu"] = torch.cuda.get_device_name(0)

    module = __import__(args.family)
    if args.attention == "sdpa":
        if args.family != "gpt2":
            raise SystemExit("--attention sdpa applies to gpt2 only")
        use_sdpa(module)
    model = module.build(args.config, seed=args.seed).to(device).train()
    vocab = model.cfg.vocab_size
    params = list(model.parameters())  # a tied tensor once
    result["parameters"] = sum(p.numel() for p in params)
    opt, kind = make_optimizer(torch, params, args.lr, cuda)
    result["adamw"] = kind

    tokens = np.fromfile(args.data, dtype="<u2").astype(np.int64)
    if len(tokens) <= args.seq + 1:
        raise SystemExit(f"{args.data}: {len(tokens)} tokens, need more than T + 1")
    if int(tokens.max()) >= vocab:
        raise SystemExit(f"{args.data}: token {int(tokens.max())} >= vocabulary {vocab}")
    tokens = torch.from_numpy(tokens).to(device)
    index = batch_indices(torch, len(tokens), args.steps, args.batch, args.seq, device)

    forward = torch.compile(model) if args.mode == "compile" else model
    autocast = (torch.autocast(device_type="cuda", dtype=torch.bfloat16) if cuda
                else torch.autocast(device_type="cpu", enabled=False))

    def step(s):
        rows = tokens[index[s]]
        x, y = rows[:, :-1], rows[:, 1:]
        with autocast:
            logits = forward(x)
            loss = F.cross_entropy(logits.reshape(-1, vocab).float(), y.reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    step_ms, losses = [], []
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    for s in range(args.steps):
        sync()
        t0 = time.perf_counter()
        value = float(step(s).item())
        step_ms.append((time.perf_counter() - t0) * 1e3)
        losses.append(value if math.isfinite(value) else None)
    timed = step_ms[args.warmup:]
    median = statistics.median(timed)
    result.update(
        status="ok", message="", step_ms=median, step_ms_mean=statistics.fmean(timed),
        tokens_per_s=args.batch * args.seq / (median / 1e3), first_step_ms=step_ms[0],
        losses=losses, all_step_ms=step_ms,
        peak_memory_bytes=torch.cuda.max_memory_allocated() if cuda else None)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", default="gpt2", choices=["gpt2", "llama", "bert"])
    ap.add_argument("--config", required=True)
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--seq", type=int, required=True)
    ap.add_argument("--steps", type=int, required=True, help="all steps, warm-up included")
    ap.add_argument("--warmup", type=int, default=5, help="leading steps left out of the median")
    ap.add_argument("--data", required=True, help="uint16 token file (models/make_tokens.py)")
    ap.add_argument("--mode", choices=["eager", "compile"], default="eager")
    ap.add_argument("--attention", choices=["model", "sdpa"], default="model")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--out", required=True, help="result JSON")
    args = ap.parse_args(argv)
    if args.steps <= args.warmup:
        ap.error("--steps must exceed --warmup")
    result = {"mode": args.mode, "attention": args.attention, "config": args.config,
              "batch": args.batch, "seq": args.seq, "steps": args.steps,
              "warmup": args.warmup, "device": args.device, "status": "failed",
              "message": ""}
    try:
        code = run(args, result)
    except SystemExit as e:
        result.update(status="failed", message=str(e))
        code = 1
    except Exception as e:  # an OOM or a compile failure is a result too
        result.update(status="failed", message=f"{type(e).__name__}: {e}".strip()[:2000])
        traceback.print_exc()
        code = 1
    write(args.out, result)
    if result["status"] != "ok":
        print(f"torch_train.py: {result['status']}: {result['message']}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
