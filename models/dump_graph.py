#!/usr/bin/python3
"""Print an ONNX graph as text: metadata, I/O, initializers, then one line per node
(op type, name, inputs -> outputs, attributes; small Constant values inline).

    dump_graph.py PATH.onnx
"""
import collections
import sys

import numpy as np
import onnx
from onnx import helper, mapping, numpy_helper


def tensor_str(t, limit=8):
    dtype = onnx.TensorProto.DataType.Name(t.data_type).lower()
    shape = "x".join(str(d) for d in t.dims) or "scalar"
    if t.data_location == onnx.TensorProto.EXTERNAL:
        return f"{dtype}[{shape}] (external)"
    arr = numpy_helper.to_array(t).reshape(-1)
    vals = np.array2string(arr[:limit], separator=",", max_line_width=10**6)
    more = ",..." if arr.size > limit else ""
    return f"{dtype}[{shape}] {vals[:-1]}{more}]"


def attr_str(a):
    v = helper.get_attribute_value(a)
    if isinstance(v, onnx.TensorProto):
        return f"{a.name}={tensor_str(v)}"
    if isinstance(v, bytes):
        v = v.decode()
    return f"{a.name}={v}"


def value_info_str(v):
    t = v.type.tensor_type
    dims = ",".join(d.dim_param or str(d.dim_value) for d in t.shape.dim)
    return f"{v.name}: {onnx.TensorProto.DataType.Name(t.elem_type).lower()}[{dims}]"


def main(path):
    m = onnx.load(path, load_external_data=False)
    g = m.graph
    print(f"# {path}")
    print("opset:", ", ".join(f"{o.domain or 'ai.onnx'}={o.version}" for o in m.opset_import))
    print("producer:", m.producer_name, m.producer_version)
    for p in m.metadata_props:
        print(f"meta: {p.key} = {p.value}")
    for v in g.input:
        print("input:", value_info_str(v))
    for v in g.output:
        print("output:", value_info_str(v))
    hist = collections.Counter(n.op_type for n in g.node)
    print("ops:", " ".join(f"{k}={v}" for k, v in sorted(hist.items())))
    print(f"initializers ({len(g.initializer)}):")
    for t in g.initializer:
        dtype = onnx.TensorProto.DataType.Name(t.data_type).lower()
        where = " external" if t.data_location == onnx.TensorProto.EXTERNAL else ""
        print(f"  {t.name}: {dtype}[{'x'.join(map(str, t.dims))}]{where}")
    print(f"nodes ({len(g.node)}):")
    for n in g.node:
        attrs = " ".join(attr_str(a) for a in n.attribute)
        print(f"  {n.op_type} {n.name!r} ({', '.join(n.input)}) -> ({', '.join(n.output)}) {attrs}".rstrip())


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
