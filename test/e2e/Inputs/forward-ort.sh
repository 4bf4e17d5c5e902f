#!/usr/bin/env bash
# forward-ort.sh MODEL DIR
#
# hetrun's first loss on MODEL (batch 4 x 16 tokens of DIR/tokens.bin) against
# the loss of onnxruntime's logits on the same file and batch, within 1e-5.
set -euo pipefail
model=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
python=${HETC_PYENV:-${XDG_CACHE_HOME:-$HOME/.cache}/hetc/pyenv}/bin/python
run=$dir/$(basename "$model" .onnx)-forward
hetc compile "$model" -o "$run.hetpkg" --global-batch 4 --seq 16 --optimizer sgd 2> /dev/null
hetrun "$run.hetpkg" --data "$dir/tokens.bin" --steps 1 --threads 1 --metrics "$run.jsonl" > /dev/null
"$python" "$here/ort_first_loss.py" "$model" "$dir/tokens.bin" 4 16 "$run.jsonl" 1e-5
