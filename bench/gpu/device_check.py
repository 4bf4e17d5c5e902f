#!/usr/bin/env python3
"""The device check of hetc's CUDA backend: one command on a bare GPU machine (CUDA,
PyTorch, CMake; no MLIR, no network) that runs every part within a time budget and
writes its results to a folder. bench/gpu/device-check.sh runs it; the folder
bench/gpu/device-prepare.sh wrote on the build machine is its input. Parts, in order:

  env        the GPU, driver, CUDA, torch; where cudart, cuBLASLt and NCCL are
  tests      every CUDA gtest (hetc-cuda-kernel-tests, hetc-cuda-exec-tests), one
             process per test suite so that a crash loses one suite
  e2e        the fixtures trained on the GPU against their CPU runs
             (test/gpu/gpu-e2e.sh check: f32, plans with --share-gpu, bf16)
  sized      a GPT-2-small-sized model (12 blocks of d768): the CPU backend and the
             CUDA backend on the same weights; f32 losses within 1e-4 relative,
             bf16 within 2% of the f32 CPU losses
  bench      GPT-2 124M and 350M at T = 1024, bf16: hetrun vs PyTorch eager vs
             torch.compile, tokens/s and MFU (bench/gpu_bench.py)
  hetero     the demo-box plan with --share-gpu: measured step vs the planner's
  profile    one hetrun step of GPT-2 124M under Nsight Compute: time per kernel
  kernels    the CUDA kernel benchmark (hetc-cuda-kernel-bench: GEMMs, attention,
             norms, AdamW on GPT-2 shapes), and where Nsight Compute is, its detailed
             sections for one launch of each attention kernel
  trace      GPT-2 124M under hetrun --profile (CUDA events on the rank's stream):
             the trace, for Perfetto and for `hetc measure` on the build machine
  sanitizer  the CUDA gtests again under compute-sanitizer memcheck, with what time
             is left

A part that fails says why and the rest go on; a part that would start with too
little of the budget left is skipped and says so. Results: OUT/summary.md (the
one-screen summary, also printed), OUT/results.json, OUT/log.txt (every command's
output), OUT/bench.json, OUT/kernels-*.csv, OUT/kernel-bench.txt,
OUT/attention-ncu.txt and OUT/trace-*.json.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = sys.executable or "python3"
CUDA_LIBRARIES = ("libcudart.so.13", "libcublasLt.so.13", "libnccl.so.2")
GTESTS = ("hetc-cuda-kernel-tests", "hetc-cuda-exec-tests")
KERNEL_BENCH = "hetc-cuda-kernel-bench"
# The kernels whose launches the kernels part details under Nsight Compute.
DETAILED_KERNELS = ("attentionForwardMma", "attentionBackwardKeysMma",
                    "attentionBackwardQueriesMma")
F32_LOSS_RTOL = 1e-4
LOW_PRECISION_LOSS_RTOL = 0.02  # docs/user-guide.md, "Mixed precision"


class Check:
    def __init__(self, args):
        self.args = args
        self.start = time.monotonic()
        self.out = args.out
        self.log = open(os.path.join(self.out, "log.txt"), "w")
        self.results = {"parts": {}, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                             time.gmtime())}
        self.env = dict(os.environ)
        self.bin = None

    def left(self):
        return self.args.budget - (time.monotonic() - self.start)

    def say(self, text):
        line = f"device-check [{time.monotonic() - self.start:5.0f} s] {text}"
        print(line, flush=True)
        self.log.write(line + "\n")
        self.log.flush()

    def run(self, cmd, timeout, cwd=None):
        """(exit code or None on timeout, output); the output goes to log.txt."""
        timeout = max(1, min(timeout, self.left()))
        self.log.write(f"\n$ {' '.join(cmd)}\n")
        self.log.flush()
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, errors="replace", timeout=timeout, env=self.env,
                               cwd=cwd or ROOT)
            code, out = p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            code = None
            out += f"\n(stopped after {timeout:.0f} s)\n"
        except OSError as e:
            code, out = 127, f"cannot run {cmd[0]}: {e}\n"
        self.log.write(out)
        self.log.flush()
        return code, out

    def part(self, name, needs, function):
        """Runs one part if `needs` seconds are left; records its result."""
        if self.left() < needs:
            result = {"status": "skipped", "message": f"{self.left():.0f} s of the budget "
                                                      f"left, the part needs {needs} s"}
        else:
            self.say(f"{name} ...")
            began = time.monotonic()
            try:
                result = function()
            except Exception as e:  # a broken part must not stop the others
                result = {"status": "failed", "message": f"{type(e).__name__}: {e}"}
            result["seconds"] = round(time.monotonic() - began, 1)
        self.results["parts"][name] = result
        self.say(f"{name}: {result['status']} {result.get('message', '')}".rstrip())
        self.write_results()

    def write_results(self):
        with open(os.path.join(self.out, "results.json"), "w") as f:
            json.dump(self.results, f, indent=1)


def first_lines(text, n=3):
    return "; ".join(x.strip() for x in text.strip().splitlines()[:n])


def last_lines(text, n=3):
    return "; ".join(x.strip() for x in text.strip().splitlines()[-n:])


# ------------------------------------------------------------------------------ env

def find_cuda_library_dirs():
    """Folders holding cudart, cuBLASLt and NCCL: the CUDA toolkit's, else the pip
    packages PyTorch brings (nvidia/*/lib)."""
    roots = ["/usr/local/cuda/lib64", "/usr/local/cuda/lib",
             "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/lib/x86_64-linux-gnu"]
    for site in sys.path:
        roots += glob.glob(os.path.join(site, "nvidia", "*", "lib"))
    dirs = []
    for name in CUDA_LIBRARIES:
        found = next((d for d in roots if os.path.exists(os.path.join(d, name))), None)
        if found and found not in dirs:
            dirs.append(found)
    missing = [n for n in CUDA_LIBRARIES
               if not any(os.path.exists(os.path.join(d, n)) for d in dirs)]
    return dirs, missing


def part_env(check):
    info = {}
    code, out = check.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version,"
                           "clocks.max.sm,compute_cap", "--format=csv,noheader"], 30)
    if code != 0:
        return {"status": "failed", "message": f"nvidia-smi: {first_lines(out)}"}
    info["gpu"] = out.strip().splitlines()[0]
    code, out = check.run(["nvcc", "--version"], 30)
    info["nvcc"] = last_lines(out, 1) if code == 0 else "absent"
    code, out = check.run([PY, "-c", "import torch; print(torch.__version__, "
                           "torch.version.cuda, torch.cuda.is_available())"], 60)
    info["torch"] = out.strip().splitlines()[-1] if code == 0 else "absent"
    info["compute_sanitizer"] = shutil.which("compute-sanitizer") or "absent"
    dirs, missing = find_cuda_library_dirs()
    info["cuda_library_dirs"] = dirs
    check.env["LD_LIBRARY_PATH"] = ":".join(
        dirs + [p for p in check.env.get("LD_LIBRARY_PATH", "").split(":") if p])
    check.results["env"] = info
    message = f"{info['gpu']}; {info['nvcc']}; torch {info['torch']}"
    if missing:
        return {"status": "failed", "message": f"{message}; not found: {', '.join(missing)}"}
    return {"status": "ok", "message": message}


# ---------------------------------------------------------------------------- binaries

def part_binaries(check):
    """The prepared bundle unpacked, or else the runtime built here."""
    bundle = os.path.join(check.args.prepared, "bundle.tar.xz")
    target = os.path.join(check.args.work, "bundle")
    if os.path.exists(bundle) and not check.args.build_here:
        shutil.rmtree(target, ignore_errors=True)
        with tarfile.open(bundle) as tar:
            tar.extractall(target)
        check.bin = os.path.join(target, "bin")
        how = f"the prepared bundle ({bundle})"
    else:
        build = os.path.join(check.args.work, "build")
        configure = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                     "-DHETC_BUILD_COMPILER=OFF"] + (["-G", "Ninja"] if shutil.which("ninja") else [])
        code, out = check.run(configure, 300)
        if code != 0:
            return {"status": "failed", "message": f"cmake could not configure the runtime: "
                                                   f"{last_lines(out)}"}
        code, out = check.run(["cmake", "--build", build, "-j", str(os.cpu_count()), "--target",
                               "hetrun", *GTESTS], 420)
        if code != 0:
            return {"status": "failed", "message": f"the runtime build failed: {last_lines(out)}"}
        check.bin = os.path.join(build, "bin")
        for name in GTESTS:
            shutil.copy(os.path.join(build, "test", "runtime", "cuda", name), check.bin)
        how = f"built here in {build}"
    code, out = check.run(["ldd", os.path.join(check.bin, "hetrun")], 30)
    unresolved = [x.split()[0] for x in out.splitlines() if "not found" in x]
    if unresolved:
        return {"status": "failed", "message": f"{how}: hetrun cannot load "
                                               f"{', '.join(unresolved)}"}
    check.env["PATH"] = check.bin + os.pathsep + check.env.get("PATH", "")
    return {"status": "ok", "message": how}


# ----------------------------------------------------------------------------- gtests

def gtest_suites(check, binary):
    code, out = check.run([binary, "--gtest_list_tests"], 60)
    if code != 0:
        raise RuntimeError(f"{os.path.basename(binary)} --gtest_list_tests: {last_lines(out)}")
    return [x.split()[0].rstrip(".") for x in out.splitlines() if x and not x.startswith(" ")]


def gtest_counts(out):
    """(passed, failed names, skipped names) from gtest's console output."""
    passed = len(re.findall(r"^\[       OK \]", out, re.M))
    skipped = sorted(set(re.findall(r"^\[  SKIPPED \] (\S+\.\S+)", out, re.M)))
    failed = sorted(set(re.findall(r"^\[  FAILED  \] (\S+\.\S+)", out, re.M)))
    return passed, failed, skipped


def part_tests(check):
    totals = {"passed": 0, "failed": [], "skipped": [], "crashed_suites": []}
    for name in GTESTS:
        binary = os.path.join(check.bin, name)
        for suite in gtest_suites(check, binary):
            code, out = check.run([binary, f"--gtest_filter={suite}.*", "--gtest_brief=0"], 120)
            passed, failed, skipped = gtest_counts(out)
            totals["passed"] += passed
            totals["failed"] += failed
            totals["skipped"] += skipped
            if code not in (0, 1) and not failed:
                totals["crashed_suites"].append(f"{suite} ({'timeout' if code is None else code}:"
                                                f" {last_lines(out, 2)})")
    message = (f"{totals['passed']} passed, {len(totals['failed'])} failed, "
               f"{len(totals['skipped'])} skipped, {len(totals['crashed_suites'])} suites crashed")
    if totals["failed"]:
        message += f"; failed: {', '.join(totals['failed'][:12])}"
    if totals["crashed_suites"]:
        message += f"; crashed: {'; '.join(totals['crashed_suites'][:4])}"
    if totals["skipped"]:
        message += f"; skipped: {', '.join(totals['skipped'][:6])}"
    ok = not totals["failed"] and not totals["crashed_suites"] and totals["passed"] > 0
    return {"status": "ok" if ok else "failed", "message": message, **totals}


def part_sanitizer(check):
    sanitizer = shutil.which("compute-sanitizer")
    if not sanitizer:
        return {"status": "skipped", "message": "compute-sanitizer is not installed"}
    reports = {}
    for name in GTESTS:
        share = max(30, check.left() / (len(GTESTS) - list(GTESTS).index(name)) - 5)
        code, out = check.run([sanitizer, "--tool", "memcheck", "--error-exitcode", "3",
                               "--print-limit", "20", os.path.join(check.bin, name)], share)
        summary = re.findall(r"ERROR SUMMARY: (\d+) error", out)
        passed, failed, _ = gtest_counts(out)
        reports[name] = {"errors": int(summary[-1]) if summary else None,
                         "complete": code is not None, "passed": passed,
                         "failed": len(failed)}
    clean = all(r["errors"] == 0 and r["complete"] for r in reports.values())
    message = "; ".join(f"{n}: {r['errors'] if r['errors'] is not None else '?'} errors"
                        f"{'' if r['complete'] else ' (stopped at the time limit)'}, "
                        f"{r['passed']} tests passed" for n, r in reports.items())
    return {"status": "ok" if clean else "failed", "message": message, "binaries": reports}


# ------------------------------------------------------------------------ training

def part_e2e(check):
    work = os.path.join(check.args.work, "e2e")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.join(check.args.prepared, "e2e"), work)
    check.env["PYTHON"] = PY
    code, out = check.run([os.path.join(ROOT, "test", "gpu", "gpu-e2e.sh"), "check", work], 240)
    results = re.findall(r"^result (\S+) (ok|failed.*)$", out, re.M)
    failed = [f"{name} ({verdict[len('failed: '):]})" for name, verdict in results
              if verdict != "ok"]
    message = f"{len(results) - len(failed)} of {len(results)} comparisons match"
    if failed:
        message += f"; failed: {', '.join(failed)}"
    if code is None:
        message += "; stopped at the time limit"
    elif code != 0 and not failed:
        message += f"; gpu-e2e.sh exited with {code}: {last_lines(out)}"
    ok = code == 0 and results and not failed
    return {"status": "ok" if ok else "failed", "message": message,
            "cases": dict(results)}


def losses_of(metrics):
    with open(metrics) as f:
        return [json.loads(x)["loss"] for x in f if x.strip()]


def part_sized(check):
    prepared = os.path.join(check.args.prepared, "sized")
    work = os.path.join(check.args.work, "sized")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(prepared, work)
    steps = str(check.args.sized_steps)
    tokens = os.path.join(work, "tokens.bin")
    runs = {}
    for precision in ("f32", "bf16"):
        pkg = os.path.join(work, f"gpt2-bench-large-{precision}.hetpkg")
        code, out = check.run([PY, os.path.join(ROOT, "bench", "gpu", "write_weights.py"), pkg,
                               "--family", "gpt2", "--config", "bench-large", "--seed", "0"], 120)
        if code != 0:
            return {"status": "failed", "message": f"write_weights.py: {last_lines(out)}"}
        backends = ("cpu", "cuda") if precision == "f32" else ("cuda",)
        for backend in backends:
            metrics = os.path.join(work, f"{precision}-{backend}.jsonl")
            code, out = check.run(["hetrun", pkg, "--data", tokens, "--steps", steps,
                                   "--backend", backend, "--metrics", metrics], 150)
            if code != 0:
                return {"status": "failed", "message": f"hetrun {precision} --backend "
                                                       f"{backend}: {last_lines(out)}", **runs}
            runs[f"{precision}-{backend}"] = losses_of(metrics)
    reference = runs["f32-cpu"]
    errors = {}
    for key, rtol in (("f32-cuda", F32_LOSS_RTOL), ("bf16-cuda", LOW_PRECISION_LOSS_RTOL)):
        worst = max(abs(a - b) / abs(b) for a, b in zip(runs[key], reference))
        errors[key] = {"worst_relative": worst, "tolerance": rtol, "ok": worst <= rtol}
    ok = all(e["ok"] for e in errors.values())
    message = "; ".join(f"{k}: worst loss error {e['worst_relative']:.2e} (tolerance {e['tolerance']:g})"
                        for k, e in errors.items())
    return {"status": "ok" if ok else "failed", "message": message, "losses": runs,
            "errors": errors}


# ----------------------------------------------------------------------------- bench

def bench_args(check, parts, models, timeout):
    return [PY, os.path.join(ROOT, "bench", "gpu_bench.py"), "--bin", check.bin,
            "--packages", bench_packages(check), "--data", bench_tokens(check),
            "--out", os.path.join(check.out, "bench.json"), "--parts", parts,
            "--models", models, "--steps", str(check.args.bench_steps),
            "--warmup", str(check.args.bench_warmup), "--timeout", str(int(timeout))]


def bench_work(check):
    return os.path.join(check.args.work, "bench")


def bench_packages(check):  # bench/gpu/run.sh's copy, with the weights
    return os.path.join(bench_work(check), "packages")


def bench_tokens(check):
    return os.path.join(bench_work(check), "tokens.bin")


def prepare_bench(check):
    """The packages' weights (written here: GBs) and the token file, by
    bench/gpu/run.sh's `weights tokens` steps."""
    code, out = check.run([os.path.join(ROOT, "bench", "gpu", "run.sh"), "--packages",
                           os.path.join(check.args.prepared, "bench"), "--work",
                           bench_work(check), "--python", PY, "weights", "tokens"], 360)
    if code != 0:
        raise RuntimeError(f"bench/gpu/run.sh weights tokens: {last_lines(out)}")
    with open(os.path.join(bench_packages(check), "prepare.json")) as f:
        return json.load(f)


def bench_rows(check, names, parts):
    path = os.path.join(check.out, "bench.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        runs = json.load(f).get("runs", {})
    return {k: v for k, v in runs.items()
            if k.split("/")[0] in names and k.split("/")[1] in parts}


def part_bench(check, kind):
    prepare = prepare_bench(check)
    names = [m["name"] for m in prepare["models"] if m["kind"] == kind]
    parts = "hetrun,eager,compile" if kind == "single" else "hetero"
    # A run may take a third of what is left: torch.compile's first step compiles.
    timeout = max(90, (check.left() - 20) / 3)
    code, out = check.run(bench_args(check, parts, ",".join(names), timeout), check.left() - 5)
    rows = bench_rows(check, names, parts.split(","))
    cells = []
    for key, run in sorted(rows.items()):
        if run.get("status") == "ok":
            cells.append(f"{key} {run.get('tokens_per_s', 0):,.0f} tok/s"
                         + (f" MFU {run['mfu'] * 100:.1f}%" if run.get("mfu") else ""))
        else:
            cells.append(f"{key} {run.get('status')}: {first_lines(run.get('message', ''), 1)}")
    ok = rows and all(r.get("status") == "ok" for r in rows.values())
    message = "; ".join(cells) or f"no results (exit {code}): {last_lines(out)}"
    return {"status": "ok" if ok else "failed", "message": message}


def find_ncu():
    return shutil.which("ncu") or next(iter(sorted(
        glob.glob("/usr/local/cuda/bin/ncu") + glob.glob("/opt/nvidia/nsight-compute/*/ncu"),
        reverse=True)), None)


