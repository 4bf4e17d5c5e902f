#!/usr/bin/env bash
# regenerate.sh OUT_DIR: writes into OUT_DIR what the memory-model test
# (test/unit/RankMemoryTest.cpp) compares the planner's model with, using
# the `hetc` on PATH: the fixtures' segment profiles and the compiler's arena
# per rank for each plan below (batch 8 x 16 tokens). After a compiler change
# that moves them (test/planner/memory-model.test says so), refresh the
# committed copies:
#   PATH=$PWD/build/bin:$PATH test/unit/Inputs/memory-model/regenerate.sh \
#     test/unit/Inputs/memory-model
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
cd "$root"

for model in llama-deep-op17 gpt2-tiny-op17; do
  hetc profile "models/fixtures/$model.onnx" --seq 16 --json \
    > "$out/$model.profile.json"
done

# model, optimizer, plan file (or devices=N for hetc compile --devices N)
cases=(
  "llama-deep-op17 adamw test/e2e/Inputs/data-parallel-ragged.json"
  "llama-deep-op17 adamw test/e2e/Inputs/full-sharding.json"
  "llama-deep-op17 adamw test/e2e/Inputs/replicas-2-1-3.json"
  "llama-deep-op17 adamw test/e2e/Inputs/offload-optimizer.json"
  "llama-deep-op17 adamw test/e2e/Inputs/three-uneven-stages.json"
  "llama-deep-op17 adamw test/e2e/Inputs/two-even-stages.json"
  "llama-deep-op17 sgd test/e2e/Inputs/two-even-stages.json"
  "llama-deep-op17 adamw models/plans/demo-box-llama-deep.json"
  "llama-deep-op17 adamw test/unit/Inputs/memory-model/recompute-middle.plan.json"
  "llama-deep-op17 adamw test/unit/Inputs/memory-model/recompute-replicas.plan.json"
  "llama-deep-op17 adamw test/unit/Inputs/memory-model/gpipe-full-sharding.plan.json"
  "llama-deep-op17 adamw test/unit/Inputs/memory-model/single-device.plan.json"
  "llama-deep-op17 adamw test/unit/Inputs/memory-model/data-parallel-4.plan.json"
  "llama-deep-op17 adamw devices=2"
  "gpt2-tiny-op17 adamw models/plans/demo-box-gpt2-tiny.json"
  "gpt2-tiny-op17 adamw devices=2"
)
{
  echo "# model optimizer plan rank arena_bytes, from regenerate.sh"
  for entry in "${cases[@]}"; do
    read -r model optimizer plan <<<"$entry"
    if [[ $plan == devices=* ]]; then
      layout=(--devices "${plan#devices=}")
    else
      layout=(--plan "$plan")
    fi
    hetc compile "models/fixtures/$model.onnx" -o "$out/package.hetpkg" \
      --global-batch 8 --seq 16 --optimizer "$optimizer" "${layout[@]}" \
      2>&1 >/dev/null |
      sed -n "s/^hetc compile: rank \([0-9]*\): .* arena \([0-9]*\) bytes\$/$model $optimizer ${plan//\//\\/} \1 \2/p"
  done
} > "$out/compiler-arenas.txt"
rm -rf "$out/package.hetpkg"
