"""A small NumPy interpreter for the ONNX ops the hetc models use.

onnx 1.12 has no onnx.reference.ReferenceEvaluator and onnxruntime is not installed,
so check_export.py runs exported graphs through this instead. It covers exactly the
op set the hetc importer accepts (OPS below), at opsets 13-17, with plain NumPy
semantics; it is a checking tool, not a fast or complete runtime.
"""
import math

import numpy as np
import onnx
from onnx import helper, mapping, numpy_helper


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _axes(node, inputs, attrs, index):
    """Axes from the input at `index` (newer opsets) or from the attribute."""
    if len(inputs) > index and inputs[index] is not None:
        return [int(a) for a in inputs[index]]
    axes = attrs.get("axes")
    return None if axes is None else [int(a) for a in axes]


def _reduce(fn):
    def op(node, inputs, attrs):
        index = 1
        axes = _axes(node, inputs, attrs, index)
        keep = bool(attrs.get("keepdims", 1))
        if not axes:
            if attrs.get("noop_with_empty_axes", 0):
                return [inputs[0]]
            axes = None
        else:
            axes = tuple(axes)
        return [np.asarray(fn(inputs[0], axis=axes, keepdims=keep), dtype=inputs[0].dtype)]
    return op


def _unary(fn):
    return lambda node, inputs, attrs: [np.asarray(fn(inputs[0]), dtype=inputs[0].dtype)]


def _binary(fn):
    return lambda node, inputs, attrs: [np.asarray(fn(inputs[0], inputs[1]))]


def _div(node, inputs, attrs):
    a, b = inputs
    if np.issubdtype(a.dtype, np.integer):
        return [np.trunc(a / b).astype(a.dtype)]  # ONNX integer Div truncates
    return [(a / b).astype(a.dtype)]


_erf = np.frompyfunc(math.erf, 1, 1)