def part_profile(check):
    """Each kernel of one hetrun step of the first single-GPU package under Nsight
    Compute: where the step's time goes."""
    ncu = find_ncu()
    if not ncu:
        return {"status": "skipped", "message": "Nsight Compute (ncu) is not installed"}
    prepare = prepare_bench(check)
    model = next(m for m in prepare["models"] if m["kind"] == "single")
    pkg = os.path.join(bench_packages(check), model["package"])
    csv_path = os.path.join(check.out, f"kernels-{model['name']}.csv")
    code, out = check.run([ncu, "--clock-control", "none", "--metrics",
                           "gpu__time_duration.sum", "--csv", "hetrun", pkg, "--data",
                           bench_tokens(check), "--steps", "1",
                           "--backend", "cuda", "--no-cuda-graphs"], check.left() - 10)
    with open(csv_path, "w") as f:
        f.write(out)
    if code != 0:
        return {"status": "failed", "message": f"ncu exited with {code}: {last_lines(out)}"}
    code, table = check.run([PY, os.path.join(ROOT, "bench", "gpu", "kernel_times.py"),
                             csv_path, "--top", "30"], 60)
    if code != 0:
        return {"status": "failed", "message": last_lines(table)}
    check.results["kernel_times"] = table
    return {"status": "ok", "message": f"{model['name']}: {table.splitlines()[0]} "
                                       f"(step 1 without CUDA graphs; {csv_path})"}


