#!/usr/bin/env python3
"""Write the weights file of a package compiled with `hetc compile --no-weights`.

    write_weights.py PKG --family gpt2 --config 124m [--seed S] [--force]

The model is built with models/<family>.py at the config and seed given (the
initialization models/export.py exports with the same arguments), and each tensor the
package's programs load is written under its name into the file the manifest names
(`weights_file`, weights.safetensors), in the order and layout `hetc compile` writes
when it has the weights. The tensors come from the programs: every PARAMETER buffer
that owns its bytes, by name, shape and dtype, which is

  NAME          the parameter NAME (an ONNX initializer: the PyTorch name), whole;
  NAME[a:b]     flat elements [a, b) of NAME (a shard under full sharding; the buffer's
                whole_shape is NAME's shape);
  NAME.k        a copy of NAME made by `hetc compile --untie-weights`.

F32 buffers get the float32 values, BF16 and F16 ones the values rounded to nearest.
Anything else is an error that names the tensor: a name the model has no parameter for,
a shape that differs from the parameter's (the wrong --config), an unsupported dtype,
or a parameter of the model that the package never loads. Nothing is written then.

Runs with torch 1.13 and torch 2.x alike, CPU only, and needs nothing of hetc but this
folder and models/. Same torch, same seed: the same bytes as `hetc compile` writes from
the full export (test/e2e/no-weights-package.test checks it on gpt2 tiny).
"""
import argparse
import json
import os
import re
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "models"))
import hetpkg  # noqa: E402

FAMILIES = ("gpt2", "llama", "bert")
PIECE = re.compile(r"^(?P<base>.+)\[(?P<begin>\d+):(?P<end>\d+)\]$")
COPY = re.compile(r"^(?P<base>.+)\.(?P<index>\d+)$")


class WeightsError(Exception):
    pass


def build_model(family, config, seed):
    module = __import__(family)
    if config not in module.CONFIGS:
        raise WeightsError(f"unknown {family} config {config!r}; have: "
                           f"{', '.join(module.CONFIGS)}")
    return module.build(config, seed=seed)


def torch_dtype(name):
    import torch
    table = {"F32": torch.float32, "BF16": torch.bfloat16, "F16": torch.float16,
             "F64": torch.float64}
    return table.get(name)


def resolve(entry, params):
    """The torch tensor the package's tensor `entry` holds, and the parameter it
    comes from."""
    name, shape = entry["name"], tuple(entry["shape"])
    if name in params:
        p = params[name]
        if tuple(p.shape) != shape:
            raise WeightsError(f"tensor {name!r}: the package holds shape {list(shape)}, "
                               f"the model's parameter is {list(p.shape)} (another config?)")
        return p.detach(), name
    piece = PIECE.match(name)
    if piece and piece["base"] in params:
        base, begin, end = piece["base"], int(piece["begin"]), int(piece["end"])
        p = params[base]
        whole = tuple(entry["whole_shape"])
        if whole and whole != tuple(p.shape):
            raise WeightsError(f"tensor {name!r} is a piece of a {list(whole)} tensor, the "
                               f"model's {base!r} is {list(p.shape)} (another config?)")
        if not (0 <= begin <= end <= p.numel()) or shape != (end - begin,):
            raise WeightsError(f"tensor {name!r} of shape {list(shape)} is not a piece of "
                               f"the {p.numel()} elements of {base!r}")
        return p.detach().reshape(-1)[begin:end], base
    copy = COPY.match(name)
    if copy and copy["base"] in params:
        base = copy["base"]
        if tuple(params[base].shape) != shape:
            raise WeightsError(f"tensor {name!r} (a copy of {base!r}) has shape "
                               f"{list(shape)}, {base!r} is {list(params[base].shape)}")
        return params[base].detach(), base
    raise WeightsError(f"the package loads tensor {name!r}, which the model has no "
                       f"parameter for (another family or config, or a model not "
                       f"exported by models/export.py?)")


