#!/usr/bin/python3
"""Copies a run folder (losses.json, params.safetensors, optimizer.safetensors) with
one change, so lit tests can check what compare_runs.py detects.

    edit_run.py IN OUT [--scale NAME FACTOR] [--set NAME FLAT_INDEX VALUE] [--drop NAME]
                       [--rename NAME NEW] [--reshape NAME] [--loss STEP FACTOR]
                       [--metrics FILE --first-step 0|1]
    edit_run.py --check-losses DIR     # losses finite, in (0, 2 ln V), last < first

--scale multiplies a whole parameter tensor, --set one element (flat index),
--metrics writes the losses as a hetrun-style JSONL file instead of losses.json.
"""
import argparse
import json
import math
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "models"))
import safetensors_io  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("input")
ap.add_argument("output", nargs="?")
ap.add_argument("--scale", nargs=2, action="append", default=[])
ap.add_argument("--set", nargs=3, action="append", default=[])
ap.add_argument("--drop", action="append", default=[])
ap.add_argument("--rename", nargs=2, action="append", default=[])
ap.add_argument("--reshape", action="append", default=[])
ap.add_argument("--loss", nargs=2, action="append", default=[])
ap.add_argument("--metrics")
ap.add_argument("--first-step", type=int, default=0)
ap.add_argument("--check-losses", action="store_true")
ap.add_argument("--vocab", type=int, default=256)
args = ap.parse_args()

losses = json.load(open(os.path.join(args.input, "losses.json")))
if args.check_losses:
    ok = all(math.isfinite(v) and 0 < v < 2 * math.log(args.vocab) for v in losses) and losses[-1] < losses[0]
    print(f"losses {len(losses)}: {losses[0]:.4f} -> {losses[-1]:.4f}: {'ok' if ok else 'BAD'}")
    sys.exit(0 if ok else 1)

params, meta = safetensors_io.read(os.path.join(args.input, "params.safetensors"))
for name, factor in args.scale:
    params[name] = (params[name] * np.float32(factor)).astype(np.float32)
for name, index, value in args.set:
    flat = params[name].reshape(-1)
    flat[int(index)] = np.float32(value)
for name in args.drop:
    del params[name]
for name, new in args.rename:
    params = {(new if n == name else n): v for n, v in params.items()}
for name in args.reshape:
    params[name] = params[name].reshape(1, -1)
for step, factor in args.loss:
    losses[int(step)] = float(np.float32(losses[int(step)] * float(factor)))

os.makedirs(args.output, exist_ok=True)
safetensors_io.write(os.path.join(args.output, "params.safetensors"), params, meta)
opt = os.path.join(args.input, "optimizer.safetensors")
if os.path.exists(opt):
    shutil.copyfile(opt, os.path.join(args.output, "optimizer.safetensors"))
if args.metrics:
    with open(args.metrics, "w") as f:
        for i, v in enumerate(losses):
            f.write(json.dumps({"step": i + args.first_step, "loss": v, "tokens_per_s": 1000.0}) + "\n")
else:
    with open(os.path.join(args.output, "losses.json"), "w") as f:
        json.dump(losses, f)
