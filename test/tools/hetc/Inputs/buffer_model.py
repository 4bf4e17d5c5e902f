"""Writes a tiny language model whose initializers are not all parameters:
logits = Where(keep, Gather(emb, input_ids) * rot, pad) @ head + head_bias.
`rot` [8] is a buffer listed in the metadata key hetc.buffers, `pad` [8]
holds -inf (never trainable), `keep` is bool; emb [16, 8], head [8, 16] and
head_bias [16] are float weights.

usage: buffer_model.py OUT.onnx [BUFFERS_JSON]   (default ["rot"])
"""
import json
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main(out, buffers=json.dumps(["rot"])):
    rng = np.random.default_rng(0)
    tensors = {
        "emb": rng.standard_normal((16, 8)).astype(np.float32),
        "rot": np.linspace(0.5, 1.5, 8).astype(np.float32),
        "keep": np.ones(8, dtype=bool),
        "pad": np.full(8, -np.inf, dtype=np.float32),
        "head": rng.standard_normal((8, 16)).astype(np.float32),
        "head_bias": rng.standard_normal(16).astype(np.float32),
    }
    graph = helper.make_graph(
        [helper.make_node("Gather", ["emb", "input_ids"], ["h"], name="/emb/Gather"),
         helper.make_node("Mul", ["h", "rot"], ["r"], name="/rot/Mul"),
         helper.make_node("Where", ["keep", "r", "pad"], ["k"], name="/pad/Where"),
         helper.make_node("MatMul", ["k", "head"], ["z"], name="/head/MatMul"),
         helper.make_node("Add", ["z", "head_bias"], ["logits"], name="/head/Add")],
        "buffers",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", 4])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 4, 16])],
        initializer=[numpy_helper.from_array(v, k) for k, v in tensors.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    helper.set_model_props(model, {"hetc.buffers": buffers})
    onnx.checker.check_model(model)
    onnx.save(model, out)


if __name__ == "__main__":
    main(*sys.argv[1:])
