#!/usr/bin/env bash
# Prepares bench/gpu/device-check.sh on the build machine (no GPU needed): writes one
# folder that holds everything the GPU machine needs and cannot make itself, since it
# has no MLIR, no -dev packages and no network (docs/performance.md, "Device check"):
#
#   OUT/bundle.tar.xz   hetrun, the CUDA gtest binaries and the kernel benchmark of
#                       this build, stripped, with the shared libraries they need that
#                       a bare CUDA machine lacks (protobuf, OpenBLAS, Open MPI,
#                       gfortran...) in lib/, found through their $ORIGIN/../lib
#                       run path. CUDA's own libraries (cudart, cuBLASLt, NCCL) are
#                       the GPU machine's.
#   OUT/e2e/            test/gpu/gpu-e2e.sh prepare: fixture packages (f32, plans, bf16)
#                       with their CPU runs, the references of the CUDA runs
#   OUT/sized/          GPT-2-small-sized packages (d768, 12 layers, vocabulary 4096),
#                       f32 and bf16, without weights: both backends train them there
#   OUT/bench/          bench/gpu/prepare.sh: GPT-2 124M and 350M at T = 1024 in bf16
#                       and the demo-box plan, without weights, with the planner's
#                       predictions
#   OUT/prepared.json   what was prepared, from which commit
#
#   bench/gpu/device-prepare.sh [--build DIR] [--out DIR] [--python PY] [--skip-bench]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$ROOT/build
OUT=
PY=${HETC_BENCH_PYTHON:-/usr/bin/python3}
BENCH=1
SIZED_BATCH=4
SIZED_SEQ=128

while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --python) PY=$2; shift 2 ;;
    --skip-bench) BENCH=; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' \
                 "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "device-prepare.sh: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done
BUILD=$(cd "$BUILD" && pwd)
OUT=${OUT:-$BUILD/gpu-check}

say() { echo "device-prepare.sh: $*"; }
die() { echo "device-prepare.sh: error: $*" >&2; exit 1; }

BIN=$BUILD/bin
CUDA_TESTS=$BUILD/test/runtime/cuda
KERNEL_BENCH=$BUILD/bench/cuda/hetc-cuda-kernel-bench
for f in "$BIN/hetc" "$BIN/hetrun" "$CUDA_TESTS/hetc-cuda-kernel-tests" \
         "$CUDA_TESTS/hetc-cuda-exec-tests" "$KERNEL_BENCH"; do
  [ -x "$f" ] || die "no $f: build with CUDA first (cmake --build $BUILD; nvcc must be found)"
done
case "$("$BIN/hetrun" --help 2>&1)" in *--share-gpu*) ;; *) false ;; esac ||
  die "$BIN/hetrun was built without CUDA"

rm -rf "$OUT"
mkdir -p "$OUT"
export PATH=$BIN:$PATH

# Libraries every Linux with a CUDA driver has (the C and C++ runtimes), and CUDA's
# own, which must match the GPU machine's driver: neither travels.
is_system_library() {
  case "$(basename "$1")" in
    linux-vdso*|ld-linux*|libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*) return 0 ;;
    libstdc++.so*|libgcc_s.so*|libcuda.so*|libcudart.so*|libcublas*|libnccl.so*) return 0 ;;
  esac
  return 1
}

make_bundle() {
  local stage=$OUT/bundle.stage
  mkdir -p "$stage/bin" "$stage/lib"
  local binaries=("$BIN/hetrun" "$CUDA_TESTS/hetc-cuda-kernel-tests"
                  "$CUDA_TESTS/hetc-cuda-exec-tests" "$KERNEL_BENCH")
  local binary lib
  for binary in "${binaries[@]}"; do
    cp "$binary" "$stage/bin/"
    strip "$stage/bin/$(basename "$binary")"
    ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
      while read -r lib; do
        is_system_library "$lib" || cp -Ln "$lib" "$stage/lib/" 2>/dev/null || true
      done
  done
  for binary in "$stage"/bin/*; do
    case "$(readelf -d "$binary")" in
      *'ORIGIN/../lib'*) ;;
      *) die "$(basename "$binary") has no \$ORIGIN/../lib run path (tools/hetrun/CMakeLists.txt)" ;;
    esac
  done
  # xz finds the GPU code the binaries share: a third of gzip's size.
  tar -C "$stage" -cJf "$OUT/bundle.tar.xz" bin lib
  rm -rf "$stage"
  say "bundle: $(du -h "$OUT/bundle.tar.xz" | cut -f1) ($(tar -tJf "$OUT/bundle.tar.xz" | grep -c '^lib/.') libraries)"
}

# GPT-2-small-sized: 85M parameters in its 12 blocks (GPT-2 124M's), a vocabulary of
# 4096 so that a CPU step stays short. Shapes only: the GPU machine writes the weights.
make_sized() {
  local dir=$OUT/sized onnx=$OUT/sized/gpt2-bench-large.onnx precision
  mkdir -p "$dir"
  "$PY" "$ROOT/models/export.py" --family gpt2 --config bench-large --seq "$SIZED_SEQ" \
    --opset 17 --seed 0 --shapes-only --out "$onnx" > /dev/null
  for precision in f32 bf16; do
    hetc compile "$onnx" -o "$dir/gpt2-bench-large-$precision.hetpkg" --no-weights \
      --global-batch "$SIZED_BATCH" --seq "$SIZED_SEQ" --optimizer adamw --lr 1e-4 \
      --device-memory 80GB --precision "$precision" 2> "$dir/$precision.compile.log" ||
      { cat "$dir/$precision.compile.log" >&2; die "hetc compile bench-large $precision failed"; }
  done
  rm -f "$onnx"
  "$PY" "$ROOT/models/make_tokens.py" "$dir/tokens.bin" --tokens 200000 --vocab 4096 > /dev/null
  say "sized: GPT-2 bench-large (d768, 12 layers, vocabulary 4096), B$SIZED_BATCH x T$SIZED_SEQ, f32 and bf16"
}

say "bundle of $BUILD"
make_bundle
say "fixtures and their CPU runs (test/gpu/gpu-e2e.sh prepare)"
PYTHON=$PY "$ROOT/test/gpu/gpu-e2e.sh" prepare "$OUT/e2e" | sed 's/^/  /'
make_sized
if [ -n "$BENCH" ]; then
  say "GPT-2 124M and 350M (bench/gpu/prepare.sh)"
  "$ROOT/bench/gpu/prepare.sh" --bin "$BIN" --out "$OUT/bench" --work "$OUT/bench.work" \
    --python "$PY" | sed 's/^/  /'
  rm -rf "$OUT/bench.work"
fi

COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
  COMMIT="$COMMIT+local-changes"
cat > "$OUT/prepared.json" <<EOF
{"commit": "$COMMIT", "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
 "sized": {"config": "bench-large", "batch": $SIZED_BATCH, "seq": $SIZED_SEQ},
 "bench": $( [ -n "$BENCH" ] && echo true || echo false )}
EOF
BYTES=$(du -sb "$OUT" | cut -f1)
say "$OUT: $((BYTES / 1024 / 1024)) MiB"
[ "$BYTES" -lt $((60 * 1024 * 1024)) ] || say "warning: over 60 MiB"
REL=${OUT#"$ROOT"/}
say "next, on the GPU machine from the repository root, with $REL copied there:"
say "  bench/gpu/device-check.sh --prepared $REL --out RESULTS"
