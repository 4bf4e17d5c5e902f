#!/usr/bin/env bash
# `make fuzz`: builds the fuzz targets of test/fuzz with clang, libFuzzer and
# AddressSanitizer (everything they link instrumented) in BUILD_DIR, then runs
# each for FUZZ_SECONDS from its seed corpus. New inputs collect in
# BUILD_DIR/fuzz-corpus/NAME; an input that crashes, hangs (FUZZ_TIMEOUT
# seconds) or takes more than FUZZ_RSS_MB of memory is kept in
# test/fuzz/crashers/NAME/, where `make test` replays it from then on.
# FUZZ_RUNS=N runs each target N times instead (no time limit). Prints one
# line per target: runs, seconds, and whether it crashed.
#
#   scripts/fuzz.sh [BUILD_DIR]   (FUZZ_SECONDS=60 FUZZ_RUNS= FUZZ_TARGETS="onnx plan ...")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-fuzz}
seconds=${FUZZ_SECONDS:-60}
timeout=${FUZZ_TIMEOUT:-25}
rss=${FUZZ_RSS_MB:-2048}
targets=${FUZZ_TARGETS:-onnx plan cluster package checkpoint tokens}

"$root/scripts/install-deps.sh" fuzz
# No CUDA: nvcc's host compiler would bring GCC's sanitizer runtime.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DHETC_FUZZ=ON \
  -DHETC_CUDA=OFF \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address -g" \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address -g" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address" > /dev/null
binaries=()
for target in $targets; do binaries+=("hetc-fuzz-$target"); done
cmake --build "$build" --target "${binaries[@]}"

status=0
for target in $targets; do
  corpus=$build/fuzz-corpus/$target
  crashers=$root/test/fuzz/crashers/$target
  mkdir -p "$corpus" "$crashers"
  log=$build/fuzz-$target.log
  limit=(-max_total_time="$seconds")
  [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
  start=$SECONDS
  set +e
  "$build/test/fuzz/hetc-fuzz-$target" "${limit[@]}" \
    -timeout="$timeout" -rss_limit_mb="$rss" -print_final_stats=1 \
    -artifact_prefix="$crashers/" "$corpus" "$root/test/fuzz/corpus/$target" \
    > "$log" 2>&1
  code=$?
  set -e
  took=$((SECONDS - start))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ "$code" -eq 0 ]; then
    echo "fuzz: $target: ${runs:-?} runs in $took s, no crash"
  else
    status=1
    echo "fuzz: $target: CRASH after ${runs:-?} runs (exit $code): kept in $crashers, log $log"
    grep -m 3 -E "ERROR|SUMMARY|Test unit written" "$log" | sed 's/^/  /' || true
  fi
done
exit $status
