"""Writes a binary ONNX model whose nodes have names (the ONNX textual
syntax of libonnx 1.12 cannot name nodes, and the onnx Python package is not
needed): y = MatMul(MatMul(x, w), w) + b, x and y float [2, 4], w [4, 4] and
b [4] initializers. The two MatMul nodes are named by the arguments.

usage: shared_weight_model.py OUT.onnx NODE_NAME_1 NODE_NAME_2
"""
import struct
import sys


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, value):
    """One protobuf field: an int is a varint, anything else is bytes."""
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return varint(number << 3 | 2) + varint(len(value)) + value


FLOAT = 1


def tensor(name, dims, values):
    return (b"".join(field(1, d) for d in dims) + field(2, FLOAT) +
            field(8, name) + field(9, struct.pack("<%df" % len(values), *values)))


def value_info(name, dims):
    shape = b"".join(field(1, field(1, d)) for d in dims)
    return field(1, name) + field(2, field(1, field(1, FLOAT) + field(2, shape)))


def node(name, op_type, inputs, outputs):
    return (b"".join(field(1, i) for i in inputs) +
            b"".join(field(2, o) for o in outputs) + field(3, name) +
            field(4, op_type))


def main(out, first, second):
    graph = b"".join([
        field(1, node(first, "MatMul", ["x", "w"], ["h"])),
        field(1, node(second, "MatMul", ["h", "w"], ["z"])),
        field(1, node("/head/Add", "Add", ["z", "b"], ["y"])),
        field(2, "shared"),
        field(5, tensor("w", [4, 4], [0.25 * i for i in range(16)])),
        field(5, tensor("b", [4], [1.0, 2.0, 3.0, 4.0])),
        field(11, value_info("x", [2, 4])),
        field(12, value_info("y", [2, 4])),
    ])
    model = field(1, 8) + field(8, field(2, 17)) + field(7, graph)
    with open(out, "wb") as f:
        f.write(model)


if __name__ == "__main__":
    main(*sys.argv[1:])
