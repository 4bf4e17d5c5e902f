#!/usr/bin/python3
"""The planner's prediction against a measured step on this CPU: the cores as the
devices of a cluster (a custom type whose peak and memory bandwidth are measured here),
a plan for it from `hetc plan`, and the same plan compiled and trained by `hetrun` with
its ranks as threads, one core each. Prints figures; checks nothing.

Measurement: first one core trains the whole batch, in one micro-batch and in two,
under `hetrun --profile`, on every core at once (one such run per core: the cores share
caches and memory bandwidth, so a core is measured as busy as a plan over all of them
keeps it); `hetc measure` turns the traces into a measured profile (seconds per
segment's forward and backward per micro-batch size). The plan the search then chooses
for all the cores with those profiles (`hetc plan --profile`) is predicted and
measured, and so is a pipeline of two cores (half the segments each, two micro-batches
under 1F1B), which checks the simulator's schedule, sends and bubble. Each plan is also
predicted without the profiles ("unmeasured": the roofline per op of the core's peak and
bandwidth).

    cpu_plan_bench.py --bin BUILD/bin --onnx MODEL.onnx --batch B --seq T --vocab V
                      [--ranks N] [--steps K] [--warmup W] [--work DIR]

The core's figures: a single-threaded 1024^3 float32 matrix product through numpy's
BLAS (the peak, TFLOP/s) and a 256 MB copy (bytes read and written per second). The
cluster: one node "host" of N devices "cpu-core" with those figures and memory
bandwidth / 2 between them (ranks as threads copy messages through memory).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_bench import PY, ROOT, run  # noqa: E402

MEASURE = r"""
import json, time, numpy as np
a = np.random.rand(1024, 1024).astype(np.float32)
b = np.random.rand(1024, 1024).astype(np.float32)
a @ b
runs = []
for _ in range(5):
    t = time.perf_counter(); a @ b; runs.append(time.perf_counter() - t)
flops = 2 * 1024 ** 3 / min(runs)
x = np.random.rand(64 << 20).astype(np.float32)
y = np.empty_like(x)
np.copyto(y, x)
runs = []
for _ in range(5):
    t = time.perf_counter(); np.copyto(y, x); runs.append(time.perf_counter() - t)
