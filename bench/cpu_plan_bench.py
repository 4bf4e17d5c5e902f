#!/usr/bin/python3
"""The planner's prediction against a measured step on this CPU: the cores as the
devices of a cluster (a custom type whose peak and memory bandwidth are measured here),
a plan for it from `hetc plan`, and the same plan compiled and trained by `hetrun` with
its ranks as threads, one core each. Prints figures; checks nothing.

Calibration: the type's `efficiency` (the fraction of its peak it reaches) is fitted
first on another layout, one core training the whole batch, until `hetc plan --plan`
predicts that run's measured step; the plan the search then chooses for all the cores
is predicted with it and measured.

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


def cluster_yaml(core, ranks, efficiency):
    return (f"name: this-cpu\n"
            f"nodes:\n"
            f"  - name: host\n"
            f"    gpus:\n"
            f"      - {{type: cpu-core, count: {ranks}, memory_GB: 4, "
            f"fp32_TFLOPS: {core['tflops']:.4f}, bandwidth_GBps: {core['bandwidth_GBps']:.1f}, "
            f"efficiency: {efficiency:.4f}}}\n"
            f"    intra_node: {{kind: pcie, bandwidth_GBps: {core['bandwidth_GBps'] / 2:.1f}, "
            f"latency_us: 5}}\n")


HEADLINE = re.compile(r"^(?:search|plan \S+): (\d+) stages, (\d+) ranks, "
                      r"predicted step ([\d.]+) ms", re.M)


def predicted(output):
    match = HEADLINE.search(output)
    if not match:
        raise SystemExit(f"cpu_plan_bench: no prediction in hetc plan's output:\n{output}")
    return int(match[1]), int(match[2]), float(match[3])


def measured_ms(hetrun, pkg, data, steps, warmup, metrics):
    run([hetrun, pkg, "--data", data, "--steps", str(steps), "--threads", "1",
         "--metrics", metrics])
    times = [json.loads(x)["step_ms"] for x in open(metrics) if x.strip()]
    return statistics.median(times[warmup:])


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

    def write_cluster(efficiency):
        with open(cluster, "w") as f:
            f.write(cluster_yaml(core, args.ranks, efficiency))

    def compile_and_run(plan, name):
        pkg = os.path.join(work, f"{name}.hetpkg")
        run([hetc, "compile", args.onnx, "-o", pkg, *shape, "--optimizer", "adamw",
             "--lr", "1e-3", "--cluster", cluster, "--plan", plan])
        return measured_ms(hetrun, pkg, data, args.steps, args.warmup,
                           os.path.join(work, f"{name}.jsonl"))

    # Calibrate on one core training the whole batch.
    efficiency = 0.4
    write_cluster(efficiency)
    segments = int(re.search(r": (\d+) segments;", run(
        [hetc, "plan", args.onnx, "--cluster", cluster, *shape]))[1])
    one = os.path.join(work, "one-core.json")
    with open(one, "w") as f:
        json.dump({"stages": [{"segments": [0, segments], "replicas": [
            {"device": "host/cpu-core:0", "samples": [0, args.batch]}]}]}, f)
    one_measured = compile_and_run(one, "one-core")
    for _ in range(4):  # compute scales with 1/efficiency, memory traffic does not
        _, _, one_predicted = predicted(run([hetc, "plan", args.onnx, "--cluster", cluster,
                                            *shape, "--plan", one]))
        efficiency = min(1.0, efficiency * one_predicted / one_measured)
        write_cluster(efficiency)

    plan = os.path.join(work, "cpu-plan.json")
    stages, ranks, planned = predicted(run([hetc, "plan", args.onnx, "--cluster", cluster,
                                            *shape, "-o", plan]))
    measured = compile_and_run(plan, "cpu-plan")
    print(f"core: {core['tflops'] * 1e3:.1f} GFLOP/s float32 (numpy BLAS, 1 thread), "
          f"{core['bandwidth_GBps']:.1f} GB/s copy; efficiency {efficiency:.3f} fitted to "
          f"one core's whole batch ({one_measured:.1f} ms)")
    print(f"{'model':<14} {'B x T':>8} {'plan':>22} {'predicted ms':>12} {'measured ms':>11} "
          f"{'measured/predicted':>18}")
    name = os.path.splitext(os.path.basename(args.onnx))[0]
    layout = f"{stages} stages, {ranks} ranks"
    print(f"{name:<14} {f'{args.batch}x{args.seq}':>8} {layout:>22} {planned:>12.3f} "
          f"{measured:>11.3f} {measured / planned:>18.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
