#!/usr/bin/env bash
# The device check: one command, from the repository root on a GPU machine (CUDA,
# PyTorch, CMake; no MLIR, no network), that runs every CUDA test, trains on the GPU
# against the CPU backend, measures GPT-2 against PyTorch and writes the results to
# a folder within 8 minutes. Prepare its input on the build machine first:
#
#   bench/gpu/device-prepare.sh                  # here: build/gpu-check (make gpu-check-prepare)
#   bench/gpu/device-check.sh --out RESULTS      # there
#
# Options (bench/gpu/device_check.py --help): --prepared DIR, --work DIR, --budget S,
# --parts LIST, --build-here. docs/performance.md, "Device check".
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
PY=${PYTHON:-python3}
exec "$PY" "$ROOT/bench/gpu/device_check.py" "$@"
