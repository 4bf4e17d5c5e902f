#!/usr/bin/python3
"""Checks a `hetrun --profile` trace against the package's launch counts
(from `hetc inspect`): valid Chrome trace JSON, a named process per rank,
and for every rank and every step each launch of its program exactly once,
compute launches on thread 0, communication on thread 1 with its bytes.

    check_profile.py TRACE.json INSPECT.txt STEPS
"""
import json
import re
import sys
from collections import defaultdict

trace_path, inspect_path, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
launches = {int(m.group(1)): int(m.group(2))
            for m in re.finditer(r"^rank (\d+): samples .*? (\d+) launches",
                                 open(inspect_path).read(), re.M)}
events = json.load(open(trace_path))["traceEvents"]
named = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
seen = defaultdict(list)
for e in events:
    if e["ph"] != "X" or e["args"]["program"] != "step":
        continue
    assert e["ts"] >= 0 and e["dur"] >= 0, e
    communication = e["cat"] == "communication"
    assert e["tid"] == (1 if communication else 0), e
    assert not communication or e["args"]["bytes"] > 0, e
    assert e["name"] != "matmul" or e["args"]["flops"] > 0, e
    seen[(e["pid"], e["args"]["step"])].append(e["args"]["instruction"])
fails = []
if named != set(launches):
    fails.append(f"processes named {sorted(named)}, ranks {sorted(launches)}")
for rank, count in sorted(launches.items()):
    for step in range(steps):
        got = sorted(seen[(rank, step)])
        if got != list(range(count)):
            fails.append(f"rank {rank} step {step}: {len(got)} launches recorded, "
                         f"the program has {count}")
total = sum(len(v) for v in seen.values())
if fails:
    print("FAIL:\n  " + "\n  ".join(fails))
    sys.exit(1)
print(f"PASS: {len(launches)} ranks, {steps} steps, {total} launches, each once")