def raw_bytes(tensor, dtype_name):
    import torch
    dtype = torch_dtype(dtype_name)
    if dtype is None:
        raise WeightsError(f"dtype {dtype_name} is not a float dtype this script writes")
    t = tensor.to(dtype).contiguous().cpu()
    if dtype in (torch.bfloat16, torch.float16):
        t = t.view(torch.int16)  # numpy has no bfloat16; the bits are what counts
    return t.numpy().tobytes()  # little-endian on every machine hetc runs on


def header_bytes(entries, metadata):
    """The safetensors header as runtime/package/Safetensors.cpp writes it."""
    header = {"__metadata__": metadata}
    offset = 0
    for e in entries:
        header[e["name"]] = {"dtype": e["dtype"], "shape": e["shape"],
                             "data_offsets": [offset, offset + e["nbytes"]]}
        offset += e["nbytes"]
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text


def write_weights(package, family, config, seed, force=False, log=print):
    import torch
    manifest = hetpkg.read_manifest(package)
    entries = hetpkg.parameter_tensors(package, manifest)
    if not entries:
        raise WeightsError(f"{package}: the programs load no parameters")
    target = os.path.join(package, manifest["weights_file"])
    if os.path.exists(target) and not force:
        raise WeightsError(f"{target} exists (the package was compiled with its weights, "
                           f"or they were written already); --force replaces it")

    t0 = time.perf_counter()
    torch.set_grad_enabled(False)
    model = build_model(family, config, seed)
    cfg = model.cfg
    if manifest["vocab_size"] and manifest["vocab_size"] != cfg.vocab_size:
        raise WeightsError(f"the package's vocabulary is {manifest['vocab_size']}, "
                           f"{family}-{config}'s is {cfg.vocab_size}")
    if manifest["seq_len"] > cfg.max_pos:
        raise WeightsError(f"the package's sequence length {manifest['seq_len']} exceeds "
                           f"{family}-{config}'s max_pos {cfg.max_pos}")
    params = dict(model.named_parameters())  # a tied tensor once, as export.py names it

    used = set()
    for e in entries:
        tensor, base = resolve(e, params)
        if torch_dtype(e["dtype"]) is None:
            raise WeightsError(f"tensor {e['name']!r} has dtype {e['dtype']}; the package's "
                               f"parameters should be F32, BF16 or F16")
        e["tensor"] = tensor
        e["nbytes"] = tensor.numel() * torch.tensor([], dtype=torch_dtype(e["dtype"])).element_size()
        used.add(base)
    unused = [n for n in params if n not in used]
    if unused:
        raise WeightsError(f"the package never loads the model's parameters {unused[:8]}"
                           f"{' ...' if len(unused) > 8 else ''} (another family or config?)")

    partial = target + ".partial"
    try:
        with open(partial, "wb") as f:
            f.write(header_bytes(entries, {"format": "hetc"}))
            for e in entries:
                data = raw_bytes(e["tensor"], e["dtype"])
                if len(data) != e["nbytes"]:
                    raise WeightsError(f"tensor {e['name']!r}: {len(data)} bytes, expected "
                                       f"{e['nbytes']}")
                f.write(data)
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    total = sum(e["nbytes"] for e in entries)
    dtypes = sorted({e["dtype"] for e in entries})
    log(f"{target}: {len(entries)} tensors ({', '.join(dtypes)}), {total} bytes, "
        f"{family}-{config} seed {seed}, {sum(p.numel() for p in params.values())} "
        f"parameters; {time.perf_counter() - t0:.1f} s")
    return target


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("package", help="a package compiled with hetc compile --no-weights")
    ap.add_argument("--family", required=True, choices=FAMILIES)
    ap.add_argument("--config", required=True, help="the models/<family>.py config (tiny, 124m, ...)")
    ap.add_argument("--seed", type=int, default=0,
                    help="initialization seed, as models/export.py --seed (default 0)")
    ap.add_argument("--force", action="store_true", help="replace an existing weights file")
    args = ap.parse_args(argv)
    try:
        write_weights(args.package, args.family, args.config, args.seed, args.force)
    except (WeightsError, hetpkg.PackageError) as e:
        print(f"write_weights.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
