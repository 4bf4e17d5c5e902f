#!/usr/bin/env bash
# gpu-e2e.sh prepare DIR      (needs hetc and hetrun; no GPU)
# gpu-e2e.sh check DIR        (needs hetrun built with CUDA, a GPU, python3
#                              with numpy)
#
# The end-to-end equivalence tests on the CUDA backend. `prepare` compiles
# the packages and trains each on the CPU backend (the references); `check`
# trains the same packages on the GPU and compares with models/compare_runs.py:
#   - f32, one device, GPT-2 / Llama / BERT fixtures, SGD and AdamW: CPU
#     tolerances (the CPU-vs-CPU plan tests' ones);
#   - f32 plans on one GPU (hetrun --share-gpu: every rank in its own green
#     context, messages staged through the host) against the CPU run of the
#     single-device package, among them a plan whose stages keep their AdamW
#     state in host memory and update it there (the host spans) and one
#     whose middle stage relays a gradient;
#   - CUDA graphs replay exactly what eager launches compute (identical
#     losses with and without --no-cuda-graphs);
#   - bf16 (when hetc has --precision): the GPU run's losses within 2% of the
#     f32 CPU run.
# The two halves can run on different machines (a GPU machine without the
# compiler): DIR holds everything `check` needs (packages, tokens, CPU
# runs), a few MB. The lit test test/e2e/cuda-vs-cpu.test runs both.
set -euo pipefail
mode=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
models=$(cd "$here/../../models" && pwd)
inputs=$(cd "$here/../e2e/Inputs" && pwd)
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3

sgd=(--optimizer sgd --lr 0.05)
adamw=(--optimizer adamw --lr 1e-3 --weight-decay 0.1 --clip-norm 1.0)
sgdTolerance=(--loss-rtol 1e-5 --param-rtol 1e-5 --param-atol 1e-3)
adamwTolerance=(--loss-rtol 1e-5 --param-rtol 1e-3 --param-atol 5e-2
                --state-rtol 1e-2 --state-atol 1e-5)

# NAME MODEL OPTIMIZER REFERENCE [hetc compile options]: one case; REFERENCE
# is the case whose CPU run the GPU run is compared with ("-": its own).
cases() {
  for model in gpt2-tiny-op17 llama-tiny-op17 bert-tiny-op17; do
    echo "$model-sgd $model sgd - "
    echo "$model-adamw $model adamw - "
  done
  echo "llama-deep-sgd llama-deep-op17 sgd - "
  echo "llama-deep-adamw llama-deep-op17 adamw - "
  echo "llama-deep-three-uneven llama-deep-op17 sgd llama-deep-sgd --plan $inputs/three-uneven-stages.json"
  echo "llama-deep-replicas llama-deep-op17 sgd llama-deep-sgd --plan $inputs/replicas-2-1-3.json"
  echo "llama-deep-offload llama-deep-op17 adamw llama-deep-adamw --plan $inputs/offload-optimizer.json"
  echo "gpt2-tiny-demo-box gpt2-tiny-op17 sgd gpt2-tiny-op17-sgd --plan $models/plans/demo-box-gpt2-tiny.json"
  echo "gpt2-tiny-relay gpt2-tiny-op17 sgd gpt2-tiny-op17-sgd --plan $inputs/gpt2-tiny-relay.json"
  if hetc compile --help 2>/dev/null | grep -q -- --precision; then
    echo "gpt2-tiny-bf16 gpt2-tiny-op17 adamw gpt2-tiny-op17-adamw --precision bf16"
    echo "llama-tiny-bf16 llama-tiny-op17 adamw llama-tiny-op17-adamw --precision bf16"
  fi
}

prepare() {
  mkdir -p "$dir"
  "$python" "$models/make_tokens.py" "$dir/tokens.bin" --tokens 20000 --vocab 128
  cases > "$dir/cases.txt"
  while read -r name model optimizer reference options; do
    local update=("${sgd[@]}")
    [ "$optimizer" = adamw ] && update=("${adamw[@]}")
    # shellcheck disable=SC2086
    hetc compile "$models/fixtures/$model.onnx" -o "$dir/$name.hetpkg" \
      --global-batch 8 --seq 16 "${update[@]}" $options 2>/dev/null
    # Plans and low precision compare with another case's CPU run.
    [ "$reference" = - ] || continue
    hetrun "$dir/$name.hetpkg" --data "$dir/tokens.bin" --steps 5 \
      --metrics "$dir/$name-cpu.jsonl" --save "$dir/$name-cpu.run" > /dev/null
  done < "$dir/cases.txt"
  echo "prepared $(wc -l < "$dir/cases.txt") cases in $dir"
}

# Prints "result NAME ok" or "result NAME failed: WHY" per comparison; a hetrun
# that fails fails its case and the others still run.
check() {
  local failed=0
  while read -r name model optimizer reference options; do
    [ "$reference" = - ] && reference=$name
    local ranks gpu=(--backend cuda)
    ranks=$(ls "$dir/$name.hetpkg" | grep -cE '^rank[0-9]+\.pb$' || true)
    [ "$ranks" -gt 1 ] && gpu+=(--share-gpu)
    echo "== $name: GPU against CPU ($reference)"
    if ! hetrun "$dir/$name.hetpkg" --data "$dir/tokens.bin" --steps 5 "${gpu[@]}" \
         --metrics "$dir/$name-gpu.jsonl" --save "$dir/$name-gpu.run" \
         > /dev/null 2> "$dir/$name-gpu.err"; then
      cat "$dir/$name-gpu.err" >&2
      echo "result $name failed: $(grep -m1 -i error "$dir/$name-gpu.err" || tail -n1 "$dir/$name-gpu.err")"
      failed=1
      continue
    fi
    local tolerance=("${sgdTolerance[@]}")
    [ "$optimizer" = adamw ] && tolerance=("${adamwTolerance[@]}")
    case $options in
      *--precision*) tolerance=(--loss-rtol 0.02 --param-rtol 0.02 --param-atol 1.0) ;;
    esac
    if "$python" "$models/compare_runs.py" --reference "$dir/$reference-cpu.run" \
         --reference-metrics "$dir/$reference-cpu.jsonl" \
         --candidate "$dir/$name-gpu.run" --metrics "$dir/$name-gpu.jsonl" \
         "${tolerance[@]}"; then
      echo "result $name ok"
    else
      echo "result $name failed: differs from the CPU run"
      failed=1
    fi
    if [ "$name" = gpt2-tiny-op17-adamw ]; then
      echo "== $name: CUDA graphs against eager launches"
      if hetrun "$dir/$name.hetpkg" --data "$dir/tokens.bin" --steps 5 \
           --backend cuda --no-cuda-graphs --metrics "$dir/$name-eager.jsonl" > /dev/null &&
         "$python" "$inputs/same_losses.py" "$dir/$name-gpu.jsonl" "$dir/$name-eager.jsonl"; then
        echo "result $name-graphs ok"
      else
        echo "result $name-graphs failed: CUDA graphs and eager launches differ"
        failed=1
      fi
    fi
  done < "$dir/cases.txt"
  return $failed
}

case $mode in
  prepare) prepare ;;
  check) check ;;
  *) echo "usage: gpu-e2e.sh prepare|check DIR" >&2; exit 2 ;;
esac
