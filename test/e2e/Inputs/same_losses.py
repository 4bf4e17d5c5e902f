#!/usr/bin/python3
"""Checks that two hetrun --metrics files hold the same steps with bit-identical
losses; prints `K steps, identical losses` or the first difference and exits 1.

    same_losses.py A.jsonl B.jsonl
"""
import json
import sys


def losses(path):
    records = [json.loads(line) for line in open(path) if line.strip()]
    return [r["loss"] for r in records if "loss" in r]  # not validations alone


a, b = losses(sys.argv[1]), losses(sys.argv[2])
if len(a) != len(b):
    sys.exit(f"{sys.argv[1]} has {len(a)} steps, {sys.argv[2]} has {len(b)}")
for step, (x, y) in enumerate(zip(a, b), 1):
    if x != y:
        sys.exit(f"step {step}: loss {x!r} against {y!r}")
print(f"{len(a)} steps, identical losses")
