#!/usr/bin/python3
"""Writes a copy of an ONNX model with one element of one initializer set
to NaN (or inf): a model whose training must stop at its first step (or,
for a row of an embedding table, at the first step whose batch holds that
token).

    poison_weight.py MODEL.onnx TENSOR OUT.onnx [--value nan|inf] [--index I]
"""
import argparse

import numpy as np
import onnx
from onnx import numpy_helper

ap = argparse.ArgumentParser()
ap.add_argument("model")
ap.add_argument("tensor")
ap.add_argument("out")
ap.add_argument("--value", choices=["nan", "inf"], default="nan")
ap.add_argument("--index", type=int, default=0, help="flat index of the element")
args = ap.parse_args()
model = onnx.load(args.model)
for i, init in enumerate(model.graph.initializer):
    if init.name == args.tensor:
        values = numpy_helper.to_array(init).copy()
        values.flat[args.index] = np.float32(args.value)
        model.graph.initializer[i].CopyFrom(numpy_helper.from_array(values, init.name))
        break
else:
    raise SystemExit(f"{args.model}: no initializer {args.tensor}")
onnx.save(model, args.out)
