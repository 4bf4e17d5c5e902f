#!/usr/bin/python3
"""Summarizes a hetrun --metrics file for FileCheck: the line count, the
step numbers, the keys, whether every loss is finite and whether the last
loss is below the first. With --losses, prints only the losses (to compare
two runs).

    check_metrics.py FILE.jsonl [--losses]
"""
import json
import math
import sys

rows = [json.loads(line) for line in open(sys.argv[1])]
if "--losses" in sys.argv:
    for row in rows:
        print(row["loss"])
    sys.exit(0)
print(f"{len(rows)} lines")
print("steps " + " ".join(str(row["step"]) for row in rows))
print("keys " + " ".join(sorted(rows[0])))
losses = [row["loss"] for row in rows]
finite = all(isinstance(x, float) and math.isfinite(x) for x in losses)
print("losses finite" if finite else f"losses NOT finite: {losses}")
print("tokens_per_s positive" if all(row["tokens_per_s"] > 0 for row in rows)
      else "tokens_per_s NOT positive")
if finite:
    print("last loss below first" if losses[-1] < losses[0]
          else f"last loss NOT below first: {losses}")
