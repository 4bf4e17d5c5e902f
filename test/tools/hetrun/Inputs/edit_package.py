#!/usr/bin/python3
"""Damages a copy of a package for hetrun's error tests.

    edit_package.py PKG format-version N     manifest.pb's format_version = N
    edit_package.py PKG drop-weight NAME     remove a tensor from weights
    edit_package.py PKG reshape-weight NAME  flatten a weight's shape
    edit_package.py PKG forget-digests -      drop manifest.pb's file digests
                                             (field 13), so that hetrun reads
                                             damaged files to the deeper checks
"""
import json
import struct
import sys

pkg, action, arg = sys.argv[1], sys.argv[2], sys.argv[3]
if action == "format-version":
    data = open(f"{pkg}/manifest.pb", "rb").read()
    # Field 1 (varint) comes first: tag 0x08, then the value (< 128 here).
    assert data[0] == 0x08 and data[1] < 0x80, data[:2]
    open(f"{pkg}/manifest.pb", "wb").write(bytes([0x08, int(arg)]) + data[2:])
    sys.exit(0)




def read_varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        shift += 7
        if byte < 0x80:
            return value, at


if action == "forget-digests":
    data = open(f"{pkg}/manifest.pb", "rb").read()
    kept, at = b"", 0
    while at < len(data):
        start = at
        key, at = read_varint(data, at)
        wire = key & 7
        if wire == 0:
            _, at = read_varint(data, at)
        elif wire == 1:
            at += 8
        elif wire == 2:
            length, at = read_varint(data, at)
            at += length
        elif wire == 5:
            at += 4
        else:
            sys.exit(f"manifest.pb: wire type {wire} at byte {start}")
        if key >> 3 != 13:
            kept += data[start:at]
    open(f"{pkg}/manifest.pb", "wb").write(kept)
    sys.exit(0)

path = f"{pkg}/weights.safetensors"
data = open(path, "rb").read()
(length,) = struct.unpack("<Q", data[:8])
header = json.loads(data[8:8 + length])
body = data[8 + length:]
entry = header[arg]
if action == "drop-weight":
    del header[arg]
elif action == "reshape-weight":
    count = 1
    for d in entry["shape"]:
        count *= d
    entry["shape"] = [count]
# Lay the remaining tensors out again, contiguous, in their old order.
names = sorted((n for n in header if n != "__metadata__"),
               key=lambda n: header[n]["data_offsets"][0])
new_body = b""
for name in names:
    begin, end = header[name]["data_offsets"]
    header[name]["data_offsets"] = [len(new_body), len(new_body) + end - begin]
    new_body += body[begin:end]
text = json.dumps(header).encode()
text += b" " * (-len(text) % 8)
open(path, "wb").write(struct.pack("<Q", len(text)) + text + new_body)