print(json.dumps({"tflops": flops / 1e12, "bandwidth_GBps": 2 * x.nbytes / min(runs) / 1e9}))
"""


def measure_core():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return json.loads(run([PY, "-c", MEASURE], env=env).strip().splitlines()[-1])


def cluster_yaml(core, ranks):
    return (f"name: this-cpu\n"
            f"nodes:\n"
            f"  - name: host\n"
            f"    gpus:\n"
            f"      - {{type: cpu-core, count: {ranks}, memory_GB: 4, "
            f"fp32_TFLOPS: {core['tflops']:.4f}, bandwidth_GBps: {core['bandwidth_GBps']:.1f}}}\n"
            f"    intra_node: {{kind: pcie, bandwidth_GBps: {core['bandwidth_GBps'] / 2:.1f}, "
            f"latency_us: 5}}\n")


HEADLINE = re.compile(r"^(?:search|plan \S+): (\d+) stages, (\d+) ranks, "
                      r"predicted step ([\d.]+) ms", re.M)


def predicted(output):
    match = HEADLINE.search(output)
    if not match:
        raise SystemExit(f"cpu_plan_bench: no prediction in hetc plan's output:\n{output}")
    return int(match[1]), int(match[2]), float(match[3])


def hetrun_command(hetrun, pkg, data, steps, metrics, profile=None):
    return [hetrun, pkg, "--data", data, "--steps", str(steps), "--threads", "1",
            "--metrics", metrics, *(["--profile", profile] if profile else [])]


def median_step_ms(metrics, warmup):
    times = [json.loads(x)["step_ms"] for x in open(metrics) if x.strip()]
    return statistics.median(times[warmup:])


def run_all(commands):
    """Runs the commands at once; fails if any does."""
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for c in commands]
    for c, p in zip(commands, procs):
        out = p.communicate()[0]
        if p.returncode != 0:
            sys.stdout.write(out)
            raise SystemExit(f"cpu_plan_bench: failed ({p.returncode}): {' '.join(c)}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--onnx", required=True)
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--seq", type=int, required=True)
    ap.add_argument("--vocab", type=int, required=True)
    ap.add_argument("--ranks", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--work", help="scratch folder (default: a temporary one)")
    args = ap.parse_args(argv)
    work = args.work or tempfile.mkdtemp(prefix="hetc-plan-bench-")
    os.makedirs(work, exist_ok=True)
    hetc, hetrun = os.path.join(args.bin, "hetc"), os.path.join(args.bin, "hetrun")

    core = measure_core()
    cluster = os.path.join(work, "this-cpu.yaml")
    shape = ["--global-batch", str(args.batch), "--seq", str(args.seq)]
    data = os.path.join(work, f"tokens-{args.vocab}.bin")
    if not os.path.exists(data):
        run([PY, os.path.join(ROOT, "models", "make_tokens.py"), data, "--tokens", "262144",
             "--vocab", str(args.vocab)])

    with open(cluster, "w") as f:
        f.write(cluster_yaml(core, args.ranks))

    def compile_plan(plan, name):
        pkg = os.path.join(work, f"{name}.hetpkg")
        run([hetc, "compile", args.onnx, "-o", pkg, *shape, "--optimizer", "adamw",
             "--lr", "1e-3", "--cluster", cluster, "--plan", plan])
        return pkg

    # Measure one core training the whole batch in one and in two micro-batches.
    segments = int(re.search(r": (\d+) segments;", run(
        [hetc, "plan", args.onnx, "--cluster", cluster, *shape]))[1])
    profiles, one_core = [], []
    for micro in sorted({args.batch, max(1, args.batch // 2)}):
        name = f"one-core-micro{micro}"
        one = os.path.join(work, f"{name}.json")
        with open(one, "w") as f:
            json.dump({"stages": [{"segments": [0, segments], "replicas": [
                {"device": "host/cpu-core:0", "samples": [0, args.batch],
                 "micro_batch": micro}]}]}, f)
        pkg = compile_plan(one, name)
        copies = [os.path.join(work, f"{name}.core{c}") for c in range(args.ranks)]
        run_all([hetrun_command(hetrun, pkg, data, args.steps, f"{c}.jsonl",
                                f"{c}.trace.json") for c in copies])
        profiles.append(os.path.join(work, f"{name}.profile.json"))
        run([hetc, "measure", pkg, *[f"{c}.trace.json" for c in copies], "--cluster",
             cluster, "--warmup-steps", str(args.warmup), "-o", profiles[-1]])
        ms = statistics.mean(median_step_ms(f"{c}.jsonl", args.warmup) for c in copies)
        one_core.append(f"{ms:.1f} ms at micro-batch {micro}")

    profile = ",".join(profiles)

    def predict_and_measure(plan, name, choose):
        """The plan's predicted and measured step (ms); `choose`: the search
        writes `plan`, else `plan` is given."""
        given = ["-o", plan] if choose else ["--plan", plan]
        stages, ranks, planned = predicted(run([hetc, "plan", args.onnx, "--cluster", cluster,
                                                *shape, "--profile", profile, *given]))
        # The same plan without the measurements: the roofline per op of the
        # core's peak and bandwidth.
        roofline = predicted(run([hetc, "plan", args.onnx, "--cluster", cluster, *shape,
                                  "--plan", plan]))[2]
        metrics = os.path.join(work, f"{name}.jsonl")
        run(hetrun_command(hetrun, compile_plan(plan, name), data, args.steps, metrics))
        return (f"{stages} stages, {ranks} ranks", planned, roofline,
                median_step_ms(metrics, args.warmup))

    rows = [predict_and_measure(os.path.join(work, "cpu-plan.json"), "cpu-plan", True)]
    # A pipeline of the first two cores, half the segments each, two micro-batches
    # of the measured size under 1F1B: the simulator's schedule, its sends and its
    # bubble against the runtime's.
    if args.ranks >= 2:
        pipeline = os.path.join(work, "cpu-pipeline.json")
        micro = max(1, args.batch // 2)
        with open(pipeline, "w") as f:
            json.dump({"global_batch": args.batch, "schedule": "1f1b", "stages": [
                {"segments": segment_range, "replicas": [
                    {"device": f"host/cpu-core:{s}", "samples": [0, args.batch],
                     "micro_batch": micro}]}
                for s, segment_range in enumerate([[0, (segments + 1) // 2],
                                                   [(segments + 1) // 2, segments]])]}, f)
        layout, planned, roofline, measured = predict_and_measure(pipeline, "cpu-pipeline",
                                                                  False)
        rows.append((f"{layout} (pipeline)", planned, roofline, measured))
    print(f"core: {core['tflops'] * 1e3:.1f} GFLOP/s float32 (numpy BLAS, 1 thread), "
          f"{core['bandwidth_GBps']:.1f} GB/s copy; measured profile of one core's whole "
          f"batch, every core at once: {', '.join(one_core)}")
    print(f"{'model':<14} {'B x T':>8} {'plan':>33} {'predicted ms':>12} {'measured ms':>11} "
          f"{'measured/predicted':>18} {'unmeasured ms':>13} {'measured/unmeasured':>19}")
    name = os.path.splitext(os.path.basename(args.onnx))[0]
    for layout, planned, roofline, measured in rows:
        print(f"{name:<14} {f'{args.batch}x{args.seq}':>8} {layout:>33} {planned:>12.3f} "
              f"{measured:>11.3f} {measured / planned:>18.2f} {roofline:>13.3f} "
              f"{measured / roofline:>19.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
