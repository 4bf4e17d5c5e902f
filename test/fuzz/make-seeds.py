#!/usr/bin/python3
"""Writes the seed corpus of the fuzz targets (test/fuzz/corpus/NAME/) from
the repository's fixtures and ONNX's node tests, and the past crashers
(test/fuzz/crashers/NAME/). The outputs are committed; run this again after
a format changes:

    test/fuzz/make-seeds.py BUILD_DIR

BUILD_DIR holds bin/hetc and bin/hetrun (the package and checkpoint seeds
are compiled and trained for the occasion).
"""
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SEPARATOR = b"\n--hetc-fuzz-file--\n"  # FuzzTarget.h's kFileSeparator
NODE_TESTS = "/usr/share/libonnx-testdata/data/node"
NODE_OPS = re.compile(
    r"test_(add|sub|mul|div|matmul_2d|gemm_default_no_bias|reshape_.*dim.*|transpose_default|"
    r"softmax_axis_1|gather_0|gather_1|concat_2d_axis_0|slice|where_example|layer_normalization_2d_axis0|"
    r"erf|tanh|sqrt|pow|reduce_mean_keepdims_example|cast_FLOAT_to_DOUBLE|expand_dim_changed|"
    r"unsqueeze_axis_0|squeeze|shape|range_int32_type_negative_delta|equal|less|split_equal_parts_1d|"
    r"constantofshape_int_zeros|neg|exp|log|relu|sigmoid|tril|triu|cumsum_1d|reduce_sum_keepdims_example|"
    r"max_example|min_example|not|and|identity|flatten_axis0|argmax_default_axis_example)$")


def out(target, kind="corpus"):
    path = os.path.join(HERE, kind, target)
    os.makedirs(path, exist_ok=True)
    return path


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def copy_all(pattern, target, prefix=""):
    for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
        shutil.copy(path, os.path.join(out(target), prefix + os.path.basename(path)))


def onnx_seeds():
    for model in sorted(glob.glob(os.path.join(NODE_TESTS, "test_*", "model.onnx"))):
        name = os.path.basename(os.path.dirname(model))
        if NODE_OPS.match(name):
            shutil.copy(model, os.path.join(out("onnx"), name + ".onnx"))
    # Crasher: an int64 division INT64_MIN / -1 folded at compile time.
    a = helper.make_tensor("a", TensorProto.INT64, [1], [-2**63])
    b = helper.make_tensor("b", TensorProto.INT64, [1], [-1])
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["x"], value=a),
         helper.make_node("Constant", [], ["y"], value=b),
         helper.make_node("Div", ["x", "y"], ["z"])],
        "int64-min-div", [], [helper.make_tensor_value_info("z", TensorProto.INT64, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    write(os.path.join(out("onnx", "crashers"), "div-int64-min-by-minus-one.onnx"),
          model.SerializeToString())


def plan_seeds():
    for pattern in ("test/e2e/Inputs/*.json", "models/plans/*.json", "test/Passes/Inputs/*.json"):
        copy_all(pattern, "plan")
    write(os.path.join(out("plan", "crashers"), "no-stages.json"), b'{"stages": []}')
    write(os.path.join(out("plan", "crashers"), "nested-200000.json"),
          b'{"stages": ' + b"[" * 200000 + b"]" * 200000 + b"}")


# Two stages, the first on two replicas of other micro-batch sizes: every
# kind of message, in programs small enough to mutate quickly.
SEED_PLAN = b"""{"stages": [
  {"segments": [0, 3], "replicas": [{"device": "a", "samples": [0, 2], "micro_batch": 1},
                                    {"device": "b", "samples": [2, 4], "micro_batch": 2}]},
  {"segments": [3, 9], "replicas": [{"device": "c", "samples": [0, 4], "micro_batch": 2}]}]}"""


def package_seeds(build, scratch):
    hetc = os.path.join(build, "bin", "hetc")
    plan = os.path.join(scratch, "plan.json")
    write(plan, SEED_PLAN)
    pkg = os.path.join(scratch, "p.hetpkg")
    subprocess.run([hetc, "compile", os.path.join(ROOT, "models/fixtures/gpt2-tiny-op17.onnx"),
                    "-o", pkg, "--global-batch", "4", "--seq", "16", "--plan", plan],
                   check=True, stderr=subprocess.DEVNULL)
    read = lambda name: open(os.path.join(pkg, name), "rb").read()  # noqa: E731
    target = out("package")
    write(os.path.join(target, "manifest"), b"\0" + read("manifest.pb"))
    for rank in range(3):
        write(os.path.join(target, f"rank{rank}"), b"\1" + read(f"rank{rank}.pb"))
        write(os.path.join(target, f"rank{rank}-eval"),
              b"\3" + read(f"rank{rank}.pb") + SEPARATOR + read(f"rank{rank}.eval.pb"))
    write(os.path.join(target, "constants"), b"\2" + read("constants.safetensors"))
    return pkg


def safetensors(tensors):
    """The bytes of a safetensors file of float32 arrays."""
    import json
    header, offset, data = {}, 0, b""
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array, dtype=np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        data += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def checkpoint_seeds():
    state = (b'{"format": "hetc-checkpoint", "step": 3, "package": "p.hetpkg", '
             b'"optimizer": "adamw"}\n')
    params = safetensors({"w": np.arange(6).reshape(2, 3), "b": np.ones(3)})
    state_tensors = safetensors({"w.adam_m": np.zeros((2, 3)), "w.adam_v": np.zeros((2, 3))})
    write(os.path.join(out("checkpoint"), "adamw"),
          state + SEPARATOR + params + SEPARATOR + state_tensors)
    write(os.path.join(out("checkpoint"), "sgd"),
          state.replace(b"adamw", b"sgd") + SEPARATOR + params + SEPARATOR + safetensors({}))


def token_seeds():
    rng = np.random.default_rng(0)
    for dtype, code in ((np.uint16, 0), (np.uint32, 1)):
        tokens = rng.integers(0, 256, size=600).astype(dtype).tobytes()
        write(os.path.join(out("tokens"), f"{np.dtype(dtype).name}-b4-t16"),
              bytes([code, 3, 15, 2]) + tokens)
    write(os.path.join(out("tokens"), "short"), bytes([0, 7, 31, 0]) + b"\1\0\2\0")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as scratch:
        onnx_seeds()
        plan_seeds()
        copy_all("models/clusters/*.yaml", "cluster")
        package_seeds(build, scratch)
        checkpoint_seeds()
        token_seeds()
    for target in ("onnx", "plan", "cluster", "package", "checkpoint", "tokens"):
        with open(os.path.join(out(target, "crashers"), "README.md"), "w") as f:
            f.write(f"Inputs that once crashed `hetc-fuzz-{target}`, each a test: `make test`\n"
                    f"replays them (ctest `fuzz-replay-{target}`), `make fuzz` adds new ones.\n")
    for kind in ("corpus", "crashers"):
        for target in sorted(os.listdir(os.path.join(HERE, kind))):
            files = os.listdir(os.path.join(HERE, kind, target))
            print(f"{kind}/{target}: {len(files)} files")


if __name__ == "__main__":
    main()
