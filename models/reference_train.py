#!/usr/bin/python3
"""PyTorch reference training of an exported hetc model: what `hetc compile` +
`hetrun` must reproduce (see /work/shared/DESIGN.md, "Contracts").

    reference_train.py MODEL.onnx --data TOKENS.bin --global-batch B --seq T --steps K
        --optimizer sgd|adamw --lr X [--weight-decay W] [--beta1 B1 --beta2 B2 --eps E]
        [--clip-norm C] [--lr-schedule constant|cosine|linear --warmup-steps W
        --decay-steps D --min-lr X] [--data-dtype uint16|uint32] [--threads N] --out DIR
        [--step-times FILE.json]

    reference_train.py --print-batches --data TOKENS.bin --global-batch B --seq T --steps K
        # prints each step's sample starts and tokens, no model, no training

The PyTorch module of the file's family and config (metadata `hetc.family`,
`hetc.config`, `hetc.gelu`) is built and every parameter is loaded from the ONNX
initializer of the same name (a tied alias, metadata `hetc.tied`, is the same tensor).
A models/hf_export.py export (metadata `hetc.corpus_arch`) is its corpus model (run
this with the Python of scripts/setup-python.sh), loaded from the initializers hetc
trains: its buffers (metadata `hetc.buffers`) stay the model's own.
Each step reads the batch of the contract: sample j of step s starts at token
((s*B + j)*T) mod (N - T - 1), input = T tokens from there, labels = the next T; the
loss is the mean token cross-entropy over all B*T tokens; then
torch.nn.utils.clip_grad_norm_ (with --clip-norm > 0) and torch.optim.SGD (no momentum,
coupled weight decay g += W*p) or torch.optim.AdamW (decoupled decay), the weight decay
applied only to parameters of rank >= 2. The learning rate of step i (from 0) is nanoGPT's
get_lr(i), applied by torch.optim.lr_scheduler.LambdaLR: linear warmup over W steps, then
constant or a cosine or linear decay to --min-lr at step D, constant after.

Writes into DIR:
  losses.json          the K per-step losses, the float32 values (before each step's update)
  lrs.json             the K per-step learning rates the optimizer applied
  params.safetensors   every parameter after K steps, by ONNX initializer name, F32,
                       ONNX layout, in initializer order (a tied alias once, as its initializer)
  optimizer.safetensors  AdamW only: `<name>.adam_m`, `<name>.adam_v` (F32) and
                       `optimizer.step` (I64 scalar) -- the global names of passes/Optimizer.cpp
  run.json             the settings, for the record

--step-times FILE.json also writes the K step times in milliseconds (wall time of each
step: batch, forward, loss, backward, clipping, optimizer step), for bench/.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import safetensors_io  # noqa: E402

DATA_DTYPES = {"uint16": "<u2", "uint32": "<u4"}


# --------------------------------------------------------------------------- data

def load_tokens(path, dtype):
    itemsize = np.dtype(DATA_DTYPES[dtype]).itemsize
    size = os.path.getsize(path)
    if size % itemsize:
        raise SystemExit(f"{path}: {size} bytes is not a whole number of {dtype} tokens")
    return np.fromfile(path, dtype=DATA_DTYPES[dtype]).astype(np.int64)


def sample_starts(step, batch, seq, n_tokens):
    """Start token of each sample of `step` (0-based): ((s*B + j)*T) mod (N - T - 1)."""
    period = n_tokens - seq - 1
    return [((step * batch + j) * seq) % period for j in range(batch)]


def get_batch(tokens, step, batch, seq):
    """(input, labels), int64 [B, T] each."""
    starts = sample_starts(step, batch, seq, len(tokens))
    x = np.stack([tokens[s:s + seq] for s in starts])
    y = np.stack([tokens[s + 1:s + 1 + seq] for s in starts])
    return x, y


def print_batches(tokens, args):
    print(f"tokens {len(tokens)} batch {args.global_batch} seq {args.seq} "
          f"period {len(tokens) - args.seq - 1}")
    for s in range(args.steps):
        x, y = get_batch(tokens, s, args.global_batch, args.seq)
        for j, start in enumerate(sample_starts(s, args.global_batch, args.seq, len(tokens))):
            print(f"step {s} sample {j} start {start} input {x[j, 0]}..{x[j, -1]} "
                  f"labels {y[j, 0]}..{y[j, -1]}")


# --------------------------------------------------------------------------- model

def read_onnx(path):
    import onnx
    from onnx import numpy_helper
    proto = onnx.load(path)  # external data is read from next to the model
    meta = {p.key: p.value for p in proto.metadata_props}
    inits = {}
    for init in proto.graph.initializer:
        if init.name in inits:
            raise SystemExit(f"{path}: initializer {init.name!r} appears twice")
        inits[init.name] = numpy_helper.to_array(init)
    return meta, inits


def parse_tied(text):
    pairs = []
    for item in filter(None, (text or "").split(",")):
        alias, sep, target = item.partition("=")
        if not sep or not alias or not target:
            raise SystemExit(f"bad hetc.tied entry {item!r} (expected alias=initializer)")
        pairs.append((alias, target))
    return pairs


def trainable_initializers(meta, inits):
    """The initializers hetc trains without flags: float tensors of more than one
    element, neither listed as buffers (metadata hetc.buffers) nor non-finite."""
    buffers = set(json.loads(meta.get("hetc.buffers", "[]")))
    return [n for n, v in inits.items()
            if v.dtype.kind == "f" and v.size > 1 and n not in buffers
            and np.isfinite(v).all()]


def build_hf_model(path, meta, inits):
    """A models/hf_export.py export: the same corpus model, weights from the
    file's trainable initializers (its buffers are the model's own)."""
    import torch
    import hf_export
    arch = meta["hetc.corpus_arch"]
    model = hf_export.build_model(arch, seed=int(meta.get("hetc.seed", "0")))
    # An exporter names a tied tensor by any of its aliases: match by name in the
    # state_dict, which lists every alias, then by tensor.
    state = model.state_dict(keep_vars=True)
    names = trainable_initializers(meta, inits)
    unknown = [n for n in names if n not in state]
    params = {n: state[n] for n in names if n in state}
    missing = [n for n, p in model.named_parameters()
               if not any(p is q for q in params.values())]
    if unknown or missing:
        raise SystemExit(f"{path}: trainable initializers and {arch} parameters differ: "
                         f"initializers without a parameter {unknown}, "
                         f"parameters without an initializer {missing}")
    with torch.no_grad():
        for name, p in params.items():
            p.copy_(torch.from_numpy(inits[name].copy()))
    return arch, "hf", hf_export.LogitsOnly(model), hf_export.vocab_size(model), params


def build_model(path, meta, inits, seq):
    import torch
    if "hetc.corpus_arch" in meta:
        return build_hf_model(path, meta, inits)
    for key in ("hetc.family", "hetc.config"):
        if key not in meta:
            raise SystemExit(f"{path}: no metadata {key}: not a models/export.py export "
                             f"(exported with --raw?)")
    family, config = meta["hetc.family"], meta["hetc.config"]
    if family not in ("gpt2", "llama", "bert"):
        raise SystemExit(f"{path}: unknown hetc.family {family!r}")
    module = __import__(family)
    if config not in module.CONFIGS:
        raise SystemExit(f"{path}: unknown {family} config {config!r}")
    overrides = {}
    if "hetc.gelu" in meta:
        overrides["gelu"] = meta["hetc.gelu"]
    model = module.build(config, seed=int(meta.get("hetc.seed", "0")), **overrides)
    cfg = model.cfg
    if seq > cfg.max_pos:
        raise SystemExit(f"--seq {seq} exceeds the model's max_pos {cfg.max_pos}")
    if meta.get("hetc.dynamic_seq", "0") != "1" and "hetc.export_seq" in meta \
            and int(meta["hetc.export_seq"]) != seq:
        raise SystemExit(f"{path}: exported for sequence length {meta['hetc.export_seq']} "
                         f"(not --dynamic-seq), but --seq is {seq}")

    params = dict(model.named_parameters())  # a tied tensor once, under its first name
    missing = [n for n in params if n not in inits]
    extra = [n for n in inits if n not in params]
    if missing or extra:
        raise SystemExit(f"{path}: initializers and {family} parameters differ: "
                         f"parameters without an initializer {missing}, "
                         f"initializers without a parameter {extra}")
    state = model.state_dict(keep_vars=True)
    for alias, target in parse_tied(meta.get("hetc.tied")):
        if alias not in state or target not in params or state[alias] is not params[target]:
            raise SystemExit(f"{path}: hetc.tied says {alias}={target}, but the PyTorch "
                             f"{family} model does not share that tensor")
    loaded = set()
    with torch.no_grad():
        for name, value in inits.items():
            p = params[name]
            if tuple(value.shape) != tuple(p.shape) or value.dtype != np.float32:
                raise SystemExit(f"{path}: initializer {name} is {value.dtype} {list(value.shape)}, "
                                 f"the parameter is float32 {list(p.shape)}")
            p.copy_(torch.from_numpy(value.copy()))
            loaded.add(id(p))
    unloaded = [n for n, p in model.named_parameters() if id(p) not in loaded]
    if unloaded:
        raise SystemExit(f"{path}: parameters not loaded: {unloaded}")
    # hetc freezes an initializer holding a non-finite value: so does this.
    return family, config, model, cfg.vocab_size, {
        n: params[n] for n in inits if np.isfinite(inits[n]).all()}


# --------------------------------------------------------------------------- training

def get_lr(it, args):
    """nanoGPT's get_lr: the learning rate of step `it` (0-based)."""
    if it < args.warmup_steps:
        return args.lr * (it + 1) / (args.warmup_steps + 1)
    if args.lr_schedule == "constant":
        return args.lr
    if it > args.decay_steps:
        return args.min_lr
    ratio = (it - args.warmup_steps) / (args.decay_steps - args.warmup_steps)
    coeff = 0.5 * (1.0 + math.cos(math.pi * ratio)) if args.lr_schedule == "cosine" else 1.0 - ratio
    return args.min_lr + coeff * (args.lr - args.min_lr)


