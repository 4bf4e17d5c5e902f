#!/usr/bin/python3
"""CPU benchmark of hetc: training step time of `hetrun` against PyTorch on CPU, and the
time and memory of `hetc compile` / `hetc profile` on GPT-2 124M. Prints figures; it is
not a test (nothing is checked against a threshold). See docs/performance.md.

    cpu_bench.py --bin BUILD/bin [--threads 1,2] [--steps K] [--warmup W]
                 [--no-small] [--no-large] [--no-plan] [--no-124m] [--keep DIR]

Step times: each model is compiled with `hetc compile --global-batch B --seq T
--optimizer adamw --lr 1e-3` and trained `--steps K` with `hetrun --threads N --metrics`;
the same steps on the same tokens are timed in PyTorch with models/reference_train.py
(same model, parameters, batches, AdamW, torch.set_num_threads(N) and OpenBLAS limited to
N threads too, which torch.set_num_threads does not do). Each side's figure is
the median of the per-step wall times after the first W steps. The ratio is torch/hetrun:
above 1 means hetrun is faster. "loss diff" is the largest difference of the per-step
losses of the two runs, a check that both trained the same thing.

Then the planner against this CPU (bench/cpu_plan_bench.py): gpt2-small planned by
`hetc plan` for a cluster of this machine's cores (peak and bandwidth measured here),
compiled with that plan and trained with its ranks as threads; predicted against
measured step time.
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(ROOT, "models")
FIXTURES = os.path.join(MODELS, "fixtures")
PY = sys.executable or "/usr/bin/python3"

# name, ONNX path (None: exported into the temp dir), export args, batch, seq, vocab, size
TINY = [
    ("gpt2-tiny", os.path.join(FIXTURES, "gpt2-tiny-op17.onnx"), None, 8, 16, 256, "tiny"),
    ("llama-tiny", os.path.join(FIXTURES, "llama-tiny-op17.onnx"), None, 8, 16, 256, "tiny"),
    ("bert-tiny", os.path.join(FIXTURES, "bert-tiny-op17.onnx"), None, 8, 16, 256, "tiny"),
]
SMALL = ("gpt2-small", None, ["--family", "gpt2", "--config", "small", "--seq", "128",
                              "--opset", "17"], 8, 128, 4096, "small")
# d 768, 12 layers, T 256: where the matrix products dominate.
LARGE = ("gpt2-large", None, ["--family", "gpt2", "--config", "bench-large", "--seq", "256",
                              "--opset", "17"], 4, 256, 4096, "large")


def run(cmd, **kw):
    """Run cmd; on failure print its output and raise."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        raise SystemExit(f"bench: failed ({p.returncode}): {' '.join(cmd)}")
    return p.stdout


def machine_line():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    mem = meminfo_kb().get("MemTotal", 0) / 2**20
    return (f"machine: {platform.node()}, nproc {os.cpu_count()}, {cpu}, {mem:.0f} GiB RAM, "
            f"load average {load} (at start)")


