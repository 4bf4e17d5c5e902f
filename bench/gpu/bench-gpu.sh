#!/usr/bin/env bash
# The `bench-gpu` build target (bench/CMakeLists.txt, `make bench-gpu`): with a GPU
# here, prepares the packages with this build's hetc, writes their weights and runs
# the whole GPU benchmark with this build's hetrun; without one, says how to run it on
# a GPU machine. docs/performance.md, "GPU".
#
#   bench/gpu/bench-gpu.sh --bin BUILD/bin --work DIR [--python PY] [--gpu-python PY]
#                          [-- prepare.sh options]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=$ROOT/build/bin
WORK=$ROOT/build/gpu-bench
PY=/usr/bin/python3
GPU_PY=python3
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) BIN=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --python) PY=$2; shift 2 ;;
    --gpu-python) GPU_PY=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "bench-gpu.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

gpu=
if command -v nvidia-smi >/dev/null 2>&1; then
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1 || true)
fi
if [ -z "$gpu" ]; then
  cat <<EOF
bench-gpu: no GPU here (nvidia-smi lists none), so nothing was measured.

The GPU benchmark runs in two places (docs/performance.md, "GPU"):

  here, where hetc is built:
    bench/gpu/prepare.sh --bin $BIN --out build-gpu-bench/packages

  then on the GPU machine, with build-gpu-bench/packages copied into the same
  place of its copy of the repository, one command at a time:
    bench/gpu/run.sh build
    bench/gpu/run.sh weights tokens
    bench/gpu/run.sh bench --models gpt2-124m
    bench/gpu/run.sh bench --models gpt2-350m
    bench/gpu/run.sh bench --models gpt2-124m-demo-box
    bench/gpu/run.sh report
EOF
  exit 0
fi

echo "bench-gpu: GPU $gpu"
"$ROOT/bench/gpu/prepare.sh" --bin "$BIN" --out "$WORK/prepared" --python "$PY" "$@"
STEP_LIMIT=86400 "$ROOT/bench/gpu/run.sh" --packages "$WORK/prepared" --work "$WORK" \
  --build "$(dirname "$BIN")" --python "$GPU_PY" weights tokens bench
