#!/usr/bin/env bash
# train-precision.sh MODEL DIR NAME [hetc compile options...]
#
# Compiles MODEL for batch 8 x 16 tokens with AdamW and the given options,
# trains 10 steps on DIR/tokens.bin with ranks as threads, and, unless NAME
# is f32, compares the run with the f32 run of the same model (made first by
# NAME = f32): per-step losses within 2%; parameters within 2e-2 absolute
# (about 20% of the 10 steps' largest move, 10 * lr), since AdamW moves each
# element by about lr per step whatever the precision of its gradient.
set -euo pipefail
model=$1 dir=$2 name=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
models=$(cd "$here/../../../models" && pwd)
python=/usr/bin/python3

stem=$(basename "$model" .onnx)
run=$dir/$stem-$name
hetc compile "$model" -o "$run.hetpkg" --global-batch 8 --seq 16 \
  --optimizer adamw --lr 1e-3 "$@"
hetrun "$run.hetpkg" --data "$dir/tokens.bin" --steps 10 --threads 1 \
  --metrics "$run.jsonl" --save "$run.run" > /dev/null
[ "$name" = f32 ] && exit 0

reference=$dir/$stem-f32
"$python" "$models/compare_runs.py" --reference "$reference.run" \
  --reference-metrics "$reference.jsonl" --candidate "$run.run" \
  --metrics "$run.jsonl" --loss-rtol 0.02 --param-rtol 0.02 --param-atol 1.0
