#!/usr/bin/python3
"""Check an exported hetc model against its PyTorch definition.

    check_export.py PATH.onnx [--family F --config C --seed S --gelu G] [--batch N]
                    [--reexport] [--tol X]

Family, config, seed and GELU form default to the `hetc.*` metadata written by
export.py. Checks, in order:
  1. onnx.checker passes; the only input is input_ids int64 [batch, T], the only
     output logits float32 [batch, T, V]; every op is in the hetc op set;
  2. the initializers are exactly the model's parameters (names, shapes, values);
  3. logits from the ONNX graph (onnx.reference if this onnx has it, else the NumPy
     interpreter in onnx_ref.py) match PyTorch on random ids, at a batch size other
     than the traced one;
  4. with --reexport: exporting again with the same arguments gives identical bytes.
"""
import argparse
import filecmp
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import torch
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export  # noqa: E402
import onnx_ref  # noqa: E402

HETC_OPS = set(
    "Add Sub Mul Div Pow Neg Sqrt Reciprocal Exp Log Tanh Erf Sigmoid Relu MatMul Gemm "
    "Transpose Reshape Flatten Squeeze Unsqueeze Concat Split Slice Gather Expand Where "
    "Equal Cast Softmax LogSoftmax LayerNormalization ReduceMean ReduceSum ReduceMax "
    "Constant ConstantOfShape Shape Range Identity Dropout Trilu SoftmaxCrossEntropyLoss".split())


def fail(msg):
    raise SystemExit(f"check_export: FAIL: {msg}")


def dims(value_info):
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


def evaluate(proto, ids, inits):
    try:
        from onnx.reference import ReferenceEvaluator  # onnx >= 1.13
    except ImportError:
        return onnx_ref.run(proto, {"input_ids": ids}, inits)["logits"], "onnx_ref (NumPy)"
    for init in proto.graph.initializer:
        init.CopyFrom(numpy_helper.from_array(inits[init.name], init.name))
    return ReferenceEvaluator(proto).run(None, {"input_ids": ids})[0], "onnx.reference"


def uses_external_data(proto):
    return any(init.data_location == onnx.TensorProto.EXTERNAL for init in proto.graph.initializer)


def reexport_identical(path, meta, opset, external):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, os.path.basename(path))
        cmd = [sys.executable, os.path.join(HERE, "export.py"), "--family", meta["hetc.family"],
               "--config", meta["hetc.config"], "--seed", meta["hetc.seed"],
               "--seq", meta["hetc.export_seq"], "--opset", str(opset), "--out", out]
        if meta.get("hetc.dynamic_seq") == "1":
            cmd.append("--dynamic-seq")
        if meta["hetc.family"] == "gpt2":
            cmd += ["--gelu", meta["hetc.gelu"]]
        if external:
            cmd.append("--external-data")
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        files = [os.path.basename(path)]
        if external:
            files.append(os.path.splitext(files[0])[0] + ".weights")
        for f in files:
            if not filecmp.cmp(os.path.join(os.path.dirname(path), f), os.path.join(tmp, f), shallow=False):
                return f
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path")
    ap.add_argument("--family", choices=sorted(export.FAMILIES))
    ap.add_argument("--config")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--gelu", choices=["erf", "tanh"])
    ap.add_argument("--batch", type=int, default=3, help="batch size to run (the export traced 2)")
    ap.add_argument("--tol", type=float, default=1e-4, help="max |logits difference| allowed")
    ap.add_argument("--reexport", action="store_true", help="also check that export is reproducible")
    args = ap.parse_args(argv)

    onnx.checker.check_model(args.path)
    proto = onnx.load(args.path)  # loads external data too
    external = uses_external_data(onnx.load(args.path, load_external_data=False))
    meta = {p.key: p.value for p in proto.metadata_props}
    family = args.family or meta.get("hetc.family")
    config = args.config or meta.get("hetc.config")
    seed = args.seed if args.seed is not None else int(meta.get("hetc.seed", 0))
    gelu = args.gelu or (meta.get("hetc.gelu") if family == "gpt2" else None)
    if not family or not config:
        fail("no hetc.* metadata in the model: pass --family and --config")
    opset = max(o.version for o in proto.opset_import if o.domain in ("", "ai.onnx"))

    g = proto.graph
    if [i.name for i in g.input] != ["input_ids"] or [o.name for o in g.output] != ["logits"]:
        fail(f"graph I/O is {[i.name for i in g.input]} -> {[o.name for o in g.output]}")
    if g.input[0].type.tensor_type.elem_type != onnx.TensorProto.INT64:
        fail("input_ids is not int64")
    if g.output[0].type.tensor_type.elem_type != onnx.TensorProto.FLOAT:
        fail("logits is not float32")
    in_dims, out_dims = dims(g.input[0]), dims(g.output[0])
    if len(in_dims) != 2 or len(out_dims) != 3 or out_dims[:2] != in_dims:
        fail(f"input_ids {in_dims} -> logits {out_dims} is not [batch, T] -> [batch, T, V]")
    outside = sorted({n.op_type for n in g.node} - HETC_OPS)
    if outside:
        fail(f"ops outside the hetc op set: {outside}")

    torch.set_grad_enabled(False)
    model = export.build_model(family, config, seed, gelu)
    params = export.unique_parameters(model)
    inits = {}
    for init in g.initializer:
        inits[init.name] = numpy_helper.to_array(init)
        init.ClearField("raw_data")  # the arrays hold the weights now; halves peak memory
    if set(inits) != set(params):
        fail(f"initializers {sorted(set(inits) ^ set(params))} are not exactly the parameters")
    for name, p in params.items():
        if not np.array_equal(inits[name], p.numpy()):
            fail(f"initializer {name} differs from the PyTorch parameter")

    # A dynamic sequence axis is checked at a length other than the traced one.
    seq = in_dims[1] if isinstance(in_dims[1], int) else int(meta["hetc.export_seq"]) // 2
    rng = np.random.default_rng(1234)
    ids = rng.integers(0, model.cfg.vocab_size, size=(args.batch, seq), dtype=np.int64)
    want = model(torch.from_numpy(ids)).numpy()
    got, engine = evaluate(proto, ids, inits)
    if got.shape != want.shape or want.shape[2] != out_dims[2]:
        fail(f"logits shape {got.shape}, PyTorch gives {want.shape}")
    err = float(np.max(np.abs(got - want)))
    if not err <= args.tol:
        fail(f"logits differ from PyTorch by {err:.3g} (> {args.tol})")

    line = (f"{args.path}: ok ({family}-{config} seed {seed}, opset {opset}, "
            f"{len(params)} parameters, max |logits - torch| = {err:.2e} via {engine}")
    if args.reexport:
        differs = reexport_identical(args.path, meta, opset, external)
        if differs:
            fail(f"re-export is not byte-identical ({differs})")
        line += ", re-export byte-identical"
    print(line + ")")


if __name__ == "__main__":
    main()
