#!/usr/bin/env python3
"""GPU benchmark of hetc: GPT-2 training throughput of hetrun on one GPU against PyTorch
eager and torch.compile on the same model, batch and optimizer, and the planner's
predicted step time against the measured one. Runs ON the GPU machine, from the
repository root, over packages compiled beforehand (bench/gpu/prepare.sh, which needs
hetc) and given their weights there (bench/gpu/write_weights.py). See
docs/performance.md, "GPU". Prints figures; checks nothing.

    gpu_bench.py --bin BUILD/bin --packages PKGS --data TOKENS.bin [--out RESULTS.json]
                 [--models gpt2-124m,...] [--parts hetrun,eager,compile,hetero]
                 [--steps K] [--warmup W] [--timeout S] [--attention model|sdpa]
                 [--peak-tflops P] [--report-only]

PKGS is the folder prepare.sh wrote: prepare.json (batch, sequence, precision, seed,
the packages), predictions.json (the planner's figures, `hetc plan`) and the packages.
For each single-GPU package (GPT-2 124M and 350M at T = 1024):

  hetrun          hetrun PKG --data TOKENS.bin --steps W+K --backend cuda --metrics F
  PyTorch eager   bench/gpu/torch_train.py --mode eager: models/gpt2.py, float32 master
                  weights, bf16 autocast, AdamW (fused where available), same batches
  torch.compile   the same with torch.compile(model)

each W+K steps, each figure the median step time of the last K (the first W are
warm-up: allocation, autotuning, compiling). tokens/s = B*T / step time; MFU =
tokens/s * (6N + 12*L*d*T) / peak, with N every parameter of the model counted once,
the token and position embeddings included (the tied LM head is the token embedding),
and peak the GPU's dense BF16 peak (989 TFLOP/s for H100 SXM and H200). The multi-rank
package (an emulated heterogeneous plan) runs with `hetrun --share-gpu`: its ranks as
threads on GPU 0, each in a green context with its planned device's share of the SMs.
Its measured step time is compared with the planner's prediction for the plan's
cluster, and each single-GPU package's with the prediction for one-h100 or one-h200
(models/clusters), by the GPU's name.

Results go to stdout as Markdown tables and to --out (JSON). --out accumulates: each
run replaces its own entry and keeps the others, so the parts can run in separate
invocations (a machine that stops commands after 10 minutes) and the last one prints
the whole table. Anything missing (no GPU, torch without CUDA or without
torch.compile, no package, no weights, a run that fails or times out) is reported in
its row and the rest goes on.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPU_DIR = os.path.join(ROOT, "bench", "gpu")
sys.path.insert(0, GPU_DIR)
import hetpkg  # noqa: E402

PY = sys.executable or "python3"
PARTS = ("hetrun", "eager", "compile", "hetero")
SYSTEM = {"hetrun": "hetrun", "eager": "PyTorch eager", "compile": "torch.compile",
          "hetero": "hetrun --share-gpu"}
DEFAULT_PEAK_TFLOPS = 989.0  # dense BF16, H100 SXM and H200 (planner/GpuCatalog.cpp)

# (n_layer, d_model, vocab, max_pos) of the models/gpt2.py configs, for the FLOP count;
# checked against models/gpt2.py when torch imports.
GPT2_SHAPES = {"tiny": (2, 64, 256, 64), "small": (4, 256, 4096, 256),
               "124m": (12, 768, 50257, 1024), "350m": (24, 1024, 50257, 1024)}


def gpt2_shape(config):
    try:
        sys.path.insert(0, os.path.join(ROOT, "models"))
        import gpt2  # imports torch; CPU only, no CUDA context
        c = gpt2.CONFIGS[config]
        return c.n_layer, c.d_model, c.vocab_size, c.max_pos
    except Exception:  # no torch in this Python: the table above
        return GPT2_SHAPES[config]


def gpt2_parameters(config):
    """N: every parameter once (token and position embeddings included; the LM head
    is tied to the token embedding): V*d + P*d + L*(12d^2 + 13d) + 2d."""
    L, d, V, P = gpt2_shape(config)
    return V * d + P * d + L * (12 * d * d + 13 * d) + 2 * d


def flops_per_token(config, seq):
    """6N + 12*L*d*T: weights' matmuls forward and backward, plus attention's QK^T and
    AV (the causal half not discounted)."""
    L, d, _, _ = gpt2_shape(config)
    return 6 * gpt2_parameters(config) + 12 * L * d * seq


# --------------------------------------------------------------------------- inputs

def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise SystemExit(f"gpu_bench.py: cannot read the {what} {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise SystemExit(f"gpu_bench.py: {path} is not JSON: {e}")


def detect_gpu():
    """(name, memory MiB) of GPU 0 as nvidia-smi reports it, or None; None too when
    CUDA_VISIBLE_DEVICES hides every GPU (empty or -1), which nvidia-smi ignores."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and (visible.strip() == "" or visible.strip().startswith("-1")):
        return None
    exe = shutil.which("nvidia-smi")
    if not exe:
        return None
    try:
        p = subprocess.run([exe, "--query-gpu=name,memory.total", "--format=csv,noheader,nounits"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = [x for x in p.stdout.splitlines() if x.strip()]
    if p.returncode != 0 or not lines:
        return None
    name, _, mem = lines[0].rpartition(",")
    try:
        return name.strip(), int(float(mem))
    except ValueError:
        return name.strip() or lines[0].strip(), None


def torch_info():
    """(torch version or None, CUDA available, message), from a child process so that
    this one holds no CUDA context while hetrun runs."""
    code = ("import json, torch; print(json.dumps([torch.__version__, "
            "torch.cuda.is_available(), hasattr(torch, 'compile')]))")
    try:
        p = subprocess.run([PY, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, False, False, f"cannot run {PY}: {e}"
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or ["?"])[-1]
        return None, False, False, f"{PY} cannot import torch: {tail}"
    version, cuda, compile_ = json.loads(p.stdout.strip().splitlines()[-1])
    return version, cuda, compile_, ""


def cluster_for(gpu_name):
    if not gpu_name:
        return None
    if "H200" in gpu_name:
        return "one-h200"
    if "H100" in gpu_name:
        return "one-h100"
    return None


# --------------------------------------------------------------------------- runs

def tail_of(text, lines=12):
    out = [x for x in text.strip().splitlines() if x.strip()]
    return "\n".join(out[-lines:])


def run_hetrun(args, settings, entry, share_gpu, work):
    pkg = os.path.join(args.packages, entry["package"])
    hetrun = os.path.join(args.bin, "hetrun")
    if not os.path.isfile(hetrun):
        return {"status": "skipped", "message": f"no hetrun in {args.bin} (bench/gpu/run.sh "
                                                f"build builds it)"}
    try:
        manifest = hetpkg.read_manifest(pkg)
    except hetpkg.PackageError as e:
        return {"status": "skipped", "message": f"{e} (bench/gpu/prepare.sh writes it)"}
    weights = os.path.join(pkg, manifest["weights_file"])
    if not os.path.isfile(weights):
        return {"status": "skipped", "message": (
            f"{weights} is missing: the package was compiled with --no-weights; run "
            f"bench/gpu/write_weights.py {pkg} --family {settings['family']} --config "
            f"{entry['config']} --seed {settings['seed']} (bench/gpu/run.sh weights)")}
    steps = args.warmup + args.steps
    metrics = os.path.join(work, f"{entry['name']}.metrics.jsonl")
    cmd = [hetrun, pkg, "--data", args.data, "--steps", str(steps),
           "--backend", "cpu" if args.device == "cpu" else "cuda", "--metrics", metrics]
    if share_gpu and args.device != "cpu":
        cmd.append("--share-gpu")
    result = {"command": " ".join(cmd), "ranks": len(manifest["ranks"]),
              "global_batch": manifest["global_batch"], "seq": manifest["seq_len"]}
    print(f"gpu_bench: {' '.join(cmd)}", flush=True)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=args.timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        result.update(status="failed", message=f"timed out after {args.timeout} s; last "
                      f"output:\n{tail_of(out)}")
        return result
    if p.returncode != 0:
        errors = [x for x in p.stdout.splitlines() if "error" in x]
        first = errors[-1].strip() if errors else f"exit code {p.returncode}"
        result.update(status="failed", message=f"{first}\nhetrun exited with {p.returncode}; "
                      f"its last lines:\n{tail_of(p.stdout)}")
        return result
    rows = [json.loads(x) for x in open(metrics) if x.strip()]
    if len(rows) != steps:
        result.update(status="failed", message=f"{metrics} has {len(rows)} steps, "
                      f"expected {steps}")
        return result
    timed = [r["step_ms"] for r in rows[args.warmup:]]
    median = statistics.median(timed)
    tokens = manifest["global_batch"] * manifest["seq_len"]
    result.update(status="ok", message="", step_ms=median, step_ms_mean=statistics.fmean(timed),
                  tokens_per_s=tokens / (median / 1e3), first_step_ms=rows[0]["step_ms"],
                  losses=[r["loss"] for r in rows], all_step_ms=[r["step_ms"] for r in rows])
    return result


def run_torch(args, settings, entry, mode, work):
    out = os.path.join(work, f"{entry['name']}.{mode}.json")
    cmd = [PY, os.path.join(GPU_DIR, "torch_train.py"), "--family", settings["family"],
           "--config", entry["config"], "--batch", str(settings["global_batch"]),
           "--seq", str(settings["seq"]), "--steps", str(args.warmup + args.steps),
           "--warmup", str(args.warmup), "--data", args.data, "--mode", mode,
           "--attention", args.attention, "--seed", str(settings["seed"]),
           "--lr", str(settings["lr"]), "--device", args.device, "--out", out]
    print(f"gpu_bench: {' '.join(cmd)}", flush=True)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=args.timeout)
    except subprocess.TimeoutExpired as e:
        text = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return {"status": "failed", "message": f"timed out after {args.timeout} s; last "
                                               f"output:\n{tail_of(text)}"}
    if not os.path.exists(out):
        return {"status": "failed", "message": f"torch_train.py exited with {p.returncode} "
                                               f"and wrote no result:\n{tail_of(p.stdout)}"}
    result = load_json(out, "torch result")
    if result.get("status") == "failed" and p.stdout.strip():
        result["message"] = (result.get("message", "") + "\n" + tail_of(p.stdout, 6)).strip()
    return result


# --------------------------------------------------------------------------- report

def fmt(value, spec, missing="—"):
    return missing if value is None else format(value, spec)


def status_cell(run):
    if run is None:
        return "not run"
    if run.get("status") == "ok":
        return None
    first = (run.get("message") or "").strip().splitlines()
    return f"{run.get('status', 'failed')}: {first[0] if first else '?'}"


def package_layout(entry, settings):
    if entry.get("layout") == "whole-batch":
        return f"1 micro-batch of {settings.get('global_batch')}"
    return f"the plan for {entry.get('cluster')}"


def report(results, prepare, predictions):
    s = results.get("settings", {})
    runs = results.get("runs", {})
    gpu = results.get("gpu") or "no GPU"
    lines = []
    lines.append(f"## hetc GPU benchmark: {gpu}")
    lines.append("")
    lines.append(f"GPT-2 (models/gpt2.py), B x T = {s.get('global_batch')} x {s.get('seq')}, "
                 f"AdamW lr {s.get('lr')}; hetrun package precision {s.get('precision')}, "
                 f"PyTorch bf16 autocast with float32 master weights (attention: "
                 f"{s.get('attention')}); median of {s.get('steps')} steps after "
                 f"{s.get('warmup')} warm-up; MFU against {s.get('peak_tflops')} TFLOP/s; "
                 f"torch {results.get('torch') or 'absent'}; device {s.get('device')}.")
    if s.get("device") == "cpu":
        lines.append("")
        lines.append("**Device cpu: a check of the script, not a measurement.**")
    lines.append("")
    lines.append("| model | N | system | ms/step | tokens/s | MFU | / torch.compile | loss step 1 "
                 "| note |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    notes = []
    for entry in prepare["models"]:
        name = entry["name"]
        parts = ["hetero"] if entry["kind"] == "hetero" else ["hetrun", "eager", "compile"]
        compiled = runs.get(f"{name}/compile")
        base = compiled.get("tokens_per_s") if compiled and compiled.get("status") == "ok" else None
        for part in parts:
            run = runs.get(f"{name}/{part}")
            note = status_cell(run)
            ok = note is None
            tps = run.get("tokens_per_s") if ok else None
            mfu = run.get("mfu") if ok else None
            ratio = tps / base if (tps and base and entry["kind"] != "hetero") else None
            loss = (run.get("losses") or [None])[0] if ok else None
            label = SYSTEM[part] + (f" ({entry.get('ranks')} ranks, {entry.get('cluster')})"
                                    if part == "hetero" else "")
            if part == "hetero" and s.get("device") == "cpu":
                label = label.replace(" --share-gpu", "")
            n = f"{gpt2_parameters(entry['config']) / 1e6:.1f}M"
            step = run.get("step_ms") if ok else None
            mfu_cell = fmt(mfu * 100, ".1f") + "%" if mfu is not None else "—"
            ratio_cell = fmt(ratio, ".2f") + "x" if ratio else "—"
            lines.append(f"| {name} | {n} | {label} | {fmt(step, '.2f')} | {fmt(tps, ',.0f')} "
                         f"| {mfu_cell} | {ratio_cell} | {fmt(loss, '.4f')} "
                         f"| {'' if ok else note.replace('|', '/')} |")
            if not ok and run is not None and run.get("message", "").count("\n"):
                notes.append(f"{name} {SYSTEM[part]}:\n```\n{run['message']}\n```")
    lines.append("")
    lines.append("### Planner prediction against the measured hetrun step")
    lines.append("")
    lines.append("`hetc plan` on the cluster, before the run (predictions.json): the plan it "
                 "chose and its predicted step. A single-GPU package is measured against the "
                 "cluster of the GPU it ran on; where its layout is not the planner's, the "
                 "plan column says so.")
    lines.append("")
    lines.append("| package | cluster | plan | predicted ms/step | measured ms/step | "
                 "measured / predicted |")
    lines.append("|---|---|---|---|---|---|")
    here = cluster_for(results.get("gpu"))
    for entry in prepare["models"]:
        name = entry["name"]
        part = "hetero" if entry["kind"] == "hetero" else "hetrun"
        run = runs.get(f"{name}/{part}") or {}
        for cluster, pred in sorted((predictions.get(name) or {}).items()):
            applies = cluster == entry["cluster"] if part == "hetero" else cluster == here
            measured = run.get("step_ms") if applies and run.get("status") == "ok" else None
            predicted = pred.get("step_ms")
            ratio = measured / predicted if measured and predicted else None
            micro = sorted({r.get("micro_batch") for r in pred.get("replicas", [])} - {None})
            layout = (f"{pred.get('stages')} stages, {pred.get('ranks')} ranks, micro-batch "
                      f"{'/'.join(str(m) for m in micro) or '?'}")
            if not pred.get("same_plan_as_package", True):
                layout += f" (the package: {package_layout(entry, s)})"
            lines.append(f"| {name} | {cluster} | {layout} | {fmt(predicted, '.3f')} | "
                         f"{fmt(measured, '.3f')} | {fmt(ratio, '.2f')}{'x' if ratio else ''} |")
    if notes:
        lines.append("")
        lines.append("### Messages")
        lines.append("")
        lines.extend(notes)
    return "\n".join(lines)


# --------------------------------------------------------------------------- main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="folder with hetrun")
    ap.add_argument("--packages", required=True, help="the folder bench/gpu/prepare.sh wrote")
    ap.add_argument("--predictions", help="the planner's predictions (default "
                                          "PACKAGES/predictions.json)")
    ap.add_argument("--data", help="uint16 token file (models/make_tokens.py; vocabulary 50257)")
    ap.add_argument("--out", default="gpu-bench-results.json",
                    help="results JSON, updated in place (default gpu-bench-results.json)")
    ap.add_argument("--models", help="comma-separated package names of prepare.json "
                                     "(default all)")
    ap.add_argument("--parts", default=",".join(PARTS),
                    help=f"comma-separated, of {', '.join(PARTS)} (default all)")
    ap.add_argument("--steps", type=int, default=20, help="timed steps per run (default 20)")
    ap.add_argument("--warmup", type=int, default=5, help="warm-up steps before them (default 5)")
    ap.add_argument("--timeout", type=int, default=540,
                    help="seconds allowed to each run (default 540)")
    ap.add_argument("--attention", choices=["model", "sdpa"], default="model",
                    help="PyTorch attention: models/gpt2.py's masked softmax as written "
                         "(default) or F.scaled_dot_product_attention")
    ap.add_argument("--peak-tflops", type=float, default=DEFAULT_PEAK_TFLOPS,
                    help="dense BF16 peak for MFU (default 989: H100 SXM, H200)")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                    help="cpu: hetrun --backend cpu and PyTorch on the CPU in float32, to "
                         "check the script without a GPU (the figures mean nothing)")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing; print the tables of --out")
    args = ap.parse_args(argv)
    parts = [p for p in args.parts.split(",") if p]
    bad = [p for p in parts if p not in PARTS]
    if bad:
        ap.error(f"unknown --parts {bad}; have {', '.join(PARTS)}")
    if args.steps < 1 or args.warmup < 0:
        ap.error("--steps must be >= 1 and --warmup >= 0")

    prepare = load_json(os.path.join(args.packages, "prepare.json"), "package list")
    predictions = load_json(args.predictions or os.path.join(args.packages, "predictions.json"),
                            "predictions")
    results = {"runs": {}}
    if os.path.exists(args.out):
        results = load_json(args.out, "results")
        results.setdefault("runs", {})

    if not args.report_only:
        if not args.data:
            ap.error("--data is required unless --report-only")
        if not os.path.isfile(args.data):
            raise SystemExit(f"gpu_bench.py: no token file {args.data} (models/make_tokens.py "
                             f"writes one; bench/gpu/run.sh tokens)")
        names = [e["name"] for e in prepare["models"]]
        chosen = args.models.split(",") if args.models else names
        unknown = [m for m in chosen if m not in names]
        if unknown:
            ap.error(f"--models {unknown} are not in {args.packages}/prepare.json ({', '.join(names)})")
        gpu = detect_gpu()
        version, cuda, has_compile, torch_msg = torch_info()
        print(f"gpu_bench: GPU {gpu[0] if gpu else 'none visible'}; torch "
              f"{version or 'absent'}{', CUDA available' if cuda else ', no CUDA'}"
              f"{'; ' + torch_msg if torch_msg else ''}", flush=True)
        no_gpu = args.device == "cuda" and gpu is None and not cuda
        results.update(
            gpu=gpu[0] if gpu else None, gpu_memory_mib=gpu[1] if gpu else None,
            torch=version, host=platform.node(), nproc=os.cpu_count(),
            date=datetime.datetime.now().isoformat(timespec="seconds"),
            settings={"family": prepare["family"], "global_batch": prepare["global_batch"],
                      "seq": prepare["seq"], "precision": prepare["precision"],
                      "lr": prepare["lr"], "seed": prepare["seed"], "steps": args.steps,
                      "warmup": args.warmup, "attention": args.attention,
                      "peak_tflops": args.peak_tflops, "device": args.device})
        cluster = cluster_for(results["gpu"])
        work = tempfile.mkdtemp(prefix="hetc-gpu-bench-")
        try:
            for entry in prepare["models"]:
                if entry["name"] not in chosen:
                    continue
                todo = ["hetero"] if entry["kind"] == "hetero" else ["hetrun", "eager", "compile"]
                for part in [p for p in todo if p in parts]:
                    key = f"{entry['name']}/{part}"
                    if no_gpu:
                        run = {"status": "skipped", "message": (
                            "CUDA is unavailable here: no GPU is visible (nvidia-smi lists "
                            "none, or CUDA_VISIBLE_DEVICES hides them) and torch "
                            f"{version or '(absent)'} reports no CUDA device; run on a GPU "
                            "machine (docs/performance.md, GPU)")}
                    elif part in ("hetrun", "hetero"):
                        run = run_hetrun(args, prepare, entry, part == "hetero", work)
                    elif version is None:
                        run = {"status": "skipped", "message": torch_msg}
                    elif args.device == "cuda" and not cuda:
                        run = {"status": "skipped", "message": f"torch {version} has no CUDA "
                                                               f"(torch.cuda.is_available() is False)"}
                    elif part == "compile" and not has_compile:
                        run = {"status": "skipped", "message": f"torch {version} has no "
                                                               f"torch.compile (needs >= 2.0)"}
                    else:
                        run = run_torch(args, prepare, entry, part, work)
                    if run.get("status") == "ok" and entry["kind"] != "hetero":
                        fpt = flops_per_token(entry["config"], prepare["seq"])
                        run["flops_per_token"] = fpt
                        run["parameters_N"] = gpt2_parameters(entry["config"])
                        run["mfu"] = run["tokens_per_s"] * fpt / (args.peak_tflops * 1e12)
                    if part in ("hetrun", "hetero"):
                        run["prediction_cluster"] = entry.get("cluster") if part == "hetero" else cluster
                    run["date"] = results["date"]
                    results["runs"][key] = run
                    print(f"gpu_bench: {key}: {run.get('status')}"
                          + (f", {run['step_ms']:.2f} ms/step, {run['tokens_per_s']:,.0f} tokens/s"
                             if run.get("status") == "ok" else f": {run.get('message', '')}"),
                          flush=True)
                    with open(args.out, "w") as f:  # after every run: a timeout keeps the rest
                        json.dump(results, f, indent=1)
                        f.write("\n")
        finally:
            shutil.rmtree(work, ignore_errors=True)

    print()
    print(report(results, prepare, predictions))
    print(f"\n(results: {os.path.abspath(args.out)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
