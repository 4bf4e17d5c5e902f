#!/usr/bin/env python3
"""Time per kernel of a GPU run, from Nsight Compute's CSV: the kernels grouped by name
(template arguments and parameters dropped), each group's launches and total time,
largest first. Runs where the GPU is or anywhere after: it only reads the CSV.

    ncu --clock-control none --metrics gpu__time_duration.sum --csv PROGRAM ... > RUN.csv
    kernel_times.py RUN.csv [--top N] [--json OUT.json]
"""
import argparse
import collections
import csv
import json
import re
import sys

UNIT_MS = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0,
           "ms": 1.0, "second": 1e3, "s": 1e3}


def kernel_group(name):
    """The kernel's name without its parameter list and template arguments."""
    name = re.sub(r"\(.*$", "", name.strip())
    depth, out = 0, []
    for ch in name:
        depth += ch == "<"
        if depth == 0:
            out.append(ch)
        depth -= ch == ">"
    return re.sub(r"^void ", "", "".join(out)).strip() or name


def read_times(lines):
    """(group -> [launches, ms]) from the CSV rows of gpu__time_duration.sum."""
    rows = csv.reader(line for line in lines if line.startswith('"'))
    header = next(rows, None)
    if not header:
        raise SystemExit("kernel_times.py: no CSV rows (was ncu run with --csv?)")
    col = {name: i for i, name in enumerate(header)}
    for needed in ("Kernel Name", "Metric Name", "Metric Unit", "Metric Value"):
        if needed not in col:
            raise SystemExit(f"kernel_times.py: the CSV has no column '{needed}'")
    groups = collections.defaultdict(lambda: [0, 0.0])
    for row in rows:
        if row[col["Metric Name"]] != "gpu__time_duration.sum":
            continue
        scale = UNIT_MS.get(row[col["Metric Unit"]])
        if scale is None:
            raise SystemExit(f"kernel_times.py: unknown unit {row[col['Metric Unit']]}")
        entry = groups[kernel_group(row[col["Kernel Name"]])]
        entry[0] += 1
        entry[1] += float(row[col["Metric Value"]].replace(",", "")) * scale
    return groups


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--json", help="write every group as JSON too")
    args = ap.parse_args(argv)
    with open(args.csv, errors="replace") as f:
        groups = read_times(f)
    total = sum(ms for _, ms in groups.values())
    ordered = sorted(groups.items(), key=lambda kv: -kv[1][1])
    print(f"{sum(n for n, _ in groups.values())} launches, {total:.3f} ms of kernel time")
    print("| kernel | launches | ms | share |")
    print("|---|---|---|---|")
    for name, (launches, ms) in ordered[:args.top]:
        print(f"| {name[:90]} | {launches} | {ms:.3f} | {ms / total * 100:.1f}% |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"total_ms": total, "kernels": [
                {"kernel": k, "launches": n, "ms": ms} for k, (n, ms) in ordered]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