def _softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _reshape(node, inputs, attrs):
    data, shape = inputs[0], [int(s) for s in inputs[1]]
    if not attrs.get("allowzero", 0):
        shape = [data.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return [data.reshape(shape)]


def _split(node, inputs, attrs):
    x = inputs[0]
    axis = attrs.get("axis", 0)
    if len(inputs) > 1 and inputs[1] is not None:
        sizes = [int(s) for s in inputs[1]]
    elif "split" in attrs:
        sizes = list(attrs["split"])
    else:
        n = attrs.get("num_outputs", len(node.output))
        step = -(-x.shape[axis] // n)
        sizes = [min(step, x.shape[axis] - i * step) for i in range(n)]
    cuts = np.cumsum(sizes)[:-1]
    return np.split(x, cuts, axis=axis)


def _slice(node, inputs, attrs):
    x, starts, ends = inputs[0], inputs[1], inputs[2]
    axes = inputs[3] if len(inputs) > 3 and inputs[3] is not None else range(len(starts))
    steps = inputs[4] if len(inputs) > 4 and inputs[4] is not None else [1] * len(starts)
    index = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        index[int(a)] = slice(int(s), int(e), int(st))
    return [x[tuple(index)]]


def _unsqueeze(node, inputs, attrs):
    x = inputs[0]
    axes = _axes(node, inputs, attrs, 1)
    rank = x.ndim + len(axes)
    for a in sorted(a % rank for a in axes):
        x = np.expand_dims(x, a)
    return [x]


def _squeeze(node, inputs, attrs):
    axes = _axes(node, inputs, attrs, 1)
    x = inputs[0]
    return [np.squeeze(x) if axes is None else np.squeeze(x, axis=tuple(axes))]


def _gemm(node, inputs, attrs):
    a, b = inputs[0], inputs[1]
    if attrs.get("transA", 0):
        a = a.T
    if attrs.get("transB", 0):
        b = b.T
    y = attrs.get("alpha", 1.0) * (a @ b)
    if len(inputs) > 2 and inputs[2] is not None:
        y = y + attrs.get("beta", 1.0) * inputs[2]
    return [y.astype(a.dtype)]


def _layer_norm(node, inputs, attrs):
    x, scale = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    axis = attrs.get("axis", -1) % x.ndim
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    inv = 1.0 / np.sqrt(var + attrs.get("epsilon", 1e-5))
    y = (x - mean) * inv * scale
    if bias is not None:
        y = y + bias
    return [y.astype(x.dtype), mean, inv]


def _constant(node, inputs, attrs):
    for key in ("value", "value_float", "value_int", "value_floats", "value_ints"):
        if key in attrs:
            v = attrs[key]
            if key == "value":
                return [numpy_helper.to_array(v)]
            dtype = np.float32 if "float" in key else np.int64
            return [np.array(v, dtype=dtype)]
    raise NotImplementedError(f"Constant {node.name}: unsupported attribute")


def _constant_of_shape(node, inputs, attrs):
    value = attrs.get("value")
    fill = numpy_helper.to_array(value) if value is not None else np.zeros(1, np.float32)
    return [np.full([int(s) for s in inputs[0]], fill.reshape(-1)[0], dtype=fill.dtype)]


def _shape(node, inputs, attrs):
    dims = inputs[0].shape
    start, end = attrs.get("start", 0), attrs.get("end", None)
    return [np.array(dims[start:end], dtype=np.int64)]


def _trilu(node, inputs, attrs):
    k = int(inputs[1]) if len(inputs) > 1 and inputs[1] is not None else 0
    fn = np.triu if attrs.get("upper", 1) else np.tril
    return [fn(inputs[0], k)]


def _expand(node, inputs, attrs):
    shape = np.broadcast_shapes(inputs[0].shape, tuple(int(s) for s in inputs[1]))
    return [np.broadcast_to(inputs[0], shape).copy()]


OPS = {
    "Add": _binary(np.add),
    "Sub": _binary(np.subtract),
    "Mul": _binary(np.multiply),
    "Div": _div,
    "Pow": lambda n, i, a: [np.power(i[0], i[1]).astype(i[0].dtype)],
    "Neg": _unary(np.negative),
    "Sqrt": _unary(np.sqrt),
    "Reciprocal": _unary(np.reciprocal),
    "Exp": _unary(np.exp),
    "Log": _unary(np.log),
    "Tanh": _unary(np.tanh),
    "Erf": _unary(lambda x: _erf(x).astype(x.dtype)),
    "Sigmoid": _unary(lambda x: 1.0 / (1.0 + np.exp(-x))),
    "Relu": _unary(lambda x: np.maximum(x, 0)),
    "MatMul": _binary(np.matmul),
    "Gemm": _gemm,
    "Transpose": lambda n, i, a: [np.transpose(i[0], a.get("perm"))],
    "Reshape": _reshape,
    "Flatten": lambda n, i, a: [i[0].reshape(
        int(np.prod(i[0].shape[:a.get("axis", 1)])), -1)],
    "Squeeze": _squeeze,
    "Unsqueeze": _unsqueeze,
    "Concat": lambda n, i, a: [np.concatenate(i, axis=a["axis"])],
    "Split": _split,
    "Slice": _slice,
    "Gather": lambda n, i, a: [np.take(i[0], i[1], axis=a.get("axis", 0))],
    "Expand": _expand,
    "Where": lambda n, i, a: [np.where(i[0], i[1], i[2])],
    "Equal": _binary(np.equal),
    "Cast": lambda n, i, a: [i[0].astype(mapping.TENSOR_TYPE_TO_NP_TYPE[a["to"]])],
    "Softmax": lambda n, i, a: [_softmax(i[0], a.get("axis", -1))],
    "LogSoftmax": lambda n, i, a: [np.log(_softmax(i[0], a.get("axis", -1)))],
    "LayerNormalization": _layer_norm,
    "ReduceMean": _reduce(np.mean),
    "ReduceSum": _reduce(np.sum),
    "ReduceMax": _reduce(np.max),
    "Constant": _constant,
    "ConstantOfShape": _constant_of_shape,
    "Shape": _shape,
    "Range": lambda n, i, a: [np.arange(i[0], i[1], i[2]).astype(i[0].dtype)],
    "Identity": lambda n, i, a: [i[0]],
    "Dropout": lambda n, i, a: [i[0], np.ones(i[0].shape, dtype=bool)],
    "Trilu": _trilu,
}


def run(model: onnx.ModelProto, feeds: dict, initializers: dict = None) -> dict:
    """Evaluate the graph on `feeds` (name -> ndarray); returns name -> ndarray of the
    graph outputs. `model` must have its external data loaded (onnx.load does that),
    unless `initializers` (name -> ndarray) supplies the weights."""
    g = model.graph
    if initializers is None:
        initializers = {init.name: numpy_helper.to_array(init) for init in g.initializer}
    env = dict(initializers)
    env.update(feeds)
    keep = {o.name for o in g.output}
    last_use = {}
    for i, node in enumerate(g.node):
        for name in node.input:
            last_use[name] = i
    for i, node in enumerate(g.node):
        fn = OPS.get(node.op_type)
        if fn is None:
            raise NotImplementedError(f"{node.name}: op {node.op_type} is outside the hetc op set")
        inputs = [env[name] if name else None for name in node.input]
        outputs = fn(node, inputs, _attrs(node))
        for name, value in zip(node.output, outputs):
            if name:
                env[name] = np.asarray(value)
        for name in node.input:  # free activations after their last reader
            if last_use.get(name) == i and name not in keep and name not in initializers:
                env.pop(name, None)
    return {o.name: env[o.name] for o in g.output}
