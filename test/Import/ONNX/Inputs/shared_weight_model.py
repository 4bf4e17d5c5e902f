"""Writes an ONNX model whose nodes have names (the ONNX textual syntax of
libonnx 1.12 cannot name nodes): y = MatMul(MatMul(x, w), w) + b, x and y
float [2, 4], w [4, 4] and b [4] initializers. The two MatMul nodes are named
by the arguments.

usage: shared_weight_model.py OUT.onnx NODE_NAME_1 NODE_NAME_2
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main(out, first, second):
    w = numpy_helper.from_array(
        (0.25 * np.arange(16, dtype=np.float32)).reshape(4, 4), "w")
    b = numpy_helper.from_array(np.array([1, 2, 3, 4], dtype=np.float32), "b")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"], name=first),
         helper.make_node("MatMul", ["h", "w"], ["z"], name=second),
         helper.make_node("Add", ["z", "b"], ["y"], name="/head/Add")],
        "shared",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
        initializer=[w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, out)


if __name__ == "__main__":
    main(*sys.argv[1:])
