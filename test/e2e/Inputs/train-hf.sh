#!/usr/bin/env bash
# train-hf.sh MODEL DIR OPTIMIZER [hetc compile options...]
#
# A models/hf_export.py export trained by hetc (batch 4 x 16 tokens, 5 steps
# on DIR/tokens.bin) against the same transformers model trained by PyTorch
# in float64 (models/reference_train.py, the project's Python).
set -euo pipefail
model=$1 dir=$2 optimizer=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
models=$(cd "$here/../../../models" && pwd)
python=${HETC_PYENV:-${XDG_CACHE_HOME:-$HOME/.cache}/hetc/pyenv}/bin/python

case $optimizer in
  sgd) update=(--optimizer sgd --lr 0.1)
       tolerance=(--loss-rtol 1e-5 --param-rtol 1e-5 --param-atol 1e-3) ;;
  adamw) update=(--optimizer adamw --lr 1e-3 --weight-decay 0.1)
         tolerance=(--loss-rtol 1e-5 --param-rtol 1e-3 --param-atol 5e-2
                    --state-rtol 1e-2 --state-atol 1e-5 --zero-grad-rms 1e-10) ;;
esac

run=$dir/$(basename "$model" .onnx)-$optimizer
hetc compile "$model" -o "$run.hetpkg" --global-batch 4 --seq 16 "${update[@]}" "$@" \
  2> "$run.compile.log" || { cat "$run.compile.log" >&2; exit 1; }
hetrun "$run.hetpkg" --data "$dir/tokens.bin" --steps 5 --threads 1 \
  --metrics "$run.jsonl" --save "$run.run" > /dev/null
"$python" "$models/reference_train.py" "$model" --data "$dir/tokens.bin" \
  --global-batch 4 --seq 16 --steps 5 "${update[@]}" --dtype float64 --threads 1 \
  --out "$run.ref" > /dev/null
"$python" "$models/compare_runs.py" --reference "$run.ref" --candidate "$run.run" \
  --metrics "$run.jsonl" "${tolerance[@]}"