def train(args):
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    dtype = {"float32": torch.float32, "float64": torch.float64}[args.dtype]

    tokens = load_tokens(args.data, args.data_dtype)
    if len(tokens) - args.seq - 1 <= 0:
        raise SystemExit(f"{args.data}: {len(tokens)} tokens, need more than T + 1 = {args.seq + 1}")

    meta, inits = read_onnx(args.model)
    family, config, model, vocab, params = build_model(args.model, meta, inits, args.seq)
    if len(tokens) and int(tokens.max()) >= vocab:
        raise SystemExit(f"{args.data}: token {int(tokens.max())} is outside the vocabulary ({vocab})")
    model = model.to(dtype).train()  # no dropout or batch norm: same function as eval

    names = list(params)  # the trained initializers, in ONNX order
    decay = [params[n] for n in names if params[n].dim() >= 2]
    no_decay = [params[n] for n in names if params[n].dim() < 2]
    groups = [{"params": decay, "weight_decay": args.weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    if args.optimizer == "sgd":
        # torch.optim.SGD's weight_decay is coupled (L2): g += W * p, then p -= lr * g.
        opt = torch.optim.SGD(groups, lr=args.lr, momentum=0.0, foreach=False)
    else:
        opt = torch.optim.AdamW(groups, lr=args.lr, betas=(args.beta1, args.beta2), eps=args.eps,
                                foreach=False)

    scheduler = torch.optim.lr_scheduler.LambdaLR(opt, lambda it: get_lr(it, args) / args.lr)

    val_tokens = load_tokens(args.val_data, args.data_dtype) if args.val_data else None

    def validate():
        """Mean loss of --eval-batches batches of --val-data, batch m as step m."""
        with torch.no_grad():
            total = 0.0
            for m in range(args.eval_batches):
                x, y = get_batch(val_tokens, m, args.global_batch, args.seq)
                logits = model(torch.from_numpy(x))
                total += float(F.cross_entropy(logits.view(-1, vocab),
                                               torch.from_numpy(y).view(-1)).double())
            return total / args.eval_batches

    losses = []
    updates = 0  # optimizer steps taken (a skipped step takes none)
    val_losses = {}  # steps run -> mean validation loss, as hetrun evaluates
    if val_tokens is not None and args.eval_every:
        val_losses[0] = validate()
    lrs = []
    step_ms = []
    t0 = time.perf_counter()
    for step in range(args.steps):
        t_step = time.perf_counter()
        x, y = get_batch(tokens, step, args.global_batch, args.seq)
        x, y = torch.from_numpy(x), torch.from_numpy(y)
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, vocab), y.view(-1))
        loss.backward()
        if args.clip_norm > 0:
            torch.nn.utils.clip_grad_norm_([params[n] for n in names], args.clip_norm)
        lrs.append(opt.param_groups[0]["lr"])
        value = float(loss.detach().to(torch.float32).item())
        if np.isfinite(value):
            opt.step()
            updates += 1
        elif not args.skip_nonfinite:
            raise SystemExit(f"step {step}: loss is {value}")
        scheduler.step()  # a skipped step still moves the schedule on
        losses.append(value)
        step_ms.append((time.perf_counter() - t_step) * 1e3)
        if val_tokens is not None and ((args.eval_every and (step + 1) % args.eval_every == 0)
                                       or step + 1 == args.steps):
            val_losses[step + 1] = validate()
    seconds = time.perf_counter() - t0
    if args.step_times:
        with open(args.step_times, "w") as f:
            json.dump(step_ms, f)
            f.write("\n")

    os.makedirs(args.out, exist_ok=True)
    outputs = [("losses.json", losses), ("lrs.json", lrs)]
    if val_tokens is not None:
        outputs.append(("val_losses.json", val_losses))
    for name, values in outputs:
        with open(os.path.join(args.out, name), "w") as f:
            json.dump(values, f)
            f.write("\n")
    as_f32 = lambda t: t.detach().to(torch.float32).contiguous().numpy()  # noqa: E731
    safetensors_io.write(os.path.join(args.out, "params.safetensors"),
                         {n: as_f32(params[n]) for n in names},
                         metadata={"step": str(args.steps), "writer": "models/reference_train.py"})
    opt_path = os.path.join(args.out, "optimizer.safetensors")
    if args.optimizer == "adamw":
        state = {}
        for n in names:
            s = opt.state[params[n]]
            state[f"{n}.adam_m"] = as_f32(s["exp_avg"])
            state[f"{n}.adam_v"] = as_f32(s["exp_avg_sq"])
        state["optimizer.step"] = np.array(updates, dtype=np.int64)
        safetensors_io.write(opt_path, state, metadata={"step": str(args.steps)})
    elif os.path.exists(opt_path):
        os.remove(opt_path)  # SGD has no state; do not leave a stale file behind
    settings = {k: v for k, v in vars(args).items() if k not in ("print_batches", "step_times")}
    settings.update(family=family, config=config, vocab=vocab, tokens=len(tokens),
                    torch=torch.__version__)
    with open(os.path.join(args.out, "run.json"), "w") as f:
        json.dump(settings, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{args.model}: {family}-{config}, {args.steps} steps of {args.global_batch}x{args.seq} "
          f"{args.optimizer} lr={args.lr:g} in {seconds:.2f} s; loss {losses[0]:.6f} -> "
          f"{losses[-1]:.6f}" if losses else f"{args.model}: 0 steps")
    for step, value in enumerate(losses):
        print(f"step {step} loss {value:.7f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", nargs="?", help="exported ONNX model (models/export.py)")
    ap.add_argument("--data", required=True, help="token file (nanoGPT train.bin layout)")
    ap.add_argument("--data-dtype", choices=sorted(DATA_DTYPES), default="uint16")
    ap.add_argument("--global-batch", type=int, required=True, metavar="B")
    ap.add_argument("--seq", type=int, required=True, metavar="T")
    ap.add_argument("--steps", type=int, required=True, metavar="K")
    ap.add_argument("--optimizer", choices=["sgd", "adamw"], default="adamw")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--weight-decay", type=float, default=0.0, help="on rank >= 2 parameters only")
    ap.add_argument("--beta1", type=float, default=0.9)
    ap.add_argument("--beta2", type=float, default=0.999)
    ap.add_argument("--eps", type=float, default=1e-8)
    ap.add_argument("--clip-norm", type=float, default=0.0, help="0: no clipping")
    ap.add_argument("--lr-schedule", choices=["constant", "cosine", "linear"], default="constant")
    ap.add_argument("--warmup-steps", type=int, default=0, metavar="W")
    ap.add_argument("--decay-steps", type=int, default=0, metavar="D")
    ap.add_argument("--min-lr", type=float, default=0.0)
    ap.add_argument("--val-data", help="validation tokens: write val_losses.json ({step: mean loss}), "
                    "as hetrun --val-data computes it")
    ap.add_argument("--eval-every", type=int, default=0, metavar="N",
                    help="with --val-data: every N steps and before the first "
                    "(default: after the last only)")
    ap.add_argument("--eval-batches", type=int, default=10, metavar="M",
                    help="with --val-data: batches per evaluation (default 10)")
    ap.add_argument("--skip-nonfinite", action="store_true",
                    help="skip the update of a step whose loss is not finite (hetrun "
                    "--on-nonfinite skip) instead of stopping")
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1)")
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float32",
                    help="compute precision (float64 to calibrate tolerances; files stay F32)")
    ap.add_argument("--out", help="output folder")
    ap.add_argument("--step-times", metavar="FILE.json",
                    help="also write the per-step wall times in milliseconds (a JSON list)")
    ap.add_argument("--print-batches", action="store_true",
                    help="print the sample starts and tokens of each step and exit")
    args = ap.parse_args(argv)
    if args.global_batch < 1 or args.seq < 1 or args.steps < 0 or args.threads < 1:
        ap.error("--global-batch, --seq and --threads must be >= 1, --steps >= 0")
    if args.lr < 0 or args.weight_decay < 0 or args.clip_norm < 0 or args.eps <= 0 \
            or not (0 <= args.beta1 < 1 and 0 <= args.beta2 < 1):
        ap.error("--lr, --weight-decay, --clip-norm must be >= 0, --eps > 0, betas in [0, 1)")
    if args.print_batches:
        tokens = load_tokens(args.data, args.data_dtype)
        if len(tokens) - args.seq - 1 <= 0:
            raise SystemExit(f"{args.data}: {len(tokens)} tokens, need more than T + 1 = {args.seq + 1}")
        print_batches(tokens, args)
        return 0
    if not args.model or not args.out:
        ap.error("MODEL and --out are required (unless --print-batches)")
    train(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