def part_kernels(check):
    """The kernel benchmark, then Nsight Compute's detailed sections (occupancy,
    warp stalls, pipes, memory) for the first launch of each of DETAILED_KERNELS."""
    bench = os.path.join(check.bin, KERNEL_BENCH)
    if not os.path.exists(bench):
        return {"status": "skipped", "message": f"no {KERNEL_BENCH} in {check.bin}"}
    code, out = check.run([bench], min(120, check.left() - 5))
    with open(os.path.join(check.out, "kernel-bench.txt"), "w") as f:
        f.write(out)
    if code != 0:
        return {"status": "failed", "message": f"{KERNEL_BENCH} exited with {code}: "
                                               f"{last_lines(out)}"}
    check.results["kernel_bench"] = out
    ncu = find_ncu()
    if not ncu:
        return {"status": "ok", "message": "kernel-bench.txt (no Nsight Compute for details)"}
    reports = []
    for kernel in DETAILED_KERNELS:
        code, report = check.run([ncu, "--set", "detailed", "--kernel-name-base", "function",
                                  "--kernel-name", kernel, "--launch-count", "1", bench],
                                 min(90, check.left() - 5))
        reports.append(f"==== {kernel} (exit {code})\n{report}")
    with open(os.path.join(check.out, "attention-ncu.txt"), "w") as f:
        f.write("\n".join(reports))
    return {"status": "ok", "message": "kernel-bench.txt, attention-ncu.txt"}


