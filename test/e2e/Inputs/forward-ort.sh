#!/usr/bin/env bash
# forward-ort.sh MODEL DIR [hetc compile options...]
#
# MODEL compiled --forward-only (batch 4 x 16 tokens of DIR/tokens.bin) and
# run one step: its logits and loss against onnxruntime's on the same file
# and batch, within 1e-5 (Inputs/ort_logits.py).
set -euo pipefail
model=$1 dir=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
python=${HETC_PYENV:-${XDG_CACHE_HOME:-$HOME/.cache}/hetc/pyenv}/bin/python
run=$dir/$(basename "$model" .onnx)-forward
hetc compile "$model" -o "$run.hetpkg" --forward-only --global-batch 4 --seq 16 "$@" \
  2> "$run.compile.log" || { cat "$run.compile.log" >&2; exit 1; }
hetrun "$run.hetpkg" --data "$dir/tokens.bin" --steps 1 --threads 1 \
  --metrics "$run.jsonl" --outputs "$run.logits.safetensors" > /dev/null 2>&1
"$python" "$here/ort_logits.py" "$model" "$dir/tokens.bin" 4 16 \
  "$run.logits.safetensors" "$run.jsonl" 1e-5
