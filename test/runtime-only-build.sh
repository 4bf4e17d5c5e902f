#!/usr/bin/env bash
# runtime-only-build.sh SOURCE_DIR BUILD_DIR
#
# Configures hetc with the compiler off (-DHETC_BUILD_COMPILER=OFF, as on
# machines without MLIR) and builds hetrun and the runtime libraries, CPU
# backend only: the runtime must build without MLIR and LLVM. The main build
# checks the CUDA backend's sources: the runtime gets no LLVM include path
# there either.
set -euo pipefail
src=$1 dir=$2
cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DHETC_BUILD_COMPILER=OFF -DHETC_CUDA=OFF > "$dir.configure.log" 2>&1 ||
  { cat "$dir.configure.log"; exit 1; }
cmake --build "$dir" --target hetrun > "$dir.build.log" 2>&1 ||
  { tail -50 "$dir.build.log"; exit 1; }
if grep -q "llvm-22\|/mlir/" "$dir/compile_commands.json"; then
  echo "the runtime-only build compiles against LLVM or MLIR headers"
  exit 1
fi
"$dir/bin/hetrun" --help > "$dir.help"
head -1 "$dir.help"