def part_trace(check):
    """hetrun --profile on the first single-GPU package: every launch timed by CUDA
    events, the trace and hetrun's table of time per op kind."""
    prepare = prepare_bench(check)
    model = next(m for m in prepare["models"] if m["kind"] == "single")
    pkg = os.path.join(bench_packages(check), model["package"])
    trace = os.path.join(check.out, f"trace-{model['name']}.json")
    code, out = check.run(["hetrun", pkg, "--data", bench_tokens(check), "--steps", "3",
                           "--backend", "cuda", "--profile", trace], check.left() - 5)
    if code != 0:
        return {"status": "failed", "message": f"hetrun --profile exited with {code}: "
                                               f"{last_lines(out)}"}
    check.results["trace_summary"] = out
    return {"status": "ok", "message": f"{model['name']}: 3 steps, {trace} "
                                       f"({os.path.getsize(trace) // 1024} KiB)"}


# ------------------------------------------------------------------------------ main

def summary(check):
    lines = [f"# hetc device check: {check.results.get('env', {}).get('gpu', 'no GPU')}", "",
             f"{check.results['started']}, prepared at commit "
             f"{check.results.get('prepared', {}).get('commit', '?')}, "
             f"{time.monotonic() - check.start:.0f} s in all", "",
             "| part | status | seconds | result |", "|---|---|---|---|"]
    for name, r in check.results["parts"].items():
        text = r.get("message", "").replace("|", "/").replace("\n", " ")
        lines.append(f"| {name} | {r['status']} | {r.get('seconds', '—')} | {text} |")
    if check.results.get("kernel_times"):
        lines += ["", "## Time per kernel (Nsight Compute)", "", check.results["kernel_times"]]
    if check.results.get("kernel_bench"):
        lines += ["", "## CUDA kernel benchmark", "", "```",
                  *check.results["kernel_bench"].strip().splitlines(), "```"]
    if check.results.get("trace_summary"):
        table = check.results["trace_summary"].strip().splitlines()[-40:]
        lines += ["", "## hetrun --profile (CUDA events)", "", "```", *table, "```"]
    bench = os.path.join(check.out, "bench.json")
    if os.path.exists(bench):
        code, out = check.run([PY, os.path.join(ROOT, "bench", "gpu_bench.py"), "--bin",
                               check.bin or ".", "--packages",
                               bench_packages(check), "--out", bench,
                               "--report-only"], 60)
        if code == 0:
            lines += ["", out.strip()]
    return "\n".join(lines) + "\n"


