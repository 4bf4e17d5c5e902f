"""Checks `hetc measure` against the trace it read and `hetc plan --profile` against
the measured profile.

    check_measured.py TRACE.json PLAN.json PROFILE.json WARMUP PLAN_OUTPUT.txt

From the trace alone (each launch's pid, step, duration, segment and phase), the plan
(device names NODE/TYPE:INDEX, micro-batches) and WARMUP (steps left out), recomputes
every call's seconds and every kernel kind's launches and seconds (per micro-batch
size) and compares them
with PROFILE.json; checks that every stage's
segments were measured forward and backward; then that each rank's predicted compute
in PLAN_OUTPUT.txt (`hetc plan --plan PLAN.json --profile PROFILE.json`) is its
micro-batches' measured calls plus at most 0.02 ms of optimizer update.
"""
import collections
import json
import re
import sys


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def main(trace_path, plan_path, profile_path, warmup, plan_output_path):
    plan = json.load(open(plan_path))
    ranks = [(stage, replica) for stage in plan["stages"] for replica in stage["replicas"]]
    events = [e for e in json.load(open(trace_path))["traceEvents"]
              if e.get("ph") == "X" and e.get("cat") == "compute"
              and e["args"]["program"] == "step"]
    steps = sorted({e["args"]["step"] for e in events})[int(warmup):]
    totals = collections.defaultdict(float)
    for e in events:
        args = e["args"]
        if args["step"] in steps and args.get("phase") in ("forward", "backward"):
            totals[(e["pid"], args["phase"], args["segment"])] += e["dur"] * 1e-6
    expected = collections.defaultdict(list)
    for (rank, phase, segment), seconds in totals.items():
        stage, replica = ranks[rank]
        samples = replica["samples"][1] - replica["samples"][0]
        micro = replica.get("micro_batch", samples)
        device_type = replica["device"].split("/")[1].split(":")[0]
        key = (device_type, stage.get("precision", "f32"), phase, segment, micro)
        expected[key].append(seconds / (len(steps) * samples // micro))

    profile = json.load(open(profile_path))
    got = {(c["device_type"], c["precision"], c["pass"], c["segment"], c["micro_batch"]):
           (c["seconds"], c["count"]) for c in profile["calls"]}
    if set(got) != set(expected):
        fail(f"calls {sorted(set(got) ^ set(expected))} differ")
    for key, values in expected.items():
        mean = sum(values) / len(values)
        seconds, count = got[key]
        if count != len(values) or abs(seconds - mean) > 1e-5 * mean + 1e-12:
            fail(f"{key}: {seconds} s over {count} ranks, the trace says {mean} over {len(values)}")
    kernels = collections.defaultdict(lambda: [0, 0.0])
    for e in events:
        if e["args"]["step"] in steps:
            stage, replica = ranks[e["pid"]]
            device_type = replica["device"].split("/")[1].split(":")[0]
            samples = replica["samples"][1] - replica["samples"][0]
            kernel = kernels[(device_type, stage.get("precision", "f32"), e["name"],
                              replica.get("micro_batch", samples))]
            kernel[0] += 1
            kernel[1] += e["dur"] * 1e-6
    got_kernels = {(k["device_type"], k["precision"], k["kernel"], k["micro_batch"]):
                   (k["launches"], k["seconds"]) for k in profile["kernels"]}
    if set(got_kernels) != set(kernels):
        fail(f"kernel kinds {sorted(set(got_kernels) ^ set(kernels))} differ")
    for key, (launches, seconds) in kernels.items():
        got_launches, got_seconds = got_kernels[key]
        if got_launches != launches or abs(got_seconds - seconds) > 1e-5 * seconds + 1e-12:
            fail(f"{key}: {got_launches} launches in {got_seconds} s, the trace says "
                 f"{launches} in {seconds}")
    for stage in plan["stages"]:
        for replica in stage["replicas"]:
            device_type = replica["device"].split("/")[1].split(":")[0]
            for segment in range(*stage["segments"]):
                for phase in ("forward", "backward"):
                    if not any(k[0] == device_type and k[2] == phase and k[3] == segment
                               for k in got):
                        fail(f"segment {segment} {phase} on {device_type} not measured")

    rows = re.findall(r"^\s+(\d+)\s+\d+\s+(\S+)\s.*?\s([\d.]+)\s+[\d.]+\s+-?[\d.]+$",
                      open(plan_output_path).read(), re.M)
    if len(rows) != len(ranks):
        fail(f"{len(rows)} rank rows in hetc plan's output, expected {len(ranks)}")
    for rank_text, device, compute_ms in rows:
        stage, replica = ranks[int(rank_text)]
        samples = replica["samples"][1] - replica["samples"][0]
        micro = replica.get("micro_batch", samples)
        device_type = device.split("/")[1].split(":")[0]
        calls = sum(got[(device_type, stage.get("precision", "f32"), phase, segment, micro)][0]
                    for phase in ("forward", "backward") for segment in range(*stage["segments"]))
        measured_ms = calls * (samples // micro) * 1e3
        # The table prints microseconds.
        if not -5e-4 <= float(compute_ms) - measured_ms <= 0.02 + 5e-4:
            fail(f"rank {rank_text}: predicted compute {compute_ms} ms, measured calls "
                 f"{measured_ms:.4f} ms")
    print(f"PASS: {len(got)} calls and {len(kernels)} kernel kinds match the trace over "
          f"{len(steps)} steps; every stage measured; {len(rows)} ranks predicted from them")


if __name__ == "__main__":
    main(*sys.argv[1:])
