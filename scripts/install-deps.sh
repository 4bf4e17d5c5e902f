#!/usr/bin/env bash
# Installs the Debian 12 packages hetc needs to build and test. Idempotent:
# it asks apt only for packages that are missing. Needs root (or sudo).
set -euo pipefail

packages=(
  # build
  cmake ninja-build g++ ccache pkg-config
  # compiler: MLIR/LLVM 22, lit and FileCheck
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libffi-dev libcurl4-openssl-dev
  # ONNX reading
  libonnx-dev libprotobuf-dev protobuf-compiler
  # runtime
  libopenblas-dev libopenmpi-dev openmpi-bin
  # tests
  libgtest-dev googletest libonnx-testdata
  # models: PyTorch reference and export (the torch 2.x environment for
  # Hugging Face models is scripts/setup-python.sh's venv)
  python3 python3-venv python3-torch python3-onnx python3-numpy
)
# `install-deps.sh fuzz` (make fuzz): clang with libFuzzer and its sanitizers.
if [ "${1:-}" = fuzz ]; then
  packages=(clang libclang-rt-dev)
fi

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
