#!/usr/bin/python3
"""Writes a token file for hetrun tests: COUNT little-endian ids drawn from
[0, HIGH) with a fixed seed (a small HIGH makes the data learnable in a few
steps), optionally overriding single positions.

    make_tokens.py OUT --count N --high H [--dtype uint16|uint32] [--seed S]
                   [--set INDEX=VALUE ...] [--extra-bytes K]
"""
import argparse
import random
import struct

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("--count", type=int, required=True)
parser.add_argument("--high", type=int, required=True)
parser.add_argument("--dtype", default="uint16", choices=["uint16", "uint32"])
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--set", action="append", default=[])
parser.add_argument("--extra-bytes", type=int, default=0)
args = parser.parse_args()

rng = random.Random(args.seed)
tokens = [rng.randrange(args.high) for _ in range(args.count)]
for item in args.set:
    index, value = item.split("=")
    tokens[int(index)] = int(value)
code = "H" if args.dtype == "uint16" else "I"
with open(args.out, "wb") as f:
    f.write(struct.pack(f"<{len(tokens)}{code}", *tokens))
    f.write(b"\0" * args.extra_bytes)
