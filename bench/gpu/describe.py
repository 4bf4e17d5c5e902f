#!/usr/bin/env python3
"""Write prepare.json and predictions.json of a GPU benchmark folder (bench/gpu/prepare.sh).

    describe.py OUT --family gpt2 --seq T --global-batch B --seed S --lr X --precision P
                --model NAME:CONFIG:KIND:CLUSTER:LAYOUT ... [--hetc-commit C]

Each --model names a package OUT/NAME.hetpkg: KIND single or hetero, CLUSTER the cluster
whose prediction its measured step is compared with, LAYOUT `planned` (compiled with
the plan OUT/plans/NAME.CLUSTER.json) or `whole-batch` (one device, the global batch as
one micro-batch). The predictions are read from OUT/plans/NAME.CLUSTER.txt, the
output of `hetc plan` for every cluster prepare.sh planned for (for a single package:
one-h100 and one-h200; for a hetero one: its cluster):

  search: S stages, R ranks, predicted step X ms, Y tokens/s
  rank stage  device ... busy ms

predictions.json maps NAME -> CLUSTER -> {step_ms, tokens_per_s, stages, ranks,
rank_busy_ms, devices, plan_file, same_plan_as_package}; prepare.json holds the settings
and the package list that bench/gpu_bench.py and bench/gpu/run.sh read.
"""
import argparse
import datetime
import glob
import json
import os
import re
import sys

HEADLINE = re.compile(r"^(?P<strategy>[\w-]+): (?P<stages>\d+) stages, (?P<ranks>\d+) ranks, "
                      r"predicted step (?P<ms>[\d.]+) ms, (?P<tps>[\d.]+) tokens/s")
RANK_ROW = re.compile(r"^\s*(?P<rank>\d+)\s+(?P<stage>\d+)\s+(?P<device>\S+)\s+.*\s(?P<busy>[\d.]+)$")


def parse_plan_output(path):
    lines = open(path).read().splitlines()
    for i, line in enumerate(lines):
        head = HEADLINE.match(line)
        if head:
            break
    else:
        raise SystemExit(f"describe.py: {path}: no 'predicted step' line; is it `hetc plan` output?")
    rows = []
    for line in lines[i + 1:]:
        if not line.strip():
            break  # the rank table ends at the first empty line
        row = RANK_ROW.match(line)
        if row:
            rows.append(row)
    return {"strategy": head["strategy"], "stages": int(head["stages"]), "ranks": int(head["ranks"]),
            "step_ms": float(head["ms"]), "tokens_per_s": float(head["tps"]),
            "rank_busy_ms": [float(r["busy"]) for r in rows],
            "devices": [r["device"] for r in rows]}


def replicas_of(path):
    """Each replica of a plan JSON (docs/plan-format.md), stage by stage: what the
    benchmark's table shows of the layout."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        plan = json.load(f)
    out = []
    for s, stage in enumerate(plan.get("stages", [])):
        for replica in stage.get("replicas", []):
            out.append({"stage": s, "segments": stage.get("segments"),
                        "precision": stage.get("precision", "f32"),
                        "device": replica.get("device"), "samples": replica.get("samples"),
                        "micro_batch": replica.get("micro_batch")})
    return out


def plan_without_devices(path):
    """A plan JSON with device names dropped: one-h100 and one-h200 name their one GPU
    differently, the layout is what matters."""
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k != "device"}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    with open(path) as f:
        return strip(json.load(f))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--family", required=True)
    ap.add_argument("--seq", type=int, required=True)
    ap.add_argument("--global-batch", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--lr", type=float, required=True)
    ap.add_argument("--precision", required=True)
    ap.add_argument("--vocab", type=int, required=True)
    ap.add_argument("--model", action="append", default=[],
                    metavar="NAME:CONFIG:KIND:CLUSTER:LAYOUT")
    ap.add_argument("--hetc-commit", default="")
    args = ap.parse_args(argv)

    models, predictions = [], {}
    for spec in args.model:
        name, config, kind, cluster, layout = spec.split(":")
        package_plan = os.path.join(args.out, "plans", f"{name}.{cluster}.json")
        entry = {"name": name, "config": config, "kind": kind, "cluster": cluster,
                 "layout": layout, "package": f"{name}.hetpkg",
                 "plan": os.path.relpath(package_plan, args.out) if layout == "planned" else None}
        predictions[name] = {}
        for text in sorted(glob.glob(os.path.join(args.out, "plans", f"{name}.*.txt"))):
            planned_for = os.path.basename(text)[len(name) + 1:-len(".txt")]
            pred = parse_plan_output(text)
            plan_file = text[:-len(".txt")] + ".json"
            pred["plan_file"] = os.path.relpath(plan_file, args.out)
            pred["replicas"] = replicas_of(plan_file)
            if layout == "planned":
                pred["same_plan_as_package"] = (
                    os.path.exists(plan_file) and os.path.exists(package_plan)
                    and plan_without_devices(plan_file) == plan_without_devices(package_plan))
            else:  # whole batch: one stage, one replica, one micro-batch
                pred["same_plan_as_package"] = (
                    len(pred["replicas"]) == 1
                    and pred["replicas"][0]["micro_batch"] == args.global_batch)
            predictions[name][planned_for] = pred
        if cluster not in predictions[name]:
            raise SystemExit(f"describe.py: no plan output {name}.{cluster}.txt in {args.out}/plans")
        entry["ranks"] = predictions[name][cluster]["ranks"]
        models.append(entry)

    prepare = {
        "format": "hetc-gpu-bench", "version": 1,
        "family": args.family, "seq": args.seq, "global_batch": args.global_batch,
        "seed": args.seed, "lr": args.lr, "optimizer": "adamw", "precision": args.precision,
        "vocab": args.vocab, "models": models, "hetc_commit": args.hetc_commit,
        "created": datetime.datetime.now().isoformat(timespec="seconds"),
    }
    for name, value in (("prepare.json", prepare), ("predictions.json", predictions)):
        with open(os.path.join(args.out, name), "w") as f:
            json.dump(value, f, indent=1)
            f.write("\n")
    for name, by_cluster in predictions.items():
        for cluster, p in by_cluster.items():
            print(f"{name} on {cluster}: {p['stages']} stages, {p['ranks']} ranks, predicted "
                  f"{p['step_ms']:.3f} ms/step, {p['tokens_per_s']:.0f} tokens/s"
                  f"{'' if p['same_plan_as_package'] else ' (not the layout of the package)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
