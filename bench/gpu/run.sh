#!/usr/bin/env bash
# Runs the GPU benchmark (docs/performance.md, "GPU") on the GPU machine, from the
# repository root, over the folder bench/gpu/prepare.sh wrote elsewhere. Each step is
# one command that ends well within 10 minutes; run them one after the other:
#
#   bench/gpu/run.sh build                    # hetrun alone: cmake -DHETC_BUILD_COMPILER=OFF
#   bench/gpu/run.sh weights tokens           # the packages' weights; the token file
#   bench/gpu/run.sh bench --models gpt2-124m # hetrun, PyTorch eager, torch.compile
#   bench/gpu/run.sh bench --models gpt2-350m
#   bench/gpu/run.sh bench --models gpt2-124m-demo-box
#   bench/gpu/run.sh report                   # the whole table, from the results JSON
#
# `all` runs build, weights, tokens and bench in one go (no time limit).
# Everything written goes under --work (default build-gpu-run): the build, a copy of
# the packages with their weights, tokens.bin and results.json; the --packages folder
# is only read. Arguments after `bench` go to bench/gpu_bench.py (--parts, --steps,
# --warmup, --attention, --timeout, ...); a step that may not fit in 10 minutes
# splits by --parts (hetrun,eager,compile,hetero).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
PACKAGES=build-gpu-bench/packages
WORK=build-gpu-run
BUILD=
PY=${PYTHON:-python3}
JOBS=${JOBS:-$(nproc)}
STEP_LIMIT=${STEP_LIMIT:-570}   # seconds; a step stopped at it can be run again
TOKENS=4194304                  # 8 MiB of uint16: no batch repeats within a run

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"
  cat <<EOF

usage: bench/gpu/run.sh [--packages DIR] [--work DIR] [--build DIR] [--python PY] STEP...
  --packages DIR   the folder prepare.sh wrote (default build-gpu-bench/packages)
  --work DIR       where everything is written (default build-gpu-run)
  --build DIR      the runtime's build folder (default WORK/build)
  --python PY      Python with torch (default \$PYTHON or python3)
  STEP             build | weights | tokens | bench [gpu_bench.py args] | report | all
EOF
}

while [ $# -gt 0 ]; do
  case "$1" in
    --packages) PACKAGES=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --python) PY=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { usage; exit 2; }
BUILD=${BUILD:-$WORK/build}
COPY=$WORK/packages

say() { echo "run.sh: $*"; }
die() { echo "run.sh: error: $*" >&2; exit 1; }

# A step's command under the time limit, with a message when it is reached.
limited() {
  local code=0
  timeout --kill-after=10 "$STEP_LIMIT" "$@" || code=$?
  if [ "$code" = 124 ] || [ "$code" = 137 ]; then
    die "stopped after $STEP_LIMIT s: $* (run the same step again; it goes on from what is done)"
  fi
  return "$code"
}

setting() {  # KEY: a top-level value of prepare.json
  "$PY" -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" \
    "$COPY/prepare.json" "$1"
}

step_build() {
  command -v cmake >/dev/null || die "cmake is missing"
  local gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  say "configure $BUILD (runtime only: -DHETC_BUILD_COMPILER=OFF)"
  if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    limited cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DHETC_BUILD_COMPILER=OFF ||
      die "cmake could not configure the runtime (above: the package it lacks, e.g. protobuf, OpenBLAS, GTest, CUDA)"
  fi
  say "build hetrun ($JOBS jobs)"
  limited cmake --build "$BUILD" --target hetrun -j "$JOBS" || die "the hetrun build failed"
  [ -x "$BUILD/bin/hetrun" ] || die "no $BUILD/bin/hetrun after the build"
  "$BUILD/bin/hetrun" --help 2>&1 | grep -E -- '--backend|--share-gpu' || true
}

step_weights() {
  [ -f "$PACKAGES/prepare.json" ] ||
    die "no $PACKAGES/prepare.json: copy the folder bench/gpu/prepare.sh wrote (or pass --packages)"
  mkdir -p "$COPY"
  [ "$(cd "$PACKAGES" && pwd)" != "$(cd "$COPY" && pwd)" ] ||
    die "--packages must not be WORK/packages, where the packages are copied to"
  # A fresh copy of the programs; weights already written for the same programs stay.
  local pkg name
  for pkg in "$PACKAGES"/*.hetpkg; do
    name=$(basename "$pkg")
    if [ -d "$COPY/$name" ] && diff -rq -x weights.safetensors "$pkg" "$COPY/$name" >/dev/null; then
      continue
    fi
    rm -rf "${COPY:?}/${name:?}"
    cp -r "$pkg" "$COPY/$name"
  done
  cp "$PACKAGES"/prepare.json "$PACKAGES"/predictions.json "$COPY"/
  rm -rf "$COPY/plans" && cp -r "$PACKAGES/plans" "$COPY/plans"
  local family seed
  family=$(setting family)
  seed=$(setting seed)
  local rows row config
  mapfile -t rows < <("$PY" -c 'import json, sys
for m in json.load(open(sys.argv[1]))["models"]:
    print(m["name"], m["config"])' "$COPY/prepare.json")
  for row in "${rows[@]}"; do
    name=${row% *}
    config=${row#* }
    if [ -f "$COPY/$name.hetpkg/weights.safetensors" ]; then
      say "$name: weights already written"
      continue
    fi
    say "$name: write weights ($family $config, seed $seed)"
    limited "$PY" bench/gpu/write_weights.py "$COPY/$name.hetpkg" --family "$family" \
      --config "$config" --seed "$seed"
  done
}

step_tokens() {
  [ -f "$COPY/prepare.json" ] || die "no $COPY/prepare.json: run the weights step first"
  local vocab
  vocab=$(setting vocab)
  if [ -f "$WORK/tokens.bin" ] && [ -f "$WORK/tokens.vocab" ] && [ "$(cat "$WORK/tokens.vocab")" = "$vocab" ]; then
    say "$WORK/tokens.bin is there"
    return
  fi
  limited "$PY" models/make_tokens.py "$WORK/tokens.bin" --tokens "$TOKENS" --vocab "$vocab"
  echo "$vocab" > "$WORK/tokens.vocab"
}

step_bench() {
  [ -f "$COPY/prepare.json" ] || die "no $COPY/prepare.json: run the weights step first"
  [ -f "$WORK/tokens.bin" ] || die "no $WORK/tokens.bin: run the tokens step first"
  limited "$PY" bench/gpu_bench.py --bin "$BUILD/bin" --packages "$COPY" \
    --data "$WORK/tokens.bin" --out "$WORK/results.json" "$@"
}

step_report() {
  [ -f "$WORK/results.json" ] || die "no $WORK/results.json yet: run a bench step first"
  "$PY" bench/gpu_bench.py --bin "$BUILD/bin" --packages "$COPY" --out "$WORK/results.json" \
    --report-only
}

mkdir -p "$WORK"
while [ $# -gt 0 ]; do
  step=$1
  shift
  case "$step" in
    build) step_build ;;
    weights) step_weights ;;
    tokens) step_tokens ;;
    bench) step_bench "$@"; exit 0 ;;   # the rest are gpu_bench.py's arguments
    report) step_report ;;
    all) STEP_LIMIT=${ALL_STEP_LIMIT:-86400}; step_build; step_weights; step_tokens
         step_bench "$@"; exit 0 ;;
    *) die "unknown step '$step' (build, weights, tokens, bench, report, all)" ;;
  esac
done
