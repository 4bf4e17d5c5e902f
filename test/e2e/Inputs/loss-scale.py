#!/usr/bin/python3
"""Print the loss scale state of hetrun checkpoints.

    loss-scale.py RUN... [--initial WEIGHTS.safetensors]

For each checkpoint folder: `NAME: loss_scale S good_steps G optimizer.step N`;
exits 1 when the scale is not finite and positive. With --initial, also checks
that the (single) checkpoint's parameters equal those weights bit for bit.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "models"))
import safetensors_io  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--initial")
    args = parser.parse_args()
    ok = True
    for run in args.runs:
        state, _ = safetensors_io.read(os.path.join(run, "optimizer.safetensors"))
        scale = float(state["loss_scale"])
        print(f"{os.path.basename(run.rstrip('/'))}: loss_scale {scale:g} "
              f"good_steps {int(state['loss_scale.good_steps'])} "
              f"optimizer.step {int(state['optimizer.step'])}")
        ok &= bool(np.isfinite(scale) and scale > 0)
    if args.initial:
        initial, _ = safetensors_io.read(args.initial)
        params, _ = safetensors_io.read(os.path.join(args.runs[0], "params.safetensors"))
        same = all(np.array_equal(params[name], initial[name]) for name in params)
        print("parameters equal the initial weights" if same
              else "parameters differ from the initial weights")
        ok &= same
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
