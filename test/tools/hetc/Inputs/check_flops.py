#!/usr/bin/python3
"""Checks `hetc profile --json` (on stdin) against the standard estimate of
training FLOPs per sequence, 6 N T + 12 L d T^2 (N parameters, L layers,
d model width, T tokens; Kaplan et al. 2020 and PaLM, appendix B), and
prints the numbers; and that every segment's op kinds add up to its own
figures. Exits 1 when the ratio is outside 1 +- tolerance or a sum differs."""
import argparse
import json
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--layers", type=int, required=True)
ap.add_argument("--d-model", type=int, required=True)
ap.add_argument("--tolerance", type=float, default=0.05)
args = ap.parse_args()

profile = json.load(sys.stdin)
T = profile["seq"]
totals = profile["totals"]
N = totals["parameters"]
counted = totals["flops_per_sequence"]
formula = 6 * N * T + 12 * args.layers * args.d_model * T * T
ratio = counted / formula
print(f"segments: {len(profile['segments'])}")
print(f"parameters: {N}")
print(f"counted: {counted:.6e} (forward {totals['forward_flops'] / profile['batch']:.6e}, "
      f"backward {totals['backward_flops'] / profile['batch']:.6e})")
print(f"formula 6NT + 12LdT^2: {formula:.6e}")
print(f"ratio: {ratio:.4f}")
if abs(ratio - 1) > args.tolerance:
    print(f"error: counted FLOPs are {ratio:.4f} x the formula, outside 1 +- {args.tolerance}")
    sys.exit(1)
print("within tolerance")
for segment in profile["segments"]:
    for field in ("forward_flops", "backward_flops", "forward_bytes", "backward_bytes"):
        by_kind = sum(kind.get(field, 0) for kind in segment["kinds"].values())
        if by_kind != segment[field]:
            print(f"error: segment {segment['index']}: its kinds' {field} add up to "
                  f"{by_kind}, the segment's is {segment[field]}")
            sys.exit(1)
print(f"kinds add up in all {len(profile['segments'])} segments")
