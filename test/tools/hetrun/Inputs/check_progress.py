#!/usr/bin/python3
"""Checks hetrun's MFU and memory figures against the package they ran.

    check_progress.py MODEL.onnx INSPECT.txt METRICS.jsonl --peak-tflops X
        --tokens B*T --seq T --layers L --width D

- The package's model FLOPs per step (`hetc inspect`) are within 10% of the
  usual estimate for the tokens of a step: 6 N + 12 L d T FLOPs per token
  (N every trainable parameter, L layers, d the width, T the sequence).
- Each step's `mfu` is those FLOPs over its step time and the peak.
- Each `peak_mem_bytes` is at least the rank's arena.
"""
import argparse
import json
import re
import sys

import onnx
from onnx import numpy_helper


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("inspect")
    ap.add_argument("metrics")
    ap.add_argument("--peak-tflops", type=float, required=True)
    ap.add_argument("--tokens", type=int, required=True, help="tokens per step (B * T)")
    ap.add_argument("--seq", type=int, required=True)
    ap.add_argument("--layers", type=int, required=True)
    ap.add_argument("--width", type=int, required=True)
    args = ap.parse_args()

    model = onnx.load(args.model)
    params = sum(numpy_helper.to_array(init).size for init in model.graph.initializer
                 if init.data_type == onnx.TensorProto.FLOAT)
    layers, width = args.layers, args.width
    estimate = (6 * params + 12 * layers * width * args.seq) * args.tokens

    text = open(args.inspect).read()
    counted = float(re.search(r"([0-9.e+-]+) model GFLOP per step", text).group(1)) * 1e9
    arena = int(re.search(r"arena ([0-9]+) bytes", text).group(1))
    ratio = counted / estimate
    print(f"model FLOPs {counted:.4g} vs estimate {estimate:.4g}: ratio {ratio:.3f}")
    ok = 0.9 <= ratio <= 1.1

    for line in open(args.metrics):
        row = json.loads(line)
        want = counted / (row["step_ms"] * 1e-3) / (args.peak_tflops * 1e12)
        # inspect prints 3 significant digits of the FLOPs.
        if abs(row["mfu"] - want) > 5e-3 * want:
            print(f"step {row['step']}: mfu {row['mfu']}, expected {want}")
            ok = False
        if min(row["peak_mem_bytes"]) < arena:
            print(f"step {row['step']}: peak memory {row['peak_mem_bytes']} below the arena {arena}")
            ok = False
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