PARTS = ("env", "binaries", "tests", "e2e", "sized", "bench", "hetero", "profile",
         "kernels", "trace", "sanitizer")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prepared", default=os.path.join(ROOT, "build", "gpu-check"),
                    help="the folder bench/gpu/device-prepare.sh wrote (default build/gpu-check)")
    ap.add_argument("--out", required=True, help="where the results go (created)")
    ap.add_argument("--work", default=os.path.join(ROOT, "build-device-check"),
                    help="scratch folder: the bundle, weights, runs (default build-device-check)")
    ap.add_argument("--budget", type=float, default=470, help="seconds for everything "
                    "(default 470: under 8 minutes)")
    ap.add_argument("--parts", default=",".join(PARTS), help=f"subset of {','.join(PARTS)}")
    ap.add_argument("--build-here", action="store_true",
                    help="build the runtime here (-DHETC_BUILD_COMPILER=OFF) even with a bundle")
    ap.add_argument("--sized-steps", type=int, default=4)
    ap.add_argument("--bench-steps", type=int, default=10)
    ap.add_argument("--bench-warmup", type=int, default=3)
    args = ap.parse_args(argv)
    args.out = os.path.abspath(args.out)
    args.prepared = os.path.abspath(args.prepared)
    args.work = os.path.abspath(args.work)
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    wanted = set(args.parts.split(","))
    unknown = wanted - set(PARTS)
    if unknown:
        ap.error(f"unknown parts {', '.join(sorted(unknown))}; have {', '.join(PARTS)}")

    check = Check(args)
    try:
        with open(os.path.join(args.prepared, "prepared.json")) as f:
            check.results["prepared"] = json.load(f)
    except OSError:
        check.say(f"no {args.prepared}/prepared.json: bench/gpu/device-prepare.sh on the "
                  f"build machine writes it; only the parts that need none run")
    # (name, seconds it needs at least, function); env and binaries come first always.
    plan = [("env", 5, part_env), ("binaries", 5, part_binaries), ("tests", 30, part_tests),
            ("e2e", 20, part_e2e), ("sized", 40, part_sized),
            ("bench", 120, lambda c: part_bench(c, "single")),
            ("hetero", 30, lambda c: part_bench(c, "hetero")),
            ("profile", 60, part_profile),
            ("kernels", 30, part_kernels),
            ("trace", 20, part_trace),
            ("sanitizer", 40, part_sanitizer)]
    for name, needs, function in plan:
        if name not in wanted and name not in ("env", "binaries"):
            continue
        check.part(name, needs, lambda f=function: f(check))
        if name == "binaries" and check.bin is None:
            break
    text = summary(check)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(text)
    print(text)
    failed = [n for n, r in check.results["parts"].items() if r["status"] == "failed"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