def meminfo_kb():
    out = {}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                key, _, rest = line.partition(":")
                out[key] = int(rest.split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return out


def hetrun_times(bin_dir, pkg, data, steps, threads, work):
    metrics = os.path.join(work, f"m-{os.path.basename(pkg)}-t{threads}.jsonl")
    run([os.path.join(bin_dir, "hetrun"), pkg, "--data", data, "--steps", str(steps),
         "--threads", str(threads), "--metrics", metrics])
    rows = [json.loads(line) for line in open(metrics) if line.strip()]
    return [r["step_ms"] for r in rows], [r["loss"] for r in rows]


def torch_times(onnx, data, batch, seq, steps, threads, work):
    out = os.path.join(work, f"ref-{os.path.basename(onnx)}-t{threads}")
    times = out + ".times.json"
    # torch.set_num_threads does not reach OpenBLAS's own thread pool, which
    # torch's matrix products use: without these, "1 thread" runs them on
    # every core.
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    run([PY, os.path.join(MODELS, "reference_train.py"), onnx, "--data", data,
         "--global-batch", str(batch), "--seq", str(seq), "--steps", str(steps),
         "--optimizer", "adamw", "--lr", "1e-3", "--threads", str(threads),
         "--out", out, "--step-times", times], env=env)
    losses = json.load(open(os.path.join(out, "losses.json")))
    return json.load(open(times)), losses


def step_bench(args, work):
    models = (list(TINY) + ([] if args.no_small else [SMALL]) +
              ([] if args.no_large else [LARGE]))
    steps_of = {"tiny": (args.steps, args.warmup), "small": (args.steps_small, args.warmup),
                "large": (args.steps_large, args.warmup_large)}
    print(f"\n== training step time, AdamW lr 1e-3, median of steps after the first "
          f"{args.warmup} ({args.warmup_large} for {LARGE[0]}) ==")
    header = (f"{'model':<11} {'B x T':>8} {'threads':>7} {'hetrun ms/step':>14} "
              f"{'torch ms/step':>13} {'torch/hetrun':>12} {'loss diff':>9}")
    print(header)
    print("-" * len(header))
    sys.stdout.flush()
    for name, onnx, export_args, batch, seq, vocab, size in models:
        steps, warmup = steps_of[size]
        if onnx is None:
            onnx = os.path.join(work, f"{name}.onnx")
            run([PY, os.path.join(MODELS, "export.py"), *export_args, "--out", onnx])
        pkg = os.path.join(work, f"{name}.hetpkg")
        run([os.path.join(args.bin, "hetc"), "compile", onnx, "-o", pkg,
             "--global-batch", str(batch), "--seq", str(seq), "--optimizer", "adamw",
             "--lr", "1e-3"])
        data = os.path.join(work, f"tokens-{vocab}.bin")
        if not os.path.exists(data):
            run([PY, os.path.join(MODELS, "make_tokens.py"), data, "--tokens", "262144",
                 "--vocab", str(vocab)])
        for threads in args.threads:
            h, hl = hetrun_times(args.bin, pkg, data, steps, threads, work)
            t, tl = torch_times(onnx, data, batch, seq, steps, threads, work)
            hm = statistics.median(h[warmup:])
            tm = statistics.median(t[warmup:])
            diff = max((abs(a - b) for a, b in zip(hl, tl) if a is not None), default=float("nan"))
            print(f"{name:<11} {f'{batch}x{seq}':>8} {threads:>7} {hm:>14.3f} {tm:>13.3f} "
                  f"{tm / hm:>12.2f} {diff:>9.1e}")
            sys.stdout.flush()


def plan_bench(args, work):
    name, _, export_args, batch, seq, vocab, _ = SMALL
    onnx = os.path.join(work, f"{name}.onnx")
    if not os.path.exists(onnx):
        run([PY, os.path.join(MODELS, "export.py"), *export_args, "--out", onnx])
    print("\n== the planner's predicted step against hetrun's on this CPU "
          "(bench/cpu_plan_bench.py) ==")
    sys.stdout.flush()
    import cpu_plan_bench  # beside this script
    cpu_plan_bench.main(["--bin", args.bin, "--onnx", onnx, "--batch", str(batch),
                         "--seq", str(seq), "--vocab", str(vocab),
                         "--work", os.path.join(work, "plan")])
    sys.stdout.flush()


def timed(cmd):
    """Run cmd under /usr/bin/time -v: (seconds, peak RSS in MiB, output)."""
    p = subprocess.run(["/usr/bin/time", "-v", *cmd], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        raise SystemExit(f"bench: failed ({p.returncode}): {' '.join(cmd)}")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stdout)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", p.stdout)
    secs = 0.0
    for part in wall.group(1).split(":"):
        secs = secs * 60 + float(part)
    return secs, int(rss.group(1)) / 1024, p.stdout


def compile_bench(args, work):
    print("\n== hetc compile / profile of GPT-2 124M (seq 1024) ==")
    need_gib = 6
    avail = meminfo_kb().get("MemAvailable", 0) / 2**20
    if avail < need_gib:
        print(f"skipped: {avail:.1f} GiB of memory available, the export and compile need "
              f"about {need_gib} GiB")
        return
    if not os.path.exists("/usr/bin/time"):
        print("skipped: /usr/bin/time is missing (apt-get install time)")
        return
    onnx = os.path.join(work, "gpt2-124m.onnx")
    t0 = time.perf_counter()
    run([PY, os.path.join(MODELS, "export.py"), "--family", "gpt2", "--config", "124m",
         "--seq", "1024", "--opset", "17", "--out", onnx])
    print(f"export (models/export.py, not hetc): {time.perf_counter() - t0:.1f} s, "
          f"{os.path.getsize(onnx) / 2**20:.0f} MiB .onnx")
    hetc = os.path.join(args.bin, "hetc")
    pkg = os.path.join(work, "gpt2-124m.hetpkg")
    rows = [
        ("hetc compile --global-batch 8 --seq 1024 --optimizer adamw",
         [hetc, "compile", onnx, "-o", pkg, "--global-batch", "8", "--seq", "1024",
          "--optimizer", "adamw"]),
        ("hetc profile --seq 1024",
         [hetc, "profile", onnx, "--seq", "1024"]),
    ]
    print(f"{'command':<58} {'wall s':>7} {'peak RSS MiB':>12}")
    for label, cmd in rows:
        secs, rss, _ = timed(cmd)
        print(f"{label:<58} {secs:>7.2f} {rss:>12.0f}")
        sys.stdout.flush()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="folder with hetc and hetrun")
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--steps", type=int, default=60, help="steps per run of the tiny models")
    ap.add_argument("--steps-small", type=int, default=20, help="steps per run of gpt2-small")
    ap.add_argument("--steps-large", type=int, default=6,
                    help=f"steps per run of {LARGE[0]} (d 768, 12 layers, seq 256)")
    ap.add_argument("--warmup", type=int, default=5, help="leading steps left out of the median")
    ap.add_argument("--warmup-large", type=int, default=2,
                    help=f"leading steps of {LARGE[0]} left out of the median")
    ap.add_argument("--no-small", action="store_true", help="skip gpt2-small (seq 128)")
    ap.add_argument("--no-large", action="store_true", help=f"skip {LARGE[0]} (seq 256)")
    ap.add_argument("--no-plan", action="store_true",
                    help="skip the planner's prediction against a measured CPU plan")
    ap.add_argument("--no-124m", action="store_true", help="skip the GPT-2 124M compile")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (default: a temp dir)")
    args = ap.parse_args(argv)
    args.threads = [int(x) for x in args.threads.split(",") if x]
    if min(args.steps, args.steps_small) <= args.warmup:
        ap.error("--steps and --steps-small must exceed --warmup")
    if args.steps_large <= args.warmup_large:
        ap.error("--steps-large must exceed --warmup-large")

    print(machine_line())
    print(f"torch: {run([PY, '-c', 'import torch; print(torch.__version__)']).strip()}, "
          f"python {PY}")
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        work = args.keep
    else:
        work = tempfile.mkdtemp(prefix="hetc-bench-")
    try:
        step_bench(args, work)
        if not args.no_plan:
            plan_bench(args, work)
        if not args.no_124m:
            compile_bench(args, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
