"""Writes a 3-stage uneven plan for any model, from its segment count
(`hetc profile MODEL --seq T --json`): stage 0 takes a quarter of the
segments on one replica (micro-batches of 4), stage 1 half of them on two
replicas with batch shares 5:3 (micro-batches 5 and 1, optimizer-state
shards 0.7/0.3), stage 2 the rest on one replica (micro-batches of 2).

usage: uneven_plan.py PROFILE.json OUT.json   (global batch 8)
"""
import json
import sys


def main(profile_path, out):
    with open(profile_path) as f:
        segments = len(json.load(f)["segments"])
    if segments < 3:
        raise SystemExit(f"{profile_path}: {segments} segments, a 3-stage plan needs 3")
    first = max(1, segments // 4)
    second = first + max(1, segments // 2)
    plan = {"global_batch": 8, "stages": [
        {"segments": [0, first], "replicas": [
            {"device": "gpu0", "samples": [0, 8], "micro_batch": 4}]},
        {"segments": [first, second], "replicas": [
            {"device": "gpu1", "samples": [0, 5], "micro_batch": 5, "shard": 0.7},
            {"device": "gpu2", "samples": [5, 8], "micro_batch": 1, "shard": 0.3}]},
        {"segments": [second, segments], "replicas": [
            {"device": "gpu3", "samples": [0, 8], "micro_batch": 2}]}]}
    with open(out, "w") as f:
        json.dump(plan, f)
        f.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
