#!/usr/bin/python3
"""Prints each tensor of a .safetensors file: name, dtype, shape and, for F32
tensors, the values, so lit tests can check what the package writer wrote.

    dump_safetensors.py FILE
"""
import json
import struct
import sys

data = open(sys.argv[1], "rb").read()
(length,) = struct.unpack("<Q", data[:8])
header = json.loads(data[8:8 + length])
body = data[8 + length:]
for name, entry in header.items():
    if name == "__metadata__":
        continue
    begin, end = entry["data_offsets"]
    line = f"{name} {entry['dtype']} {entry['shape']}"
    if entry["dtype"] == "F32":
        values = struct.unpack(f"<{(end - begin) // 4}f", body[begin:end])
        line += " " + " ".join(f"{v:g}" for v in values)
    print(line)
