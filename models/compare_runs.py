#!/usr/bin/python3
"""Compare a training run against a reference run (models/reference_train.py): the
per-step losses and the final parameters, optionally the optimizer state.

    compare_runs.py --reference DIR [--reference-metrics FILE.jsonl]
                    --candidate DIR [--metrics FILE.jsonl]
                    --loss-rtol X --param-rtol Y [--param-atol Z]
                    [--state-rtol S [--state-atol A]] [--show N]

The reference may also be another hetrun run (--save DIR, with its --metrics file as
--reference-metrics): a distributed run against the single-device run.

Losses: the reference's DIR/losses.json (or --reference-metrics) against the candidate's --metrics file (one JSON
object per step with `step` and `loss`; steps consecutive, counted from 0 or 1), or else
the candidate's DIR/losses.json. Per step: error = |cand - ref| / |ref| <= X.

Parameters: DIR/params.safetensors of both; the tensor names must match exactly, with
the same shapes. Per element: error = |cand - ref| / max(|ref|, Z) <= Y; Z (default
1e-3) is a floor under |ref| so that elements near zero (biases after a few steps) are
compared against the tensor's scale, not their own tiny value -- near zero the allowed
difference is Y*Z. Non-finite values fail unless both sides hold the same value.

Optimizer state (with --state-rtol, when the reference has one -- AdamW):
DIR/optimizer.safetensors of both, the same names (`<param>.adam_m`, `<param>.adam_v`,
`optimizer.step`), compared like the parameters with floor A -- A**2 for the
second moments `*.adam_v`, which hold squared gradients -- and integers exactly.

With --zero-grad-rms X (and a reference holding AdamW state), elements whose
reference second moment has sqrt(<param>.adam_v) < X -- a gradient that is zero up to
rounding -- are left out of the parameter and state comparisons, and counted: AdamW
divides each gradient by its own RMS, so any float32 code turns such a gradient into
steps of sign(noise) x lr (attention's key biases have an exactly zero gradient).

Prints a summary and the worst tensors (tensor, index, values) and exits 0 when all
match, 1 on a mismatch, 2 when an input is missing or unreadable.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402


class InputError(Exception):
    pass


def load_losses_json(path):
    try:
        with open(path) as f:
            values = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise InputError(f"cannot read losses from {path}: {e}") from None
    if not isinstance(values, list) or not all(isinstance(v, (int, float)) for v in values):
        raise InputError(f"{path}: expected a JSON list of numbers")
    return [float(v) for v in values], f"{path}"


def load_metrics(path):
    records = []
    try:
        with open(path) as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputError(f"{path}:{lineno}: not JSON: {e}") from None
                if isinstance(rec, dict) and "step" in rec and "loss" not in rec \
                        and "val_loss" in rec:
                    continue  # a validation before any step
                if not isinstance(rec, dict) or "step" not in rec or "loss" not in rec:
                    raise InputError(f"{path}:{lineno}: a metrics record needs 'step' and 'loss'")
                loss = float("nan") if rec["loss"] is None else float(rec["loss"])  # null: not finite
                records.append((int(rec["step"]), loss, rec.get("lr")))
    except OSError as e:
        raise InputError(f"cannot read metrics {path}: {e}") from None
    records.sort(key=lambda r: r[0])
    steps = [s for s, _, _ in records]
    if steps and steps != list(range(steps[0], steps[0] + len(steps))):
        raise InputError(f"{path}: steps are not consecutive and unique: {steps}")
    if steps and steps[0] not in (0, 1):
        raise InputError(f"{path}: the first step is {steps[0]}, expected 0 or 1")
    base = f", steps counted from {steps[0]}" if steps else ""
    return [loss for _, loss, _ in records], f"{path}{base}"


def load_metrics_lrs(path):
    """The per-step learning rates of a metrics file (None where a record has none)."""
    records = []
    with open(path) as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                if "loss" in rec:
                    records.append((int(rec["step"]), rec.get("lr")))
    return [lr for _, lr in sorted(records)]


def load_metrics_val_losses(path):
    """{step: val_loss} of the metrics records that have one."""
    found = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                if "val_loss" in rec:
                    found[int(rec["step"])] = rec["val_loss"]
    return found


def compare_val_losses(ref, cand, rtol, out):
    """Per evaluated step: |cand - ref| / |ref| <= rtol; the same steps evaluated."""
    ref = {int(k): v for k, v in ref.items()}
    if sorted(ref) != sorted(cand):
        return [f"validation: reference evaluated after steps {sorted(ref)}, "
                f"candidate after {sorted(cand)}"]
    fails, worst = [], 0.0
    for step in sorted(ref):
        r, c = ref[step], cand[step]
        e = abs(c - r) / max(abs(r), 1e-300) if c is not None else float("inf")
        worst = max(worst, e)
        if not e <= rtol:
            fails.append(f"val loss after step {step}: reference {r!r}, candidate {c!r}, "
                         f"error {e:.3g} > {rtol:g}")
    out.append(f"validation: {len(ref)} evaluations, worst error {worst:.3g} (rtol {rtol:g})")
    return fails


def compare_lrs(ref, cand, rtol, out):
    """Per step: |cand - ref| / |ref| <= rtol (the schedule, in double)."""
    if len(ref) != len(cand):
        return [f"learning rates: reference has {len(ref)} steps, candidate {len(cand)}"]
    fails, worst = [], 0.0
    for i, (r, c) in enumerate(zip(ref, cand)):
        if c is None:
            fails.append(f"lr of step {i}: the candidate's metrics have none")
            continue
        e = abs(c - r) / max(abs(r), 1e-300)
        worst = max(worst, e)
        if not e <= rtol:
            fails.append(f"lr of step {i}: reference {r!r}, candidate {c!r}, error {e:.3g} > {rtol:g}")
    out.append(f"learning rates: {len(ref)} steps, {min(ref, default=0):.6g} to {max(ref, default=0):.6g}, "
               f"worst error {worst:.3g} (rtol {rtol:g})")
    return fails


def load_tensors(path):
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    try:
        tensors, _ = safetensors_io.read(path)
    except (OSError, safetensors_io.SafetensorsError) as e:
        raise InputError(str(e)) from None
    return tensors


def elementwise_error(ref, cand, floor):
    """|cand - ref| / max(|ref|, floor), float64; 0 where both hold the same value
    (infinities included), inf where only one side is finite or either is NaN."""
    r = ref.astype(np.float64)
    c = cand.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(c - r) / np.maximum(np.abs(r), floor)
    same = (r == c)
    err = np.where(same, 0.0, err)
    return np.where(np.isnan(err) | (~np.isfinite(r) | ~np.isfinite(c)) & ~same, np.inf, err)


def fmt(v):
    return f"{v:.9g}"


def compare_losses(ref, cand, rtol, out):
    fails = []
    n = max(len(ref), len(cand))
    out.append(f"losses: error = |cand - ref| / |ref|, rtol {rtol:g}")
    out.append(f"  {'step':>4}  {'reference':>16}  {'candidate':>16}  {'error':>9}")
    worst = 0.0
    for i in range(n):
        r = ref[i] if i < len(ref) else None
        c = cand[i] if i < len(cand) else None
        if r is None or c is None:
            out.append(f"  {i:>4}  {'-' if r is None else fmt(r):>16}  {'-' if c is None else fmt(c):>16}"
                       f"  {'':>9}  MISSING")
            continue
        if np.isnan(r) and np.isnan(c):
            # Both skipped the step (a non-finite loss).
            out.append(f"  {i:>4}  {'nan':>16}  {'nan':>16}  {'':>9}  both not finite")
            continue
        e = float(elementwise_error(np.array([r]), np.array([c]), 1e-12)[0])
        worst = max(worst, e)
        bad = not e <= rtol
        if bad:
            fails.append(f"loss of step {i}: reference {fmt(r)}, candidate {fmt(c)}, "
                         f"error {e:.3g} > {rtol:g}")
        out.append(f"  {i:>4}  {fmt(r):>16}  {fmt(c):>16}  {e:9.2e}{'  FAIL' if bad else ''}")
    if len(ref) != len(cand):
        fails.insert(0, f"step count differs: reference {len(ref)}, candidate {len(cand)}")
    out.append(f"  worst loss error {worst:.3g}")
    return fails


def zero_gradient_masks(ref_state, threshold):
    """param name -> bool array of the elements whose reference gradient RMS,
    sqrt(<param>.adam_v), is below `threshold`."""
    return {name[:-len(".adam_v")]: np.sqrt(value.astype(np.float64)) < threshold
            for name, value in ref_state.items() if name.endswith(".adam_v")}


def skip_mask(name, masks):
    """The zero-gradient mask of a parameter or of its .adam_m/.adam_v state."""
    for suffix in ("", ".adam_m", ".adam_v"):
        if suffix == "" or name.endswith(suffix):
            mask = masks.get(name[:len(name) - len(suffix)] if suffix else name)
            if mask is not None:
                return mask
    return None


def compare_tensor_sets(what, ref, cand, rtol, floor, show, out, squared_suffix=None,
                        masks=None):
    """Compares two name -> array maps; returns failure lines. Tensors whose name ends
    with `squared_suffix` hold squares (AdamW's second moment): their floor is floor**2.
    Elements set in `masks` (see zero_gradient_masks) are not compared."""
    fails = []
    skipped = 0
    missing = [n for n in ref if n not in cand]
    extra = [n for n in cand if n not in ref]
    if missing:
        fails.append(f"{what}: {len(missing)} tensors missing from the candidate: {', '.join(missing)}")
    if extra:
        fails.append(f"{what}: {len(extra)} tensors only in the candidate: {', '.join(extra)}")
    rows = []
    total = 0
    for name in ref:
        if name not in cand:
            continue
        r, c = ref[name], cand[name]
        if r.shape != c.shape:
            fails.append(f"{what}: {name}: shape {list(c.shape)}, reference {list(r.shape)}")
            continue
        total += r.size
        if r.size == 0:
            continue
        integer = r.dtype.kind in "iub" and c.dtype.kind in "iub"
        if integer:
            err = np.where(r.astype(np.int64) != c.astype(np.int64), np.inf, 0.0)
        else:
            squared = squared_suffix is not None and name.endswith(squared_suffix)
            err = elementwise_error(r, c, floor * floor if squared else floor)
            mask = skip_mask(name, masks or {})
            if mask is not None and mask.shape == err.shape:
                err = np.where(mask, 0.0, err)
                skipped += int(np.count_nonzero(mask))
        flat = int(np.argmax(err))
        index = np.unravel_index(flat, r.shape) if r.ndim else ()
        worst = float(err.reshape(-1)[flat])
        nbad = int(np.count_nonzero(~(err <= rtol)))
        rows.append((worst, name, list(r.shape), tuple(int(i) for i in index),
                     r.reshape(-1)[flat], c.reshape(-1)[flat], nbad, r.size, float(np.mean(err))
                     if np.all(np.isfinite(err)) else np.inf))
        if nbad:
            fails.append(f"{what}: {name}: {nbad} of {r.size} elements differ; worst at "
                         f"{list(index)}: reference {fmt(r.reshape(-1)[flat])}, candidate "
                         f"{fmt(c.reshape(-1)[flat])}, error {worst:.3g} > {rtol:g}")
    floors = f"{floor:g}" + (f" ({floor * floor:g} for *{squared_suffix})" if squared_suffix else "")
    out.append(f"{what}: error = |cand - ref| / max(|ref|, {floors}), rtol {rtol:g}; "
               f"{len(rows)} tensors, {total - skipped} elements compared"
               + (f", {skipped} with a zero gradient left out" if masks is not None else ""))
    rows.sort(key=lambda row: -row[0])
    shown = [row for row in rows if row[6]] or rows[:show]  # every failing tensor, or the worst
    if shown:
        out.append(f"  {'tensor':<34} {'shape':<12} {'max err':>9} {'mean err':>9} {'bad':>7} "
                   f"{'at':<12} {'reference':>14} {'candidate':>14}")
    for worst, name, shape, index, rv, cv, nbad, size, mean in shown:
        out.append(f"  {name:<34} {str(shape):<12} {worst:9.2e} {mean:9.2e} {nbad:>7} "
                   f"{str(list(index)):<12} {fmt(rv):>14} {fmt(cv):>14}{'  FAIL' if nbad else ''}")
    if rows:
        worst = rows[0]
        out.append(f"  worst: {worst[1]}{list(worst[3])} error {worst[0]:.3g} "
                   f"(reference {fmt(worst[4])}, candidate {fmt(worst[5])})")
    return fails


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reference", required=True, help="reference run folder (reference_train.py --out)")
    ap.add_argument("--candidate", required=True, help="candidate run folder (hetrun --save)")
    ap.add_argument("--metrics", help="candidate metrics JSONL (default: candidate/losses.json)")
    ap.add_argument("--reference-metrics",
                    help="reference metrics JSONL, for a reference that is a hetrun run "
                         "(default: reference/losses.json)")
    ap.add_argument("--loss-rtol", type=float, required=True)
    ap.add_argument("--param-rtol", type=float, required=True)
    ap.add_argument("--param-atol", type=float, default=1e-3,
                    help="floor under |ref| in the parameters' relative error (default 1e-3)")
    ap.add_argument("--state-rtol", type=float, help="also compare optimizer.safetensors")
    ap.add_argument("--state-atol", type=float, default=1e-3,
                    help="floor under |ref| for the optimizer state (default 1e-3; squared for *.adam_v)")
    ap.add_argument("--zero-grad-rms", type=float,
                    help="leave out elements whose reference gradient RMS is below this "
                         "(AdamW runs: needs the reference's optimizer state)")
    ap.add_argument("--lr-rtol", type=float,
                    help="also compare the reference's lrs.json with the metrics' per-step lr")
    ap.add_argument("--val-rtol", type=float,
                    help="also compare the reference's val_losses.json with the metrics' val_loss")
    ap.add_argument("--show", type=int, default=8, help="worst tensors to list when all pass")
    args = ap.parse_args(argv)
    for name in ("loss_rtol", "param_rtol", "param_atol", "state_atol"):
        if getattr(args, name) < 0:
            ap.error(f"--{name.replace('_', '-')} must be >= 0")

    out, fails = [], []
    try:
        if args.reference_metrics:
            ref_losses, ref_src = load_metrics(args.reference_metrics)
        else:
            ref_losses, ref_src = load_losses_json(os.path.join(args.reference, "losses.json"))
        if args.metrics:
            cand_losses, cand_src = load_metrics(args.metrics)
        else:
            cand_losses, cand_src = load_losses_json(os.path.join(args.candidate, "losses.json"))
        if args.lr_rtol is not None:
            if not args.metrics:
                raise InputError("--lr-rtol needs the candidate's --metrics")
            ref_lrs, _ = load_losses_json(os.path.join(args.reference, "lrs.json"))
            cand_lrs = load_metrics_lrs(args.metrics)
        if args.val_rtol is not None:
            if not args.metrics:
                raise InputError("--val-rtol needs the candidate's --metrics")
            path = os.path.join(args.reference, "val_losses.json")
            try:
                with open(path) as f:
                    ref_val = json.load(f)
            except (OSError, json.JSONDecodeError) as e:
                raise InputError(f"cannot read validation losses from {path}: {e}") from None
            cand_val = load_metrics_val_losses(args.metrics)
        ref_params = load_tensors(os.path.join(args.reference, "params.safetensors"))
        cand_params = load_tensors(os.path.join(args.candidate, "params.safetensors"))
        compare_state = args.state_rtol is not None and \
            os.path.exists(os.path.join(args.reference, "optimizer.safetensors"))
        if compare_state:
            ref_state = load_tensors(os.path.join(args.reference, "optimizer.safetensors"))
            cand_state = load_tensors(os.path.join(args.candidate, "optimizer.safetensors"))
    except InputError as e:
        print(f"compare_runs: error: {e}", file=sys.stderr)
        return 2

    out.append(f"reference: {args.reference} (losses {ref_src})")
    out.append(f"candidate: {args.candidate} (losses {cand_src})")
    masks = None
    if args.zero_grad_rms is not None:
        if not compare_state:
            print("compare_runs: error: --zero-grad-rms needs --state-rtol and a reference "
                  "with optimizer state (AdamW)", file=sys.stderr)
            return 2
        masks = zero_gradient_masks(ref_state, args.zero_grad_rms)
    fails += compare_losses(ref_losses, cand_losses, args.loss_rtol, out)
    if args.lr_rtol is not None:
        fails += compare_lrs(ref_lrs, cand_lrs, args.lr_rtol, out)
    if args.val_rtol is not None:
        fails += compare_val_losses(ref_val, cand_val, args.val_rtol, out)
    fails += compare_tensor_sets("params", ref_params, cand_params, args.param_rtol,
                                 args.param_atol, args.show, out, masks=masks)
    if compare_state:
        fails += compare_tensor_sets("optimizer state", ref_state, cand_state, args.state_rtol,
                                     args.state_atol, args.show, out, squared_suffix=".adam_v",
                                     masks=masks)
    elif args.state_rtol is not None:
        out.append("optimizer state: not compared (the reference has no optimizer.safetensors: SGD)")
    else:
        out.append("optimizer state: not compared (no --state-rtol)")
    print("\n".join(out))
    if fails:
        print(f"FAIL: {len(fails)} mismatches")
        for line in fails:
            print(f"  {line}")
        return 1
    print(f"PASS: {len(ref_losses)} losses and {len(ref_params)} parameter tensors match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
