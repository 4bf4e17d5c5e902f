#!/usr/bin/python3
"""Export a hetc model family (gpt2 | llama | bert) from PyTorch to ONNX.

    export.py --family gpt2 --config tiny --seq 16 --opset 17 --out gpt2-tiny.onnx
              [--external-data | --shapes-only] [--seed S] [--gelu erf|tanh] [--raw]

The graph takes `input_ids` int64 [batch, T] and returns `logits` float32 [batch, T, V],
batch dynamic. Every ONNX initializer is a trainable parameter under its PyTorch
name and layout (see README.md, "What the export guarantees"); everything else is a
Constant node. Exports are byte-for-byte reproducible for the same arguments.
"""
import argparse
import collections
import io
import os
import sys
import tempfile
import warnings

import numpy as np
import onnx
import torch
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bert  # noqa: E402
import gpt2  # noqa: E402
import llama  # noqa: E402

FAMILIES = {"gpt2": gpt2, "llama": llama, "bert": bert}

# A single protobuf message cannot exceed 2 GiB; stay clear of it.
PROTO_LIMIT_BYTES = 2_000_000_000


def build_model(family, config, seed=0, gelu=None):
    overrides = {}
    if gelu is not None:
        if family != "gpt2":
            raise SystemExit(f"--gelu applies to gpt2 only (got --family {family})")
        overrides["gelu"] = gelu
    module = FAMILIES[family]
    if config not in module.CONFIGS:
        raise SystemExit(f"unknown config {config!r} for {family}; have: {', '.join(module.CONFIGS)}")
    return module.build(config, seed=seed, **overrides)


def unique_parameters(model):
    """name -> tensor for each distinct parameter (a tied weight appears once, under
    the first name it was registered with, as torch.onnx names it)."""
    return dict(model.named_parameters())


def param_bytes(model):
    return sum(p.numel() * p.element_size() for p in unique_parameters(model).values())


def torch_export(model, seq, opset, workdir, dynamic_seq=False):
    """Run torch.onnx.export and return the ModelProto (weights loaded in memory)."""
    ids = torch.zeros(2, seq, dtype=torch.long)
    axes = {0: "batch", 1: "seq"} if dynamic_seq else {0: "batch"}
    kwargs = dict(
        input_names=["input_ids"],
        output_names=["logits"],
        dynamic_axes={"input_ids": axes, "logits": axes},
        opset_version=opset,
        do_constant_folding=True,
        # TRAINING, not EVAL: in eval mode torch 1.13 merges initializers that hold equal
        # values (every LayerNorm weight starts at ones, every bias at zeros) into one
        # tensor plus Identity nodes, which would tie unrelated parameters together.
        # In training mode it merges only tensors that are the same object (true ties).
        # The models have no dropout or batch norm, so the computation is the same.
        training=torch.onnx.TrainingMode.TRAINING,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer and constant-folding chatter
        if param_bytes(model) < PROTO_LIMIT_BYTES:
            buf = io.BytesIO()
            torch.onnx.export(model, (ids,), buf, **kwargs)
            return onnx.load_from_string(buf.getvalue())
        # Too big for one message: torch writes one file per tensor next to the model.
        path = os.path.join(workdir, "torch_export.onnx")
        torch.onnx.export(model, (ids,), path, **kwargs)
    return onnx.load(path)  # pulls the external tensors into memory


def restore_parameter_identity(proto, params):
    """Undo torch's folding of Transpose(weight) into fresh initializers.

    For x @ W.T (every nn.Linear, and the tied LM heads) torch 1.13 constant-folds the
    transpose and stores W.T as a new initializer named like 'onnx::MatMul_123' (and
    drops W when nothing else reads it). That loses the parameter's name and, for a tied
    weight, splits one parameter into two independent ones. Here each such initializer
    is matched (exact bytes) to the parameter it is the transpose of and replaced by a
    Transpose node reading the parameter itself, which is added back if it was dropped.
    """
    g = proto.graph
    by_shape = collections.defaultdict(list)
    for name, p in params.items():
        if p.dim() == 2:
            by_shape[(p.shape[1], p.shape[0])].append(name)

    present = {init.name for init in g.initializer}
    renames, new_nodes, kept, restored = {}, {}, [], []
    for init in g.initializer:
        if init.name in params or len(init.dims) != 2:
            kept.append(init)
            continue
        arr = numpy_helper.to_array(init)
        matches = [n for n in by_shape.get(tuple(init.dims), [])
                   if np.array_equal(arr, params[n].detach().numpy().T)]
        if len(matches) != 1:
            kept.append(init)  # not a transposed parameter (or ambiguous): left to the checks below
            continue
        src = matches[0]
        out = f"{src}.T"
        renames[init.name] = out
        if src not in new_nodes:
            if src not in present:
                restored.append(numpy_helper.from_array(np.ascontiguousarray(arr.T), src))
            new_nodes[src] = helper.make_node("Transpose", [src], [out], name=f"{src}/Transpose", perm=[1, 0])

    del g.initializer[:]
    g.initializer.extend(kept + restored)
    for node in g.node:
        for i, name in enumerate(node.input):
            if name in renames:
                node.input[i] = renames[name]
    # Each Transpose goes right before the first node that reads it.
    nodes = []
    for node in g.node:
        for name in node.input:
            src = name[:-2] if name.endswith(".T") else None
            if src in new_nodes:
                nodes.append(new_nodes.pop(src))
        nodes.append(node)
    del g.node[:]
    g.node.extend(nodes)


def constants_out_of_initializers(proto, params):
    """Anything left in the initializers that is not a parameter (a folded constant or a
    buffer) becomes a Constant node, so that 'initializer' means 'trainable weight'."""
    g = proto.graph
    order = {name: i for i, name in enumerate(params)}
    consts, kept = [], []
    for init in g.initializer:
        if init.name in params:
            kept.append(init)
        else:
            t = onnx.TensorProto()
            t.CopyFrom(init)
            consts.append(helper.make_node("Constant", [], [init.name], name=f"{init.name}/Constant", value=t))
    kept.sort(key=lambda init: order[init.name])  # parameter registration order
    del g.initializer[:]
    g.initializer.extend(kept)
    if consts:
        nodes = consts + list(g.node)
        del g.node[:]
        g.node.extend(nodes)


def check_parameters(proto, params):
    """Every initializer is a parameter, under its name, with its shape and values."""
    inits = {i.name: i for i in proto.graph.initializer}
    missing = sorted(set(params) - set(inits))
    extra = sorted(set(inits) - set(params))
    if missing or extra:
        raise SystemExit(f"export: initializers do not match parameters; missing {missing}, extra {extra}")
    for name, p in params.items():
        arr = numpy_helper.to_array(inits[name])
        if arr.shape != tuple(p.shape) or not np.array_equal(arr, p.detach().numpy()):
            raise SystemExit(f"export: initializer {name} differs from the parameter")


def finalize(proto, model, args):
    params = unique_parameters(model)
    restore_parameter_identity(proto, params)
    constants_out_of_initializers(proto, params)
    check_parameters(proto, params)
    # torch's shape inference loses T on the output (it names it 'MatMullogits_dim_1');
    # state the contract instead: logits [batch, T, V] with the traced T.
    out_dims = proto.graph.output[0].type.tensor_type.shape.dim
    out_dims[1].Clear()
    if args.dynamic_seq:
        out_dims[1].dim_param = "seq"
    else:
        out_dims[1].dim_value = args.seq
    tied = [f"{n}={m}" for n, m in tied_pairs(model)]
    meta = {
        "hetc.family": args.family,
        "hetc.config": args.config,
        "hetc.seed": str(args.seed),
        "hetc.export_seq": str(args.seq),
        "hetc.dynamic_seq": str(int(args.dynamic_seq)),
        "hetc.tied": ",".join(tied),  # alias=initializer, for weights used under two names
    }
    if args.family == "gpt2":
        meta["hetc.gelu"] = model.cfg.gelu
    for k, v in meta.items():
        proto.metadata_props.append(onnx.StringStringEntryProto(key=k, value=v))


def tied_pairs(model):
    """(alias, canonical) names for parameters registered under more than one name."""
    first = {}
    pairs = []
    for name, p in model.state_dict(keep_vars=True).items():  # lists a tied tensor under every name
        if id(p) in first:
            pairs.append((name, first[id(p)]))
        else:
            first[id(p)] = name
    return pairs


def strip_weights(proto, location):
    """--shapes-only: every initializer keeps its name, type and dims but refers to external
    data in `location`, a file that is never written. The .onnx stays tiny; tools that need
    only shapes (`hetc profile`) import it without weights, anything else fails to open
    `location`."""
    offset = 0
    for init in proto.graph.initializer:
        nbytes = numpy_helper.to_array(init).nbytes
        for field in ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
            init.ClearField(field)
        init.data_location = onnx.TensorProto.EXTERNAL
        del init.external_data[:]
        for key, value in (("location", location), ("offset", offset), ("length", nbytes)):
            init.external_data.add(key=key, value=str(value))
        offset += nbytes
    proto.metadata_props.append(onnx.StringStringEntryProto(key="hetc.shapes_only", value=location))


def save(proto, out, external_data, shapes_only=False):
    out_dir = os.path.dirname(os.path.abspath(out))
    os.makedirs(out_dir, exist_ok=True)
    if shapes_only:
        onnx.checker.check_model(proto)  # in memory, with the weights still there
        strip_weights(proto, os.path.splitext(os.path.basename(out))[0] + ".weights-not-written")
        onnx.save_model(proto, out)  # nothing has raw_data left, so no data file is written
        return
    if external_data:
        location = os.path.splitext(os.path.basename(out))[0] + ".weights"
        weights = os.path.join(out_dir, location)
        if os.path.exists(weights):
            os.remove(weights)  # onnx appends to an existing file
        onnx.save_model(proto, out, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=location, size_threshold=0)
    else:
        if proto.ByteSize() >= PROTO_LIMIT_BYTES:
            raise SystemExit(f"export: {out} would exceed 2 GB; use --external-data")
        onnx.save_model(proto, out)
    onnx.checker.check_model(out)  # by path: works with external data and > 2 GB


def summary(proto, out):
    h = collections.Counter(n.op_type for n in proto.graph.node)
    n_params = sum(int(np.prod(init.dims)) for init in proto.graph.initializer)
    ops = " ".join(f"{k}={v}" for k, v in sorted(h.items()))
    return (f"{out}: {len(proto.graph.node)} nodes, {n_params} weights "
            f"in {len(proto.graph.initializer)} initializers, ops: {ops}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", required=True, choices=sorted(FAMILIES))
    ap.add_argument("--config", required=True)
    ap.add_argument("--seq", type=int, required=True, help="sequence length T of the traced input")
    ap.add_argument("--opset", type=int, default=17, help="ONNX opset (14-17 tested)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--external-data", action="store_true",
                    help="weights to <stem>.weights next to the model (needed above 2 GB)")
    ap.add_argument("--shapes-only", action="store_true",
                    help="write the graph only: every initializer points at external data in a "
                         "file that is not written (for `hetc profile`, which needs only shapes)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gelu", choices=["erf", "tanh"], help="gpt2 only: GELU form (default erf)")
    ap.add_argument("--dynamic-seq", action="store_true",
                    help="keep the sequence axis dynamic too (any T up to max_pos at compile time)")
    ap.add_argument("--raw", action="store_true",
                    help="save torch's graph untouched (folded transposes, no metadata); "
                         "a tied weight then appears as two initializers")
    args = ap.parse_args(argv)

    torch.set_grad_enabled(False)
    model = build_model(args.family, args.config, args.seed, args.gelu)
    max_pos = model.cfg.max_pos
    if not 1 <= args.seq <= max_pos:
        raise SystemExit(f"--seq must be in [1, {max_pos}] for {args.family}-{args.config}")
    external = args.external_data
    if args.shapes_only and args.external_data:
        raise SystemExit("--shapes-only and --external-data exclude each other")
    if not external and not args.shapes_only and param_bytes(model) >= PROTO_LIMIT_BYTES:
        print(f"note: {param_bytes(model) / 1e9:.1f} GB of weights; saving with --external-data", file=sys.stderr)
        external = True
    with tempfile.TemporaryDirectory() as work:
        proto = torch_export(model, args.seq, args.opset, work, args.dynamic_seq)
    if not args.raw:
        finalize(proto, model, args)
    save(proto, args.out, external, args.shapes_only)
    print(summary(proto, args.out))


if __name__ == "__main__":
    main()
